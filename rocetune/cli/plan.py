"""``rocetune plan INVENTORY [--format text|json]``: per device, the ordered change set."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rocetune.cli.common import EXIT_INPUT, run_guarded

EXIT_NO_CHANGE = 0
EXIT_CHANGES = 1


@click.command("plan")
@click.argument("inventory", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def plan(inventory: Path, fmt: str) -> None:
    """Show per device of INVENTORY the changes from its running config to the intended one.

    The intended config is `rocetune render`'s; changes are in the platform's own syntax
    (SONiC JSON Patch ops, `nv set`/`nv unset`, EOS/NX-OS lines, host commands), non-disruptive
    first, each marked DISRUPTIVE (port flap or brief traffic block) or hitless with the
    reason, followed by the rollback set. Exit 0 when no device needs a change, 1 when some
    do, 2 when a device cannot be planned (input or render errors).
    """
    from rocetune import api
    from rocetune.render.plan import to_json, to_text

    def job() -> int:
        plans, errors = api.plan(inventory)
        for err in errors:
            click.echo(f"rocetune: error: {err}", err=True)
        click.echo(to_json(plans) if fmt == "json" else to_text(plans), nl=False)
        failed = [p for p in plans if p.status == "error"]
        for p in failed:
            click.echo(f"rocetune: error: {p.message}", err=True)
        if errors or failed:
            return EXIT_INPUT
        return EXIT_CHANGES if any(p.changes for p in plans) else EXIT_NO_CHANGE

    sys.exit(run_guarded(job))
