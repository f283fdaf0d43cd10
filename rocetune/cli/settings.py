"""Command-line side of the configuration: --config, --profile, --extend-select, baselines.

:func:`settings_from` merges defaults → profile → config file → flags (rocetune.config);
:func:`finish` prints the policy notes (expired and unused suppressions, counts) on standard
error and writes ``--write-baseline``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rocetune.config import Settings
    from rocetune.model import AuditResult

EXIT_INPUT = 2
EXIT_NOT_COLLECTED = 3


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.strip() for raw in values for v in raw.split(",") if v.strip())


CONFIG_OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--extend-select",
        multiple=True,
        help="Rules to run in addition to the selection (same forms as --select).",
    ),
    click.option(
        "--profile",
        help="Rule profile from rules/profiles.yaml: minimal, recommended or strict.",
    ),
    click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Config file (rocetune.toml or a pyproject.toml with [tool.rocetune]);"
        " default: searched from the working directory upwards.",
    ),
    click.option(
        "--baseline",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Hide findings whose fingerprint is in this baseline file.",
    ),
    click.option(
        "--write-baseline",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write the fingerprints of the current findings to this file and exit 0.",
    ),
]
"""Options every checking command gets (added by ``common_options``)."""

DISCOVERY_OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--include",
        multiple=True,
        metavar="GLOB",
        help="In directories: only files matching this glob (repeatable; replaces the"
        " config's include).",
    ),
    click.option(
        "--exclude",
        multiple=True,
        metavar="GLOB",
        help="In directories: skip files and directories matching this glob (repeatable;"
        " added to the config's exclude and the built-in list of non-config files).",
    ),
    click.option(
        "--force-exclude",
        is_flag=True,
        help="Apply --include/--exclude (and the built-in list) to files named on the"
        " command line too (for pre-commit and changed-file lists).",
    ),
]
"""Options of the commands that walk directory trees (``lint``, ``diff``)."""


def settings_from(opts: dict[str, Any]) -> Settings:
    """The effective settings of a run from the config file and the flags."""
    from rocetune.config import CliFlags, load_config, resolve
    from rocetune.model import Severity

    loaded = load_config(opts.get("config_file"))
    fail_on = opts.get("fail_on")
    flags = CliFlags(
        select=_split(opts.get("select") or ()),
        extend_select=_split(opts.get("extend_select") or ()),
        ignore=_split(opts.get("ignore") or ()),
        profile=opts.get("profile"),
        fail_on=Severity(fail_on) if fail_on else None,
        baseline=None if opts.get("write_baseline") else opts.get("baseline"),
        include=tuple(opts.get("include") or ()),
        exclude=tuple(opts.get("exclude") or ()),
    )
    return resolve(loaded, flags)


def finish(result: AuditResult, opts: dict[str, Any]) -> int | None:
    """Print policy notes; with --write-baseline write it and return the exit code."""
    from rocetune.suppress import write_baseline

    if result.policy is not None:
        for note in result.policy.notes():
            click.echo(f"rocetune: {note}", err=True)
    target: Path | None = opts.get("write_baseline")
    if target is None:
        return None
    for err in result.errors:
        click.echo(f"rocetune: error: {err}", err=True)
    count = write_baseline(target, result.findings)
    click.echo(f"rocetune: wrote {count} finding fingerprint(s) to {target}", err=True)
    if result.errors:
        return EXIT_INPUT
    return EXIT_NOT_COLLECTED if result.not_collected else 0


__all__ = ["CONFIG_OPTIONS", "finish", "settings_from"]
