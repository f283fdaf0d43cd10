"""Read a device's saved snapshot (a directory or one config file) and parse it.

This is the step between the files on disk and the model: pick the platform driver (the
inventory's ``platform:``, the snapshot's ``meta.json`` or by sniffing the file), read the
snapshot and let the driver parse it. Used by :mod:`rocetune.api` for audits and lint, and by
``rocetune plan`` for the running config it diffs against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from rocetune.errors import ParseError, RocetuneError, SnapshotError
from rocetune.model import DeviceProblem, Unparsed
from rocetune.platforms import drivers, get_driver
from rocetune.platforms.base import ParseResult, PlatformDriver
from rocetune.snapshot import Snapshot, read_directory, read_single_file, read_text

Found = tuple[PlatformDriver, Snapshot]
"""The driver that reads a snapshot, and the snapshot."""


@dataclass(frozen=True)
class Loaded:
    """One device after loading: parsed, a device problem, or an input error."""

    result: ParseResult | None = None
    problem: DeviceProblem | None = None
    error: RocetuneError | None = None
    source: str | None = None


def _sniff(path: Path, text: str) -> Found | None:
    for driver in drivers().values():
        command = driver.sniff(str(path), text)
        if command is not None:
            return driver, read_single_file(path, command)
    return None


def read_file(path: Path, platform: str | None) -> Found | str:
    """Read one saved config; return the driver and snapshot, or why it cannot be read."""
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
    command = driver.sniff(str(path), body) or driver.commands()[0]
    return driver, read_single_file(path, command)


def read_dir(path: Path, platform: str | None) -> Found | str:
    """Read a snapshot directory; return the driver and snapshot, or why it cannot be read."""
    snap = read_directory(path)
    if platform and snap.meta.platform and snap.meta.platform != platform:
        msg = (
            f"snapshot was collected from platform {snap.meta.platform!r}, "
            f"inventory says {platform!r}"
        )
        raise SnapshotError(msg, file=path)
    platform = platform or snap.meta.platform
    if platform is None:
        for f in snap:
            found = _sniff(Path(f.path), f.text)
            if found is not None:
                return found[0], snap
        return f"cannot tell the platform of snapshot {path}; set platform:"
    driver = get_driver(platform)
    if driver is None:
        return f"platform {platform!r} is not supported yet"
    return driver, snap


def read_source(path: Path, platform: str | None) -> Found | str:
    """:func:`read_dir` for a directory, else :func:`read_file`."""
    return read_dir(path, platform) if path.is_dir() else read_file(path, platform)


def load_device(
    name: str, source: Path | str | None, platform: str | None, role: str | None
) -> Loaded:
    """Read and parse one device's snapshot (directory or single file).

    ``source`` is a path, None (no snapshot, not collected) or a string: why live collection
    failed (rocetune.collect).
    """
    if source is None or isinstance(source, str):
        msg = source or "no snapshot and live collection is not available yet: not collected"
        return Loaded(problem=DeviceProblem(device=name, kind="not-collected", message=msg))
    try:
        got = read_source(source, platform)
        if isinstance(got, str):
            problem = DeviceProblem(
                device=name, kind="unsupported-platform", message=got, platform=platform
            )
            return Loaded(problem=problem, source=str(source))
        driver, snap = got
        return Loaded(result=_with_refused(driver.parse(snap, name, role), snap))
    except (ParseError, SnapshotError) as exc:
        return Loaded(error=exc)
    except Exception as exc:  # a parser bug must not lose the other devices
        msg = f"internal error while reading this snapshot: {type(exc).__name__}: {exc}"
        return Loaded(error=RocetuneError(msg.splitlines()[0], file=source))


def _with_refused(result: ParseResult, snap: Snapshot) -> ParseResult:
    """Report the snapshot entries that were not read (links, FIFOs, huge files) as RT001."""
    if not snap.refused:
        return result
    items = tuple(
        Unparsed(item=Path(path).name, reason=f"not read: {why}", file=path)
        for path, why in snap.refused
    )
    device = result.device.model_copy(update={"unparsed": (*result.device.unparsed, *items)})
    return replace(result, device=device)
