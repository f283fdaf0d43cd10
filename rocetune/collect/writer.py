"""Write one device's snapshot directory atomically.

The files go to a hidden temporary directory next to the target (same file system), are
flushed to disk, and the directory is renamed into place. A crash or Ctrl-C leaves either
the previous snapshot of the device or the new one, never a half-written one; a leftover
temporary directory is hidden (``.<device>.tmp-*``) and removed by the next write. When the
device already has a snapshot it is first renamed aside and removed after the swap.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rocetune.collect.spill import Spilled
from rocetune.snapshot import META_FILE, SnapshotMeta

WRITE_CHARS = 1 << 20
"""Characters encoded and written at a time (a capped 64 MiB output is never copied whole)."""


def _write_file(path: Path, text: str | Spilled, *, durable: bool) -> None:
    """Write ``text`` as UTF-8 to a new file (as ``Path.write_text``), fsynced on its own
    descriptor before it is closed when ``durable``; a spilled output is copied."""
    if isinstance(text, str) and os.linesep != "\n":  # text mode's newline translation
        text = text.replace("\n", os.linesep)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        pieces = (
            text.chunks()
            if isinstance(text, Spilled)
            else (
                text[i : i + WRITE_CHARS].encode("utf-8") for i in range(0, len(text), WRITE_CHARS)
            )
        )
        for piece in pieces:
            data = memoryview(piece)
            while data:
                data = data[os.write(fd, data) :]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def _write_snapshot(
    directory: Path,
    outputs: Mapping[str, str | Spilled],
    meta: SnapshotMeta,
    *,
    durable: bool,
) -> None:
    """``snapshot.write_directory``'s files (the same bytes), each fsynced as it is written."""
    for name in outputs:
        if "/" in name or name in {"", ".", "..", META_FILE}:
            msg = f"invalid snapshot file name {name!r}"
            raise ValueError(msg)
    for name, text in outputs.items():
        _write_file(directory / name, text, durable=durable)
    _write_file(directory / META_FILE, meta.to_json(), durable=durable)
    if durable:
        _fsync_dir(directory)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot fsync a directory
        pass
    finally:
        os.close(fd)


def _clean_leftovers(parent: Path, name: str) -> None:
    for stale in parent.glob(f".{name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in parent.glob(f".{name}.old-*"):
        shutil.rmtree(stale, ignore_errors=True)


def write_device(
    parent: Path,
    name: str,
    outputs: Mapping[str, str],
    meta: SnapshotMeta,
    *,
    durable: bool,
    spilled: Mapping[str, Spilled] | None = None,
) -> Path:
    """Write ``parent/name/`` (outputs, ``spilled`` outputs, meta.json) atomically and
    return its path."""
    parent.mkdir(parents=True, exist_ok=True)
    _clean_leftovers(parent, name)
    final = parent / name
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=parent))
    try:
        _write_snapshot(tmp, {**outputs, **(spilled or {})}, meta, durable=durable)
        old: Path | None = None
        if final.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{name}.old-", dir=parent))
            os.rename(final, old / name)
        os.rename(tmp, final)
        if durable:
            _fsync_dir(parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final
