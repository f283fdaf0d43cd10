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

from rocetune.snapshot import SnapshotMeta, write_directory


def _fsync_tree(directory: Path) -> None:
    for path in directory.iterdir():
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
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
    parent: Path, name: str, outputs: Mapping[str, str], meta: SnapshotMeta, *, durable: bool
) -> Path:
    """Write ``parent/name/`` (outputs + meta.json) atomically and return its path."""
    parent.mkdir(parents=True, exist_ok=True)
    _clean_leftovers(parent, name)
    final = parent / name
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=parent))
    try:
        write_directory(tmp, outputs, meta)
        if durable:
            _fsync_tree(tmp)
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
