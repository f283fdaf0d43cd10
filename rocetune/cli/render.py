"""``rocetune render INVENTORY -o DIR [--only-fix]``: write the intended configs per device."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rocetune.cli.cache import cache_options, parse_cache
from rocetune.cli.common import EXIT_INPUT, run_guarded
from rocetune.model import Severity

if TYPE_CHECKING:
    from rocetune.render.run import RenderReport


def _summary(report: RenderReport) -> list[str]:
    lines: list[str] = []
    for dev in report.devices:
        head = f"{dev.name} ({dev.platform or 'unknown platform'}): "
        if dev.status == "rendered":
            changed = len(dev.written)
            files = ", ".join(f.path for f in dev.files)
            state = f"{changed} file(s) changed" if changed else "unchanged"
            lines.append(f"{head}rendered {files} [{state}]")
            lines.extend(f"  note: {n}" for n in dev.notes)
        else:
            lines.append(f"{head}{dev.status}: {dev.message}")
    rendered = ", ".join(report.platforms())
    lines.append(f"platforms rendered by this version: {rendered}")
    return lines


@click.command("render")
@click.argument("inventory", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for the configs (created; files are rewritten only when they change).",
)
@click.option(
    "--only-fix",
    is_flag=True,
    help=(
        "Write only the smallest changes that fix the findings (and their rollback), "
        "as `rocetune plan` computes them."
    ),
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="error",
    show_default=True,
    help="With --only-fix: fix the findings at or above this severity.",
)
@cache_options
def render(  # noqa: PLR0917 (one parameter per click option)
    inventory: Path,
    out_dir: Path,
    only_fix: bool,
    fail_on: str,
    no_cache: bool,
    cache_dir: Path | None,
) -> None:
    """Render each device's intended QoS config from INVENTORY into DIR.

    Per device: the full config (`<device>.config_db.json` for SONiC, `<device>.nvue.yaml`
    for Cumulus; lint them with `rocetune lint`), the change form under `apply/` (SONiC
    apply-patch JSON, `nv set` commands) and the reason of every value under `reasons/`.
    With --only-fix: per device with findings `apply/<device>.fix.*` and
    `apply/<device>.rollback.*` (the remediation plan) and `apply/plan.json`.
    Devices of platforms that cannot be rendered yet are skipped with a note. Exit 0, or 2
    when a device cannot be rendered (unsafe names, intent the platform cannot express).
    """
    from rocetune import api

    def job() -> int:
        report, errors = api.render(
            inventory,
            out_dir,
            only_fix=only_fix,
            fail_on=Severity(fail_on),
            cache=parse_cache(no_cache, cache_dir),
        )
        for err in errors:
            click.echo(f"rocetune: error: {err}", err=True)
        for line in _summary(report):
            click.echo(line)
        for dev in report.failed:
            click.echo(f"rocetune: error: {dev.message}", err=True)
        return EXIT_INPUT if errors or report.failed else 0

    sys.exit(run_guarded(job))
