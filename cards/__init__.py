"""The report and card templates (Jinja2), and the one way they are loaded."""
from __future__ import annotations


def template(name: str):
    """The compiled template ``name`` from this package: HTML ones autoescaped, blocks trimmed."""
    from importlib import resources

    import jinja2

    text = resources.files("kvdata.cards").joinpath(name).read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=name.endswith(".html.j2"), keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True)
    return env.from_string(text)
