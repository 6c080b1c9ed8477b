"""The `kvdata` command line: one click group, one module per command family.

Each module here only parses arguments, calls the library and prints.
"""
import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kvdata")
def main() -> None:
    """Build, load, re-verify, audit and score the AMDKernelVault corpus."""


def _register() -> None:
    from kvdata.cli import audit_cmd, build_cmd, export_cmd, reverify_cmd, score_cmd  # noqa: F401  (commands attach to `main`)


_register()
