"""Collection behind ``rocetune collect`` and the live collection of ``rocetune audit``.

:func:`select` picks the devices (names or globs, a ``--shard``), :func:`collect` checks the
fabric-wide configuration (host-key trust) before anything is created, locks the output
directory, collects and classifies the outcome (:class:`CollectRun`), :func:`collect_local`
collects the machine rocetune runs on. Nothing here prints: the CLI reports.
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocetune.collect import CollectConfigError, CollectOptions, Outcome
from rocetune.collect import collect as run
from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.runner import Progress
from rocetune.errors import RocetuneError
from rocetune.inventory import Inventory
from rocetune.outputs import DirectoryLock, OutputError

__all__ = ["CollectRun", "collect", "collect_local", "kept_since", "select"]


@dataclass
class CollectRun:
    """The outcome of one collection run."""

    outcomes: dict[str, Outcome]
    keyscan: list[str] = field(default_factory=list)
    """``ssh-keyscan`` lines that add the unknown host keys (after checking them)."""

    @property
    def failed(self) -> list[Outcome]:
        """The devices that were not collected."""
        return [o for o in self.outcomes.values() if o.failure is not None]

    def check_written(self) -> None:
        """Raise OutputError (exit 2) when snapshots could not be written (full disk,
        read-only directory); said once for every device it hit."""
        hit = [o for o in self.failed if o.failure and o.failure.reason is Reason.WRITE_FAILED]
        if not hit:
            return
        kept = sum(1 for o in self.outcomes.values() if o.ok)
        first = hit[0].failure
        detail = first.detail if first is not None else ""
        msg = f"{detail} ({len(hit)} device(s) not written; {kept} written are kept)"
        raise OutputError(f"cannot write snapshots: {msg}")


def select(
    inv: Inventory, devices: Sequence[str] = (), shard: str | None = None
) -> tuple[list[str], str | None]:
    """The devices to collect (``devices``: names or glob patterns; ``shard``: ``i/n``) and
    the lock file name (a shard locks its own, so the shards of one fabric share a
    directory); RocetuneError when nothing matches."""
    names = list(inv.devices)
    if devices:
        names = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in devices)]
    lock_name = None
    if shard is not None:
        from rocetune.shard import parse_shard

        part = parse_shard(shard)
        names = part.select(names)
        lock_name = f".rocetune.shard-{part.index}-of-{part.count}.lock"
    if not names:
        raise RocetuneError("no device matches --device/--shard")
    return names, lock_name


def collect(
    inv: Inventory,
    out_dir: Path,
    names: Sequence[str],
    options: CollectOptions,
    *,
    progress: Progress | None = None,
    lock_name: str | None = None,
) -> CollectRun:
    """Collect ``names`` of ``inv`` into ``out_dir/<device>/``.

    A fabric-wide configuration error (a known_hosts file that does not exist, missing
    credentials) raises CollectConfigError before any directory is created or any device is
    contacted; a second run on the same directory, or one that cannot be written, fails at
    the lock. A KeyboardInterrupt passes through (the snapshots written are complete; see
    :func:`kept_since`).
    """
    try:
        options.trust.check()
    except CollectError as exc:
        raise CollectConfigError(exc.detail) from None
    lock = DirectoryLock(out_dir) if lock_name is None else DirectoryLock(out_dir, lock_name)
    lock.acquire()
    try:
        outcomes = run(inv, out_dir, list(names), options=options, progress=progress)
    finally:
        lock.release()
    return CollectRun(outcomes, _keyscan(inv, outcomes, options))


def kept_since(out_dir: Path, names: Sequence[str], started: float) -> list[str]:
    """The devices of ``names`` whose snapshot was written at or after ``started``."""

    def written(directory: Path) -> bool:
        try:
            return (directory / "meta.json").stat().st_mtime >= started
        except OSError:
            return False

    return [n for n in names if written(out_dir / n)]


def _keyscan(inv: Inventory, outcomes: dict[str, Outcome], options: CollectOptions) -> list[str]:
    unknown = [
        o.name
        for o in outcomes.values()
        if o.failure is not None and o.failure.reason is Reason.HOST_KEY_UNKNOWN
    ]
    if not unknown or options.trust.known_hosts is None:
        return []
    lines = []
    for name in unknown:
        entry = inv.devices[name]
        host = shlex.quote(entry.host or name)
        port = f"-p {entry.access.port} " if entry.access.port not in (None, 22) else ""
        target = shlex.quote(str(options.trust.known_hosts))
        lines.append(f"ssh-keyscan {port}{host} >> {target}")
    return lines


def collect_local(
    out_dir: Path, options: CollectOptions, nics: Sequence[str] | None, name: str | None
) -> CollectRun:
    """Collect the machine rocetune runs on (a Linux host) into ``out_dir/<name>/``."""
    from rocetune.collect.local import collect_local as run_local

    try:
        outcome = run_local(out_dir, options, nics=nics, name=name)
    except ValueError as exc:
        raise RocetuneError(str(exc)) from None
    return CollectRun({outcome.name: outcome})
