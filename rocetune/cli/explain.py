"""``rocetune explain RULE``: print a rule's documentation (rules/RTxxx.md).

On a terminal the Markdown is rendered with rich (headings, lists, code blocks, colour per
``--color``/``NO_COLOR``/``FORCE_COLOR``); piped or with ``--format markdown`` it is printed as
Markdown. Either way a "Sources cited" section lists every citation of the doc (``S9``,
``roce-knowledge.md §3.5``, ``R-SW-04``) with its title and address, read from the shipped
``docs/sources.md`` and ``docs/roce-knowledge.md``.
"""

from __future__ import annotations

import difflib
import io
import re
import sys

import click

from rocetune.cli.common import COLOR_OPTION, EXIT_INPUT, text_width, use_colour

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def rule_text(rule: str) -> str:
    """The doc of ``rule`` (code or name) without front matter, with a metadata line.

    Raises LookupError with a user-facing message when the rule or its doc is unknown.
    """
    from rocetune.checks.registry import all_rules, rule_by_code
    from rocetune.rules_docs import rules_dir

    found = rule_by_code(rule)
    if found is None:
        names = [r.meta.code for r in all_rules()] + [r.meta.name for r in all_rules()]
        close = difflib.get_close_matches(rule, names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise LookupError(f"unknown rule {rule!r}{hint}; `rocetune rules` lists them")
    meta = found.meta
    base = rules_dir()
    item = base.joinpath(f"{meta.code}.md") if base is not None else None
    if item is None or not item.is_file():
        raise LookupError(f"no documentation for {meta.code} in this installation")
    body = _FRONT_MATTER.sub("", item.read_text(encoding="utf-8").replace("\r\n", "\n"), count=1)
    title, _, rest = body.partition("\n")
    tags = ", ".join(meta.tags) or "-"
    line = f"severity: {meta.severity.value} | scope: {meta.scope} | tags: {tags}"
    line += f" | since {meta.since} | module: {found.__module__}"
    return f"{title}\n\n{line}\n{rest.rstrip()}\n"


def with_sources(text: str, autolinks: bool = True) -> str:
    """The doc followed by its "Sources cited" section (titles and addresses)."""
    from rocetune.report.citations import sources_block

    block = sources_block(text, autolinks=autolinks)
    return f"{text}\n{block}" if block else text


def render_rich(text: str, colour: bool, width: int | None) -> str:
    """``text`` (Markdown) rendered for a terminal by rich; no escape codes without colour."""
    from rich.console import Console
    from rich.markdown import Markdown

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=colour,
        no_color=not colour,
        color_system="standard" if colour else None,
        width=width or 100,
        highlight=False,
        emoji=False,
    )
    console.print(Markdown(text, hyperlinks=colour))
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


@click.command("explain")
@click.argument("rule")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "rich", "markdown"]),
    default="auto",
    show_default=True,
    help="rich: rendered for a terminal; markdown: the Markdown source; auto: rich on a"
    " terminal, markdown when piped or redirected.",
)
@COLOR_OPTION
def explain(rule: str, fmt: str, color: str) -> None:
    """Print the documentation of RULE (a code such as RT201 or a name such as
    pfc-on-lossless): what it checks, why it matters, how to fix it, options, examples, and
    the sources it cites with their titles and addresses."""
    tty = sys.stdout.isatty()
    rich = fmt == "rich" or (fmt == "auto" and tty)
    try:
        text = with_sources(rule_text(rule), autolinks=not rich)
    except LookupError as exc:
        click.echo(f"rocetune: error: {exc.args[0]}", err=True)
        sys.exit(EXIT_INPUT)
    if rich:
        colour = use_colour(color, tty)
        click.echo(render_rich(text, colour, text_width(tty)), nl=False, color=colour)
        return
    click.echo(text, nl=False)


__all__ = ["explain", "render_rich", "rule_text", "with_sources"]
