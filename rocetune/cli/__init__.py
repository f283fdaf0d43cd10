"""Command line: click commands only. Each builds options, calls rocetune.api, reports."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from rocetune import __version__
from rocetune.cli.common import (
    EXIT_INPUT,
    common_options,
    emit,
    load_intent,
    run_guarded,
    selection_from,
)

F = TypeVar("F", bound=Callable[..., Any])


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rocetune")
def cli() -> None:
    """Keep lossless RoCE v2 fabrics lossless: audit PFC, DSCP, ECN, ETS, MTU and buffers."""


@cli.command()
@click.argument("inventory", type=click.Path(dir_okay=False, path_type=Path))
@common_options
def audit(inventory: Path, **opts: Any) -> None:
    """Audit every device of INVENTORY against the fabric's intent.

    Devices with a `snapshot:` are read from it (a snapshot directory or one saved config).
    """
    from rocetune import api

    def job() -> int:
        result = api.audit(inventory, selection_from(opts))
        return emit(result, opts)

    sys.exit(run_guarded(job))


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--platform",
    type=click.Choice(["sonic", "cumulus"]),
    help="Platform of the files (default: detected from their content).",
)
@click.option(
    "--intent",
    "intent_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML file with the intent (an inventory's `intent:` is used when present).",
)
@common_options
def lint(
    files: tuple[Path, ...], platform: str | None, intent_file: Path | None, **opts: Any
) -> None:
    """Lint saved config files (config_db.json, NVUE YAML or `nv set` lists).

    Each file is one device, named after the hostname in it (else the file name). Files are
    checked against the default intent unless --intent is given.
    """
    from rocetune import api

    def job() -> int:
        intent = load_intent(intent_file) if intent_file else None
        result = api.lint(list(files), platform, intent, selection_from(opts))
        return emit(result, opts)

    sys.exit(run_guarded(job))


@cli.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def rules_cmd(fmt: str) -> None:
    """List the rule catalogue (code, name, severity, scope)."""
    import json

    from rocetune.checks.registry import all_rules

    rows = [
        {
            "code": r.meta.code,
            "name": r.meta.name,
            "severity": r.meta.severity.value,
            "scope": r.meta.scope,
            "summary": r.meta.summary,
        }
        for r in all_rules()
    ]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        head = f"{row['code']}  {row['name']:<24} {row['severity']:<8} {row['scope']:<7}"
        click.echo(f"{head} {row['summary']}")


def main() -> None:
    """Console-script entry point."""
    try:
        cli(prog_name="rocetune")
    except KeyboardInterrupt:
        click.echo("rocetune: interrupted", err=True)
        sys.exit(EXIT_INPUT)
