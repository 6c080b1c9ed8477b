"""The `kvdata` command line: one click group, one module per command family.

Each module here only parses arguments, calls the library and prints. Whatever a command raises ends in one line
on stderr and exit code 1 (2 for usage errors, click's convention), never a traceback: :class:`_Main` turns the
exceptions the library raises into :func:`kvdata.errors.one_line` messages. ``KVDATA_DEBUG=1`` shows the traceback.
"""
import os

import click


class _Main(click.Group):
    """The ``kvdata`` group: every command's unexpected exception becomes a one-line error (exit 1)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort,
                KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:  # noqa: BLE001 - the one place where any failure becomes a message
            if os.environ.get("KVDATA_DEBUG"):
                raise
            from kvdata.errors import one_line

            raise click.ClickException(one_line(e)) from None


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kvdata")
def main() -> None:
    """Build, load, re-verify, audit and score the AMDKernelVault corpus.

    \b
    Examples:
      kvdata build --sample --out build/
      kvdata info build/
      kvdata audit-overlap --bench kernelbench --bench-path kernelbench.jsonl --train build/ --out audit/
      kvdata reverify --subset triton --data build/ --out results.parquet
      kvdata export --data build/ --task torch2triton --format messages --out sft/

    Any error ends in one line; KVDATA_DEBUG=1 shows the traceback.
    """


def _register() -> None:
    from kvdata.cli import audit_cmd, build_cmd, export_cmd, reverify_cmd, reward_cmd, score_cmd  # noqa: F401  (commands attach to `main`)


_register()
