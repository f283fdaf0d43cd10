"""``rocetune diff``: compare two versions of a fabric (click command only)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from rocetune.cli.common import load_intent, run_guarded
from rocetune.cli.settings import CONFIG_OPTIONS, DISCOVERY_OPTIONS, settings_from
from rocetune.platforms import KNOWN_PLATFORMS

_PATH = click.Path(exists=True, path_type=Path)


def _sides(
    paths: tuple[Path, ...], base: tuple[Path, ...], head: tuple[Path, ...]
) -> tuple[list[Path], list[Path]] | str:
    """BASE and HEAD paths from the two positionals or from --base/--head (or why not)."""
    if paths and (base or head):
        return "give BASE HEAD or --base/--head, not both"
    if paths:
        if len(paths) != 2:
            return f"expected BASE and HEAD, got {len(paths)} path(s) (use --base/--head for more)"
        return [paths[0]], [paths[1]]
    if not base or not head:
        return "give BASE HEAD, or at least one --base and one --head"
    return list(base), list(head)


@click.command("diff")
@click.argument("paths", nargs=-1, type=_PATH, metavar="[BASE HEAD]")
@click.option("--base", "base", multiple=True, type=_PATH, help="A BASE path (repeatable).")
@click.option("--head", "head", multiple=True, type=_PATH, help="A HEAD path (repeatable).")
@click.option(
    "--platform",
    type=click.Choice(list(KNOWN_PLATFORMS)),
    help="Platform of the config files (default: detected from their content).",
)
@click.option(
    "--intent",
    "intent_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML intent for config-file sides (inventory sides use their own).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="markdown: for $GITHUB_STEP_SUMMARY or a pull-request comment.",
)
@click.option("--select", multiple=True, help="Rules to run (as for lint).")
@click.option("--ignore", multiple=True, help="Rules to skip (as for lint).")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default=None,
    help="Exit 1 when HEAD adds a finding at or above this severity [default: the config's"
    " fail-on, else error].",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write to a file."
)
@DISCOVERY_OPTIONS[0]
@DISCOVERY_OPTIONS[1]
@CONFIG_OPTIONS[0]
@CONFIG_OPTIONS[1]
@CONFIG_OPTIONS[2]
def diff(
    paths: tuple[Path, ...],
    base: tuple[Path, ...],
    head: tuple[Path, ...],
    platform: str | None,
    intent_file: Path | None,
    **opts: Any,
) -> None:
    """Compare BASE and HEAD: RoCE state that changed, findings new/fixed in HEAD.

    Each side is an inventory, a snapshot directory, a config file or a directory of config
    files (`rocetune diff old/ new/`); for several files per side repeat --base/--head.
    Devices are matched by name (hostname, else file name). Directories are searched
    recursively as for lint. The config file (rocetune.toml, --config) applies as for lint:
    rule selection, options, severities, suppressions, fail-on, include/exclude. Exit 1
    only when HEAD adds a finding at or above --fail-on; 2 on input errors.
    """
    from rocetune.diff import SideOptions, render_markdown, render_text, to_data
    from rocetune.diff import diff as run_diff

    sides = _sides(paths, base, head)
    if isinstance(sides, str):
        raise click.UsageError(sides)

    def job() -> int:
        intent = load_intent(intent_file) if intent_file else None
        settings = settings_from(opts)
        how = SideOptions(
            selection=settings.selection,
            options=settings.options,
            policy=settings.policy,
            include=settings.include,
            exclude=settings.exclude,
        )
        result = run_diff(sides[0], sides[1], how, intent, platform)
        for side, res in (("base", result.base), ("head", result.head)):
            for err in res.errors:
                click.echo(f"rocetune: error: {side}: {err}", err=True)
        if opts["fmt"] == "json":
            body = json.dumps(to_data(result), indent=2, ensure_ascii=False) + "\n"
        elif opts["fmt"] == "markdown":
            body = render_markdown(result)
        else:
            body = render_text(result)
        output: Path | None = opts["output"]
        if output is None:
            click.echo(body, nl=False)
        else:
            from rocetune.outputs import write_atomic

            write_atomic(output, body)
        return result.exit_code(settings.fail_on)

    sys.exit(run_guarded(job))


__all__ = ["diff"]
