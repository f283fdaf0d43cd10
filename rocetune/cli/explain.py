"""``rocetune explain RULE``: print a rule's documentation (rules/RTxxx.md)."""

from __future__ import annotations

import difflib
import re
import sys

import click

from rocetune.cli.common import EXIT_INPUT

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


@click.command("explain")
@click.argument("rule")
def explain(rule: str) -> None:
    """Print the documentation of RULE (a code such as RT201 or a name such as
    pfc-on-lossless): what it checks, why it matters, how to fix it, options, examples."""
    try:
        text = rule_text(rule)
    except LookupError as exc:
        click.echo(f"rocetune: error: {exc.args[0]}", err=True)
        sys.exit(EXIT_INPUT)
    click.echo(text, nl=False)


__all__ = ["explain", "rule_text"]
