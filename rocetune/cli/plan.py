"""``rocetune plan INVENTORY``: per device, the smallest native change set fixing its findings."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rocetune.cli.cache import cache_options, parse_cache
from rocetune.cli.common import EXIT_INPUT, run_guarded
from rocetune.model import Severity

EXIT_NO_CHANGE = 0
EXIT_CHANGES = 1


@click.command("plan")
@click.argument("inventory", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="error",
    show_default=True,
    help="Fix the findings at or above this severity.",
)
@click.option(
    "--converge",
    is_flag=True,
    help="Plan the full convergence to the rendered template instead (every difference).",
)
@click.option("--device", "devices", multiple=True, help="Plan only this device (repeatable).")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the plan to this file instead of standard output.",
)
@cache_options
def plan(  # noqa: PLR0917 (one parameter per click option)
    inventory: Path,
    fmt: str,
    fail_on: str,
    converge: bool,
    devices: tuple[str, ...],
    output: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
) -> None:
    """Show per device of INVENTORY the smallest change that fixes its findings.

    Every finding at or above --fail-on gets its rule's remedy, in the platform's own syntax
    (SONiC JSON Patch ops, `nv set`/`nv unset`, EOS/NX-OS config lines, host commands),
    editing the objects the device already uses; devices and ports without such a finding
    are not touched. Each change names the findings it fixes (fingerprints) and is marked
    DISRUPTIVE (port flap or brief traffic block) or hitless with the reason; the rollback
    and the safe way to apply follow. The plan is replayed on the snapshots and re-linted
    before it is shown. --converge plans every difference to the rendered template instead.
    Exit 0 when no device needs a change, 1 when some do, 2 on input errors.
    """
    from rocetune import api
    from rocetune.render.plan_output import to_json, to_text

    def job() -> int:
        report = api.plan(
            inventory,
            fail_on=Severity(fail_on),
            converge=converge,
            devices=devices,
            cache=parse_cache(no_cache, cache_dir),
        )
        for err in report.errors:
            click.echo(f"rocetune: error: {err}", err=True)
        text = to_json(report) if fmt == "json" else to_text(report)
        if output is not None:
            from rocetune.outputs import write_atomic

            write_atomic(output, text)
        else:
            click.echo(text, nl=False)
        failed = [p for p in report.devices if p.status == "error"]
        for p in failed:
            click.echo(f"rocetune: error: {p.message}", err=True)
        if report.errors or failed:
            return EXIT_INPUT
        return EXIT_CHANGES if any(p.changes for p in report.devices) else EXIT_NO_CHANGE

    sys.exit(run_guarded(job))
