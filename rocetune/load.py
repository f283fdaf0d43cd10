"""Read a device's saved snapshot (a directory or one config file) and parse it.

This is the step between the files on disk and the model: pick the platform driver (the
inventory's ``platform:``, the snapshot's ``meta.json`` or by sniffing the file), read the
snapshot and let the driver parse it. Used by :mod:`rocetune.api` for audits and lint, and by
``rocetune plan`` for the running config it diffs against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, get_args

from rocetune.errors import ParseError, RocetuneError, SnapshotError
from rocetune.model import DeviceProblem, Feature, Unparsed
from rocetune.platforms import drivers, get_driver
from rocetune.platforms.base import ParseResult, Platform
from rocetune.snapshot import (
    CommandRecord,
    Snapshot,
    SourceFile,
    read_directory,
    read_single_file,
    read_text,
)

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache

Found = tuple[Platform, Snapshot]
"""The driver that reads a snapshot, and the snapshot."""


@dataclass(frozen=True)
class Loaded:
    """One device after loading: parsed, a device problem, or an input error."""

    result: ParseResult | None = None
    problem: DeviceProblem | None = None
    error: RocetuneError | None = None
    source: str | None = None
    cached: bool = False
    """The result came from the parse cache (not parsed in this run)."""
    key: str | None = None
    """The parse cache key of the snapshot the result was read from (rocetune.parsecache);
    None when it was not read through the cache."""
    decoded: bool = False
    """The result was decoded from bytes in this process (a cache entry, a pool worker's
    answer), not built by a parse here: it holds no garbage cycle."""


def snapshot_file_names() -> frozenset[str]:
    """Output file names of every platform's collected commands (``show_running_config.txt``
    ...): a directory holding one is a device snapshot, also without ``meta.json``."""
    names = {c.filename for d in drivers().values() for c in d.commands()}
    return frozenset(names - {"hostname.txt"})  # too common a name in a config repository


def _sniff(path: Path, text: str) -> Found | str | None:
    """The driver and snapshot of a saved file, why it is ambiguous, or None (unknown)."""
    from rocetune.platforms.detect import detect

    found = detect(str(path), text)
    if found.driver is not None and found.command is not None:
        return found.driver, read_single_file(path, found.command, text)
    if found.ambiguous:
        return (
            f"cannot tell the platform of {path}: it reads as {found.summary()}; set"
            " platform: (lint: --platform)"
        )
    return None


def read_file(path: Path, platform: str | None) -> Found | str:
    """Read one saved config; return the driver and snapshot, or why it cannot be read.

    A platform given by the user (``--platform``, the inventory's ``platform:``) that the
    content contradicts (another platform claims the file and nothing in it is evidence for
    the given one) is an input error (SnapshotError, exit 2).
    """
    if not path.is_file():
        why = "not a regular file" if path.exists() else "snapshot file does not exist"
        raise SnapshotError(why, file=path)
    body = read_text(path)
    if platform is None:
        found = _sniff(path, body)
        if found is None:
            names = ", ".join(d.name for d in drivers().values())
            return f"cannot tell the platform of {path} (supported: {names}); set platform:"
        return found
    driver = get_driver(platform)
    if driver is None:
        return f"platform {platform!r} is not supported yet"
    command = driver.sniff(str(path), body)
    if command is None:
        _check_forced(path, body, platform)
        command = driver.commands()[0]
    return driver, read_single_file(path, command, body)  # not read again


def _check_forced(path: Path, body: str, platform: str) -> None:
    """Refuse a forced platform the content positively contradicts (exit 2, one line).

    Called only when the forced platform's own ``sniff`` does not claim the file (a partial
    file it recognises is never refused). The file contradicts ``platform`` when it has no
    line of evidence for it and another platform claims it (its ``sniff``) or detection
    clearly reads it as another platform. Files no platform recognises are read as forced.
    """
    from rocetune.platforms.detect import detect

    found = detect(str(path), body)
    if found.evidence.get(platform):
        return
    others = tuple(n for n in found.claims if n != platform)
    winner = found.driver.name if found.driver is not None else None
    if winner is not None and winner != platform and winner not in others:
        others = (winner, *others)
    if others:
        msg = (
            f"platform {platform!r} does not match the content: it reads as"
            f" {found.summary(others[:2])}, with no {platform} line"
        )
        raise SnapshotError(msg, file=path)


def _check_forced_dir(path: Path, snap: Snapshot, driver: Platform) -> None:
    """A snapshot directory without a recorded platform, forced to ``driver``: refused when
    none of its files is the forced platform's and its files read as another platform."""
    if any(driver.sniff(f.path, f.text) is not None for f in snap):
        return
    got = _sniff_dir(path, snap)
    if not isinstance(got, str) and got[0].name != driver.name:
        msg = (
            f"platform {driver.name!r} does not match the content: its files read as"
            f" {got[0].name}, none as {driver.name}"
        )
        raise SnapshotError(msg, file=path)


def read_dir(path: Path, platform: str | None) -> Found | str:
    """Read a snapshot directory; return the driver and snapshot, or why it cannot be read."""
    return resolve_dir(path, read_directory(path), platform)


def resolve_dir(path: Path, snap: Snapshot, platform: str | None) -> Found | str:
    """The driver of a snapshot directory already read (:func:`read_dir`)."""
    if platform and snap.meta.platform and snap.meta.platform != platform:
        msg = (
            f"snapshot was collected from platform {snap.meta.platform!r}, "
            f"inventory says {platform!r}"
        )
        raise SnapshotError(msg, file=path)
    forced = platform is not None and snap.meta.platform is None
    platform = platform or snap.meta.platform
    if platform is None:
        return _sniff_dir(path, snap)
    driver = get_driver(platform)
    if driver is None:
        return f"platform {platform!r} is not supported yet"
    if forced and snap.files:
        _check_forced_dir(path, snap, driver)
    return driver, snap


def _sniff_dir(path: Path, snap: Snapshot) -> Found | str:
    """The platform of a directory without meta.json: the one its files' evidence favours."""
    from rocetune.platforms.detect import detect

    votes: dict[str, int] = {}
    ambiguous = ""
    for f in snap:
        found = detect(f.path, f.text)
        if found.driver is not None:
            name = found.driver.name
            votes[name] = votes.get(name, 0) + 1 + found.evidence.get(name, 0)
        elif found.ambiguous and not ambiguous:
            ambiguous = f"{PurePath(f.path).name} reads as {found.summary()}"
    if not votes:
        why = f": {ambiguous}" if ambiguous else ""
        return f"cannot tell the platform of snapshot {path}{why}; set platform:"
    ranked = sorted(votes, key=lambda n: -votes[n])
    if len(ranked) > 1 and votes[ranked[0]] < 2 * votes[ranked[1]]:
        tie = ", ".join(f"{n} ({votes[n]})" for n in ranked[:2])
        why = f"its files read as {tie}"
        return f"cannot tell the platform of snapshot {path}: {why}; set platform:"
    driver = get_driver(ranked[0])
    assert driver is not None
    return driver, snap


def read_source(path: Path, platform: str | None) -> Found | str:
    """:func:`read_dir` for a directory, else :func:`read_file`."""
    return read_dir(path, platform) if path.is_dir() else read_file(path, platform)


def load_device(
    name: str,
    source: Path | str | None,
    platform: str | None,
    role: str | None,
    asic: str | None = None,
    *,
    cache: ParseCache | None = None,
) -> Loaded:
    """Read and parse one device's snapshot (directory or single file).

    ``asic`` (the inventory's ``asic:``) replaces the ASIC the snapshot tells, if any.
    ``cache``: reuse the parse of an unchanged snapshot (:mod:`rocetune.parsecache`).

    ``source`` is a path, None (no snapshot, not collected) or a string: why live collection
    failed (rocetune.collect).
    """
    if source is None or isinstance(source, str):
        msg = source or "no snapshot and live collection is not available yet: not collected"
        return Loaded(problem=DeviceProblem(device=name, kind="not-collected", message=msg))
    try:
        hashed: Snapshot | None = None
        key: str | None = None
        identity = ""
        if cache is not None:
            identity = cache.identity(source, name, platform, role)
            hashed, key = cache.source_key(
                identity, source, name=name, platform=platform, role=role
            )
            hit = cache.get(key, identity=identity) if key is not None else None
            if hit is not None:
                return Loaded(result=_with_asic(hit, asic), cached=True, key=key)
            if hashed is None and key is not None:  # known by its signature, entry gone
                known = key
                hashed, key = cache.source_key(
                    identity, source, name=name, platform=platform, role=role, by_stat=False
                )
                hit = cache.get(key, identity=identity) if key not in (None, known) else None
                if hit is not None:
                    return Loaded(result=_with_asic(hit, asic), cached=True, key=key)
        if hashed is not None and source.is_dir():
            got = resolve_dir(source, hashed, platform)
        else:
            got = read_source(source, platform)
        if isinstance(got, str):
            problem = DeviceProblem(
                device=name, kind="unsupported-platform", message=got, platform=platform
            )
            return Loaded(problem=problem, source=str(source))
        driver, snap = got
        try:
            result = parse_snapshot(driver, snap, name, role)
        except ParseError as exc:
            cut = _cut_unparsable(name, snap, exc, platform or driver.name)
            if cut is None:
                raise
            return Loaded(problem=cut, source=str(source))
        if cache is not None and key is not None and _unchanged(hashed, snap):
            cache.put(key, result, identity=identity)
            return Loaded(result=_with_asic(result, asic), key=key)
        return Loaded(result=_with_asic(result, asic))
    except (ParseError, SnapshotError) as exc:
        return Loaded(error=exc)
    except Exception as exc:  # a parser bug must not lose the other devices
        msg = f"internal error while reading this snapshot: {type(exc).__name__}: {exc}"
        return Loaded(error=RocetuneError(msg.splitlines()[0], file=source))


def cached_device(
    name: str,
    source: Path | str | None,
    platform: str | None,
    role: str | None,
    asic: str | None,
    *,
    cache: ParseCache,
    by_stat: bool = False,
) -> Loaded | None:
    """:func:`load_device`'s result when the cache holds the parse of ``source``, without
    parsing; None otherwise (a miss, or a source :func:`load_device` must report). A caller
    that parses elsewhere (a process pool) looks every device up here first. ``by_stat``:
    only when the snapshot's stat signature is the one recorded with its key (nothing is
    read; a snapshot not known that way is None, for the parser to read and hash)."""
    if not isinstance(source, Path):
        return None
    if by_stat:
        known = known_key(name, source, platform, role, cache=cache)
        return cached_entry(known, asic, cache=cache) if known is not None else None
    identity = cache.identity(source, name, platform, role)
    try:
        _, key = cache.source_key(identity, source, name=name, platform=platform, role=role)
    except SnapshotError:
        return None
    return cached_entry((identity, key), asic, cache=cache, probe=False) if key else None


def known_key(
    name: str,
    source: Path | str | None,
    platform: str | None,
    role: str | None,
    *,
    cache: ParseCache,
) -> tuple[str, str] | None:
    """The (identity, key) of a snapshot whose stat signature is the one recorded with its
    key (rocetune.statindex; nothing is read, no entry is opened); None otherwise (a
    snapshot to read and hash, or a source :func:`load_device` must report)."""
    if not isinstance(source, Path):
        return None
    from rocetune.statindex import signature

    identity = cache.identity(source, name, platform, role)
    sig = signature(source)
    key = cache.index.known(identity, sig) if sig is not None else None
    return (identity, key) if key is not None else None


def cached_entry(
    known: tuple[str, str],
    asic: str | None,
    *,
    cache: ParseCache,
    probe: bool = True,
    counted: bool = True,
) -> Loaded | None:
    """The cached parse of ``known`` (:func:`known_key`) as :func:`load_device` gives it;
    None when its entry is absent or not usable (``probe``: that miss is not counted, the
    caller parses the snapshot and counts it then; ``counted`` False: neither is a hit, the
    caller counts it if it uses it)."""
    identity, key = known
    hit = cache.get(key, identity=identity, probe=probe or not counted, counted=counted)
    if hit is None:
        return None
    return Loaded(result=_with_asic(hit, asic), cached=True, key=key)


def entry_device(
    raw: bytes, key: str, identity: str, asic: str | None, cache: ParseCache | None = None
) -> Loaded | None:
    """:func:`load_device`'s result read from the bytes of a parse cache entry (a pool
    worker's parse, as it stored it): as a later run reads it from the cache; None when the
    bytes are not a usable entry of ``key``. ``cache``: the cache the entry was written to
    (told of the parse, :meth:`ParseCache.decoded`)."""
    from rocetune.parsecache import decode

    hit = cache.decoded(raw, key, identity) if cache is not None else decode(raw, key, identity)
    if hit is None:
        return None
    return Loaded(result=_with_asic(hit, asic), cached=True, key=key)


def _unchanged(hashed: Snapshot | None, parsed: Snapshot) -> bool:
    """The parsed snapshot has the text that was hashed (a saved file is read twice)."""
    return hashed is not None and [f.text for f in hashed] == [f.text for f in parsed]


def _with_asic(result: ParseResult, asic: str | None) -> ParseResult:
    if not asic:
        return result
    return replace(result, device=result.device.model_copy(update={"asic": asic}))


def parse_snapshot(driver: Platform, snap: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse a snapshot the way :func:`load_device` does (refused commands, meta device).

    ``rocetune plan`` re-parses snapshots it replayed its changes on with this, so the replay
    sees the device exactly as the audit did.
    """
    return _parse(driver, snap, name, role)


def _parse(driver: Platform, snap: Snapshot, name: str, role: str | None) -> ParseResult:
    result = _with_refused(driver.parse(snap, name, role), snap)
    if snap.meta.device is not None and result.device.snapshot_device is None:
        device = result.device.model_copy(update={"snapshot_device": snap.meta.device})
        result = ParseResult(device, result.provenance)
    return result


def _with_refused(result: ParseResult, snap: Snapshot) -> ParseResult:
    """Report the snapshot entries that were not read (links, FIFOs, huge files) and the
    outputs meta.json calls truncated as RT001.

    A truncated output may have held anything after the cut: its item touches every feature
    and every port, so a rule that finds something absent on this device says RT000.
    """
    cut = [r for r in snap.meta.commands if r.status == "truncated"]
    if not snap.refused and not cut:
        return result
    items = tuple(
        Unparsed(item=Path(path).name, reason=f"not read: {why}", file=path)
        for path, why in snap.refused
    ) + tuple(_truncated(r, snap) for r in cut)
    device = result.device.model_copy(update={"unparsed": (*result.device.unparsed, *items)})
    return replace(result, device=device)


def _cut_unparsable(
    name: str, snap: Snapshot, exc: ParseError, platform: str
) -> DeviceProblem | None:
    """A device whose truncated output (JSON, YAML) cannot be parsed: not collected in
    effect (exit 3, like an unreachable device), not an input error (exit 2) of the run;
    None when the error is elsewhere."""
    for record in snap.meta.commands:
        source = snap.files.get(record.file)
        if record.status != "truncated" or source is None or exc.file is None:
            continue
        if Path(source.path) == Path(exc.file):
            mib = _size(record.cap_bytes)
            msg = (
                f"output of `{record.command}` truncated at {mib} cannot be parsed"
                f" ({exc.message}); raise --max-output-mib"
            )
            return DeviceProblem(device=name, kind="not-collected", message=msg, platform=platform)
    return None


def _size(cap: int | None) -> str:
    if not cap:
        return "the output cap"
    return f"{cap // 2**20} MiB" if cap % 2**20 == 0 else f"{cap} bytes"


def _truncated(record: CommandRecord, snap: Snapshot) -> Unparsed:
    source = snap.files.get(record.file)
    mib = _size(record.cap_bytes)
    return Unparsed(
        item=f"output of `{record.command}` truncated at {mib}: what follows was not read",
        reason="output cap, --max-output-mib",
        file=source.path if source is not None else record.file,
        features=get_args(Feature),
    )


def load_host_files(name: str, paths: Sequence[Path], platform: str | None) -> Loaded:
    """Read several saved outputs of one host as one snapshot and parse them together.

    Each file is detected on its own (it must read as a host output); two files that stand
    for the same command cannot both be kept, so the caller only groups files whose commands
    differ (see :func:`host_command_file`).
    """
    files: dict[str, SourceFile] = {}
    driver: Platform | None = None
    try:
        for path in paths:
            got = read_file(path, platform)
            if isinstance(got, str):
                raise SnapshotError(got, file=path)
            driver, snap = got
            files.update(snap.files)
        assert driver is not None
        origin = ", ".join(str(p) for p in paths)
        return Loaded(result=driver.parse(Snapshot(files=files, origin=origin), name, None))
    except (ParseError, SnapshotError) as exc:
        return Loaded(error=exc)
    except Exception as exc:  # a parser bug must not lose the other devices
        msg = f"internal error while reading these outputs: {type(exc).__name__}: {exc}"
        return Loaded(error=RocetuneError(msg.splitlines()[0], file=paths[0]))


SCRIPT_COMMAND_ID = "script"
"""Command id of a saved file that is a set of changes (a host setup script), not a state."""


def is_change_script(path: Path) -> bool:
    """True for a saved file that describes changes to make (a host setup script)."""
    from rocetune.platforms.detect import detect

    if not path.is_file():
        return False
    try:
        found = detect(str(path), read_text(path))
    except SnapshotError:
        return False
    return found.command is not None and found.command.id == SCRIPT_COMMAND_ID


def load_script_over(name: str, snapshot: Path, script: Path, platform: str | None) -> Loaded:
    """A collected snapshot (directory or file) with a setup script laid over it: the device
    as the script would leave it (``rocetune diff SNAPSHOT setup.sh``)."""
    try:
        got = read_source(snapshot, platform)
        if isinstance(got, str):
            raise SnapshotError(got, file=snapshot)
        driver, snap = got
        over = read_file(script, driver.name)
        if isinstance(over, str) or over[0].name != driver.name:
            raise SnapshotError(f"not a {driver.name} script", file=script)
        files = {**snap.files, **over[1].files}
        merged = replace(snap, files=files, origin=f"{snap.origin or snapshot} + {script}")
        return Loaded(result=parse_snapshot(driver, merged, name, None))
    except (ParseError, SnapshotError) as exc:
        return Loaded(error=exc)
    except Exception as exc:  # a parser bug must not crash the command
        msg = f"internal error while reading this script: {type(exc).__name__}: {exc}"
        return Loaded(error=RocetuneError(msg.splitlines()[0], file=script))


def host_command_file(path: Path, platform: str | None) -> str | None:
    """The snapshot file name a saved host output stands for; None if it is no host file."""
    try:
        got = read_file(path, platform)
    except (SnapshotError, ParseError):
        return None
    if isinstance(got, str) or got[0].kind != "host":
        return None
    name = next(iter(got[1].files), None)
    if name is not None and name.startswith("saved_host_script"):
        return None  # a setup script is intended state: never merged with collected outputs
    return name
