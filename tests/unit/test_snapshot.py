"""Snapshot layout: the file-name rule, metadata, and reading directories and single files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from rocetune import inputs
from rocetune.errors import SnapshotError
from rocetune.snapshot import (
    Command,
    CommandRecord,
    SnapshotMeta,
    command_filename,
    read_directory,
    read_single_file,
    write_directory,
)


@pytest.mark.parametrize(
    ("command", "encoding", "expected"),
    [
        ("nv config show -o yaml", "yaml", "nv_config_show_o_yaml.yaml"),
        ("show runningconfiguration all", "json", "show_runningconfiguration_all.json"),
        ("mlnx_qos -i eth2", "text", "mlnx_qos_i_eth2.txt"),
        (
            "cat /sys/class/net/eth2/ecn/roce_np/enable/3",
            "text",
            "cat_sys_class_net_eth2_ecn_roce_np_enable_3.txt",
        ),
        ("  Show  PFC | json ", "json", "show_pfc_json.json"),
    ],
)
def test_command_filename(command: str, encoding: str, expected: str) -> None:
    assert command_filename(command, encoding) == expected  # type: ignore[arg-type]


def test_filename_is_bounded_and_never_empty() -> None:
    assert len(command_filename("x" * 500, "text")) == 124
    with pytest.raises(ValueError, match="empty"):
        command_filename("|||", "text")


def test_write_and_read_round_trip(tmp_path: Path) -> None:
    cmd = Command(id="cfg", command="show runningconfiguration all", encoding="json")
    meta = SnapshotMeta(
        device="leaf1",
        platform="sonic",
        collected_at="2026-12-01T10:00:00Z",
        commands=(CommandRecord(command=cmd.command, file=cmd.filename, seconds=0.4),),
    )
    write_directory(tmp_path / "leaf1", {cmd.filename: '{"PORT": {}}'}, meta)
    snap = read_directory(tmp_path / "leaf1")
    assert snap.meta == meta
    src = snap.get(cmd)
    assert src is not None
    assert src.text == '{"PORT": {}}'
    assert src.path == str(tmp_path / "leaf1" / cmd.filename)
    assert [f.path for f in snap] == [src.path]


def test_single_file_stands_for_a_command(tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    path.write_bytes(b'{"PORT": {"Ethernet0": {"alias": "\xff"}}}')
    cmd = Command(id="cfg", command="show runningconfiguration all", encoding="json")
    snap = read_single_file(path, cmd)
    src = snap.get(cmd)
    assert src is not None
    assert "\ufffd" in src.text  # undecodable bytes are replaced, never a crash


def test_missing_and_bad_meta(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="does not exist"):
        read_directory(tmp_path / "nope")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "meta.json").write_text("{\n  bad")
    with pytest.raises(SnapshotError) as exc_info:
        read_directory(tmp_path / "d")
    assert exc_info.value.line == 2


def test_write_refuses_path_traversal(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid snapshot file name"):
        write_directory(tmp_path, {"../evil": "x"}, SnapshotMeta())


def _odd_snapshot(root: Path) -> Path:
    """A snapshot directory with a file, a link, a FIFO, a sub-directory and meta.json."""
    snap = root / "leaf1"
    write_directory(snap, {"a.txt": "a\n", "b.txt": "b\n"}, SnapshotMeta(device="leaf1"))
    (snap / "link.txt").symlink_to(snap / "a.txt")
    os.mkfifo(snap / "fifo.txt")
    (snap / "sub").mkdir()
    return snap


@pytest.mark.parametrize("where", ["absolute", "relative", "dot"])
def test_entries_read_refused_and_named_as_their_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    snap = _odd_snapshot(tmp_path)
    directory = {"absolute": snap, "relative": Path("leaf1"), "dot": Path(".")}[where]
    monkeypatch.chdir(snap if where == "dot" else tmp_path)
    got = read_directory(directory)
    assert {n: (f.path, f.text) for n, f in got.files.items()} == {
        "a.txt": (str(directory / "a.txt"), "a\n"),
        "b.txt": (str(directory / "b.txt"), "b\n"),
    }
    assert got.refused == (
        (str(directory / "fifo.txt"), "not a regular file"),
        (str(directory / "link.txt"), "a symbolic link: not followed"),
        (str(directory / "sub"), "not a regular file"),
    )
    assert got.meta.device == "leaf1"
    assert got.origin == str(directory)


def test_a_snapshot_is_read_without_a_stat_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scandir gives the entries' types and O_NOFOLLOW refuses links: no lstat or stat per
    file (a host snapshot has ~60 files; 1,000 hosts are 60,000 files)."""
    snap = _odd_snapshot(tmp_path)
    for i in range(20):
        (snap / f"f{i}.txt").write_text(str(i))
    calls: list[str] = []
    real_stat, real_lstat = os.stat, os.lstat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        calls.append(f"stat {path}")
        return real_stat(path, *args, **kwargs)

    def lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        calls.append(f"lstat {path}")
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "lstat", lstat)
    got = read_directory(snap)
    monkeypatch.undo()
    assert len(got.files) == 22
    assert len(got.refused) == 3
    assert got.meta.device == "leaf1"
    assert len(calls) <= 2, calls  # the directory itself, not its files


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="needs O_NOFOLLOW")
@pytest.mark.parametrize("target", ["file", "dangling", "loop"])
def test_a_link_read_without_following_is_refused(tmp_path: Path, target: str) -> None:
    link = tmp_path / "link.txt"
    if target == "file":
        (tmp_path / "t.txt").write_text("secret")
        link.symlink_to(tmp_path / "t.txt")
    elif target == "dangling":
        link.symlink_to(tmp_path / "nowhere.txt")
    else:
        link.symlink_to(link)
    with pytest.raises(inputs.InputRefused, match="symbolic link"):
        inputs.read_bytes(link, follow_symlinks=False)
    with pytest.raises(inputs.InputRefused, match="symbolic link"):
        inputs.read_bytes(str(link), follow_symlinks=False)
    with pytest.raises(FileNotFoundError):
        inputs.read_bytes(tmp_path / "missing.txt", follow_symlinks=False)
