"""Snapshot layout: the file-name rule, metadata, and reading directories and single files."""

from __future__ import annotations

from pathlib import Path

import pytest

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
