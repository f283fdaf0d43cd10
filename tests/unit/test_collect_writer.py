"""The snapshot writer's durability: one ``syncfs`` per snapshot where Linux has it (the
files are not fsynced one by one), else an fsync per file; the same bytes either way; a
failed sync is a write failure naming the directory; leftovers found by literal names."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from rocetune.collect import writer
from rocetune.snapshot import CommandRecord, SnapshotMeta, write_directory

OUTPUTS = {"a.txt": "x\n\u00e9\n" * 100, "b.json": "{}", "empty.txt": ""}
META = SnapshotMeta("sw[1]", "sonic", "2026-01-01T00:00:00Z", (
    CommandRecord("show a", "a.txt", "ok", None, 0.1),
))  # fmt: skip


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def _same_as_write_directory(got: Path, tmp_path: Path) -> None:
    write_directory(tmp_path / "ref", OUTPUTS, META)
    names = sorted(p.name for p in (tmp_path / "ref").iterdir())
    assert sorted(p.name for p in got.iterdir()) == names
    for name in names:
        assert (got / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()


def test_one_syncfs_per_snapshot_where_linux_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if writer.syncfs() is None:
        pytest.skip("no syncfs here (not Linux >= 5.8)")
    synced: list[int] = []
    real = writer.syncfs()
    assert real is not None

    def counting(fd: int) -> int:
        synced.append(fd)
        return real(fd)

    monkeypatch.setattr(writer, "syncfs", lambda: counting)
    fsyncs = _count_fsyncs(monkeypatch)
    got = writer.write_device(tmp_path / "out", "sw[1]", OUTPUTS, META, durable=True)
    assert len(synced) == 1
    assert len(fsyncs) == 1, "only the parent directory (the rename) is fsynced"
    _same_as_write_directory(got, tmp_path)


def test_an_fsync_per_file_without_syncfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "syncfs", lambda: None)
    fsyncs = _count_fsyncs(monkeypatch)
    got = writer.write_device(tmp_path / "out", "sw[1]", OUTPUTS, META, durable=True)
    assert len(fsyncs) == len(OUTPUTS) + 1 + 2, "each file, meta.json, the directory, the rename"
    _same_as_write_directory(got, tmp_path)


def test_not_durable_syncs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "syncfs", lambda: pytest.fail("syncfs called"))
    fsyncs = _count_fsyncs(monkeypatch)
    got = writer.write_device(tmp_path / "out", "sw[1]", OUTPUTS, META, durable=False)
    assert fsyncs == []
    _same_as_write_directory(got, tmp_path)


def test_a_failed_syncfs_is_a_write_failure_naming_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ctypes

    def failing(fd: int) -> int:
        ctypes.set_errno(errno.EIO)
        return -1

    monkeypatch.setattr(writer, "syncfs", lambda: failing)
    with pytest.raises(OSError, match="Input/output error") as info:
        writer.write_device(tmp_path / "out", "sw[1]", OUTPUTS, META, durable=True)
    assert info.value.errno == errno.EIO
    assert ".sw[1].tmp-" in str(info.value.filename)
    assert not (tmp_path / "out" / "sw[1]").exists(), "nothing incomplete is in place"
    assert not list((tmp_path / "out").iterdir()), "the temporary directory is removed"


def test_leftovers_are_found_by_literal_names(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for stale in (".sw[1].tmp-abc", ".sw[1].old-abc"):
        (out / stale).mkdir()
    (out / ".sw1.tmp-abc").mkdir()  # another device (glob's [1] would have matched it)
    writer.write_device(out, "sw[1]", OUTPUTS, META, durable=False)
    assert sorted(p.name for p in out.iterdir()) == [".sw1.tmp-abc", "sw[1]"]


def test_syncfs_is_found_on_this_linux() -> None:
    import platform
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("Linux only")
    major, minor = (int(x) for x in platform.release().split(".")[:2])
    found: Any = writer.syncfs()
    assert (found is not None) == ((major, minor) >= (5, 8))
