"""``rocetune audit``, ``lint`` and ``rules``: the checking commands (click only)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from rocetune.cli.cache import cache_options, parse_cache
from rocetune.cli.collect import collect_options, live_collector
from rocetune.cli.common import common_options, emit, load_intent, replay, run_guarded
from rocetune.cli.settings import DISCOVERY_OPTIONS, settings_from
from rocetune.platforms import KNOWN_PLATFORMS

if TYPE_CHECKING:
    from rocetune.runcache import Run


@click.command()
@click.argument("inventory", required=False, type=click.Path(dir_okay=False, path_type=Path))
@common_options
@click.option(
    "--save-snapshot",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the snapshots of live-collected devices in this directory.",
)
@click.option(
    "--snapshots",
    type=click.Path(file_okay=False, path_type=Path),
    help="Every DIR/<device>/meta.json is a device too (e.g. from `collect --local` on each "
    "node); hosts of INVENTORY without one are not collected (exit 3). INVENTORY optional.",
)
@collect_options
@cache_options
def audit(
    inventory: Path | None,
    save_snapshot: Path | None,
    snapshots: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
    **opts: Any,
) -> None:
    """Audit every device of INVENTORY against the fabric's intent.

    Devices with a `snapshot:` are read from it (a snapshot directory or one saved config);
    the others are collected live over SSH first (see `rocetune collect`). With --snapshots
    DIR (or `snapshots_dir:` in INVENTORY), DIR/<device>/ snapshots are devices as well.
    """

    def job() -> int:
        if inventory is None and snapshots is None:
            click.echo("rocetune: error: give INVENTORY or --snapshots DIR", err=True)
            return 2
        run = None
        if inventory is not None and snapshots is None and save_snapshot is None:
            run = _run_entry(inventory, no_cache, cache_dir, opts)
            done = run.lookup() if run is not None else None
            if done is not None:  # nothing changed since this command's last run
                return replay(done, opts)
        return _audit(
            inventory,
            opts,
            save_snapshot=save_snapshot,
            snapshots=snapshots,
            no_cache=no_cache,
            cache_dir=cache_dir,
            run=run,
        )

    sys.exit(run_guarded(job))


def _run_entry(
    inventory: Path, no_cache: bool, cache_dir: Path | None, opts: dict[str, Any]
) -> Run | None:
    """This audit's entry in the whole-run cache (rocetune.runcache); None when it cannot
    have one (--no-cache, --write-baseline, no cache key, an input not a regular file)."""
    if no_cache or opts.get("write_baseline"):
        return None
    from rocetune.cli.common import text_width, use_colour
    from rocetune.parsecache import default_dir
    from rocetune.runcache import open_run

    directory = cache_dir if cache_dir is not None else default_dir()
    tty = opts["output"] is None and sys.stdout.isatty()
    shown = {
        "tty": tty,
        "colour": use_colour(opts.get("color") or "auto", tty),
        "width": text_width(tty),
    }
    return open_run(directory, "audit", inventory, {**opts, "cache_dir": cache_dir}, shown)


def _audit(
    inventory: Path | None,
    opts: dict[str, Any],
    *,
    save_snapshot: Path | None,
    snapshots: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
    run: Run | None,
) -> int:
    """Audit and report; with ``run``, store what was printed when the output is a function
    of the run's inputs (rocetune.runcache)."""
    from rocetune import api

    settings = settings_from(opts)
    collector, scope = live_collector(opts, save_snapshot)
    cache = parse_cache(no_cache, cache_dir)
    with scope:
        if run is None or inventory is None:
            result = api.audit(
                inventory,
                settings.selection,
                settings.options,
                policy=settings.policy,
                collector=collector,
                snapshots=snapshots,
                processes=opts.get("processes"),
                cache=cache,
            )
            return emit(result, opts, settings, cache)
        from rocetune import invcache
        from rocetune.inventory import load_inventory

        inv = invcache.load(inventory, cache) if cache is not None else load_inventory(inventory)
        result = api.audit_inventory(
            inv,
            settings.selection,
            settings.options,
            policy=settings.policy,
            collector=collector,
            processes=opts.get("processes"),
            cache=cache,
        )
        result.inventory = str(inventory)  # as api.audit
        if inv.snapshots_dir is not None or settings.policy.baseline is not None:
            return emit(result, opts, settings, cache)
        if any(d.snapshot is None for d in inv.devices.values()):  # collected live
            return emit(result, opts, settings, cache)  # not a function of the files
        from rocetune.runcache import Source

        sources = [
            Source(Path(d.snapshot), d.name, d.platform, d.role, result.content.get(d.name))
            for d in inv.devices.values()
            if d.snapshot is not None
        ]
        return emit(result, opts, settings, cache, lambda done: run.store(sources, done))


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--platform",
    type=click.Choice(list(KNOWN_PLATFORMS)),
    help="Platform of the files (default: detected from their content).",
)
@click.option(
    "--intent",
    "intent_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML file with the intent (an inventory's `intent:` is used when present).",
)
@DISCOVERY_OPTIONS[0]
@DISCOVERY_OPTIONS[1]
@DISCOVERY_OPTIONS[2]
@common_options
@cache_options
def lint(
    files: tuple[Path, ...],
    platform: str | None,
    intent_file: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
    **opts: Any,
) -> None:
    """Lint saved config files and outputs: SONiC config_db.json, Cumulus NVUE YAML or `nv set`
    lists, EOS and NX-OS running-configs, Linux host outputs (mlnx_qos, show_gids, ...).

    Each file is one device, named after the hostname in it (else the file name). Files are
    checked against the default intent unless --intent is given. A directory with
    meta.json is one snapshot; any other directory is searched recursively for config
    files (hidden entries, documentation, images and templates skipped; --include and
    --exclude globs, or the config's include/exclude, choose further).
    """
    from rocetune import api
    from rocetune.discover import discover

    def job() -> int:
        intent = load_intent(intent_file) if intent_file else None
        settings = settings_from(opts)
        force = bool(opts.get("force_exclude"))
        from rocetune.load import snapshot_file_names

        found = discover(
            files,
            settings.include,
            settings.exclude,
            force=force,
            snapshot_files=snapshot_file_names(),
        )
        if not found and force:
            return 0  # every named file is excluded: nothing to lint (pre-commit)
        if not found:
            where = ", ".join(map(str, files))
            click.echo(f"rocetune: error: no config files in {where}", err=True)
            return 2
        cache = parse_cache(no_cache, cache_dir)
        result = api.lint(
            found,
            platform,
            intent,
            settings.selection,
            settings.options,
            policy=settings.policy,
            cache=cache,
        )
        return emit(result, opts, settings, cache)

    sys.exit(run_guarded(job))


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def rules_cmd(fmt: str) -> None:
    """List the rule catalogue (code, name, severity, scope; JSON also the module)."""
    import json

    from rocetune.checks.registry import all_rules

    rows = [
        {
            "code": r.meta.code,
            "name": r.meta.name,
            "severity": r.meta.severity.value,
            "scope": r.meta.scope,
            "summary": r.meta.summary,
            "module": r.__module__,
        }
        for r in all_rules()
    ]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        head = f"{row['code']}  {row['name']:<24} {row['severity']:<8} {row['scope']:<7}"
        click.echo(f"{head} {row['summary']}")
