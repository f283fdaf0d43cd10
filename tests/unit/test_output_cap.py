"""The output cap per command: framed batch output read as it arrives, each command capped
and cut after its last complete line; meta.json records it; the audit says what was not read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import get_args

from rocetune.api import lint
from rocetune.collect.shell_batch import Stream, cut_at_line, parse
from rocetune.load import load_device
from rocetune.model import Feature, Severity
from rocetune.snapshot import CommandRecord, SnapshotMeta, read_meta

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MARK = "__RT_0123456789abcdef"


def _framed(*items: tuple[str, int, str]) -> bytes:
    return "".join(f"{out}\n{MARK} {status} {err}\n" for out, status, err in items).encode()


def test_stream_frames_match_the_batch_parser_whatever_the_chunking() -> None:
    data = _framed(("a\nb", 0, ""), ("", 127, "sh: x: not found"), ("é\n", 2, "no"))
    for size in (1, 3, 7, 64, len(data)):
        stream = Stream(MARK, cap=1000)
        for i in range(0, len(data), size):
            assert not stream.feed(data[i : i + size])
        assert stream.done == parse(data.decode(), MARK), size
        assert not stream.buf


def test_stream_caps_the_command_being_read_not_the_batch() -> None:
    stream = Stream(MARK, cap=100)
    assert not stream.feed(_framed(("x" * 90, 0, ""), ("y" * 90, 0, "")))
    assert len(stream.done) == 2, "each command has its own cap"
    assert not stream.feed(b"line one\n" * 10)  # 90 bytes: under the cap
    assert stream.feed(b"line one\npartial")
    assert stream.truncated() == "line one\n" * 11
    assert len(stream.buf) <= 100 + len(b"line one\npartial"), "at most cap + one chunk"


def test_cut_at_line_keeps_whole_lines_only() -> None:
    assert cut_at_line(b"ab\ncd\nef", 7) == b"ab\ncd\n"
    assert cut_at_line(b"ab\ncd\nef", 6) == b"ab\ncd\n"
    assert cut_at_line(b"ab\ncd\nef", 5) == b"ab\n"
    assert cut_at_line(b"abcdef", 4) == b"", "one line longer than the cap: nothing kept"


def test_meta_records_truncation_and_old_meta_still_loads(tmp_path: Path) -> None:
    meta = SnapshotMeta(
        "sw1",
        "eos",
        "2026-01-01T00:00:00Z",
        (
            CommandRecord(
                "show running-config", "show_running_config.txt", "truncated", None, 1.5, 2**21
            ),
            CommandRecord("show version", "show_version.txt"),
        ),
    )
    (tmp_path / "meta.json").write_text(meta.to_json(), encoding="utf-8")
    assert read_meta(tmp_path) == meta
    old = {"format": 1, "commands": [{"command": "a", "file": "a.txt", "status": "ok"},
                                      {"command": "b", "file": "b.txt", "status": "error",
                                       "error": "bad"},
                                      {"command": "c", "file": "c.txt", "status": "weird",
                                       "cap_bytes": "x"}]}  # fmt: skip
    (tmp_path / "meta.json").write_text(json.dumps(old), encoding="utf-8")
    got = read_meta(tmp_path).commands
    assert [(r.status, r.cap_bytes) for r in got] == [("ok", None), ("error", None), ("ok", None)]


def _eos_snapshot(tmp_path: Path, status: str, keep: int = 38) -> Path:
    """spine1's snapshot with its running config cut after ``keep`` lines (38: before its
    PFC lines; 16: before its QoS and every interface)."""
    snap = tmp_path / status / "spine1"
    shutil.copytree(FIXTURES / "eos" / "roce_spine", snap)
    config = snap / "show_running_config.txt"
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    config.write_text("".join(lines[:keep]), encoding="utf-8")
    record = {"command": "show running-config", "file": config.name, "status": status}
    if status == "truncated":
        record["cap_bytes"] = 2**20
    meta = {"format": 1, "device": "spine1", "platform": "eos", "commands": [record]}
    (snap / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return snap


def test_a_truncated_output_is_an_rt001_item_touching_every_feature(tmp_path: Path) -> None:
    cut = load_device("spine1", _eos_snapshot(tmp_path, "truncated"), None, "spine")
    whole = load_device("spine1", _eos_snapshot(tmp_path, "ok"), None, "spine")
    assert cut.result is not None
    assert whole.result is not None
    added = set(cut.result.device.unparsed) - set(whole.result.device.unparsed)
    assert len(added) == 1
    item = added.pop()
    assert item.item == (
        "output of `show running-config` truncated at 1 MiB: what follows was not read"
    )
    assert item.ports is None, "bound to the device: it may hide any port's lines"
    assert set(item.features) == set(get_args(Feature)), "any rule reading it cannot verify"
    assert item.file is not None
    assert item.file.endswith("show_running_config.txt")


def test_a_config_cut_before_its_qos_is_could_not_verify_not_no_roce_port(tmp_path: Path) -> None:
    """RT003 "no RoCE port" asserts an absence: after a cut it is RT000 (the lossless config
    may follow the cut), while the same text read whole is still the error. (The ports
    themselves come from the other outputs of the snapshot.)"""
    whole = lint([_eos_snapshot(tmp_path, "ok", keep=16)], platform="eos")
    assert [(f.code, f.severity) for f in whole.findings if f.code == "RT003"] == [
        ("RT003", Severity.ERROR)
    ]
    assert "no RoCE port" in next(f.message for f in whole.findings if f.code == "RT003")
    cut = lint([_eos_snapshot(tmp_path, "truncated", keep=16)], platform="eos")
    assert not [f for f in cut.findings if f.code == "RT003"]
    notes = [f.message for f in cut.findings if f.code == "RT000" and "RT003" in f.message]
    assert len(notes) == 1
    assert "truncated at 1 MiB" in notes[0]


def test_a_truncated_json_output_that_cannot_be_parsed_is_not_an_input_error(
    tmp_path: Path,
) -> None:
    snap = tmp_path / "leaf1"
    snap.mkdir()
    name = "show_runningconfiguration_all.json"
    (snap / name).write_text('{"PORT": {"Ethernet0": {\n', encoding="utf-8")
    record = {"command": "show runningconfiguration all", "file": name,
              "status": "truncated", "cap_bytes": 2**20}  # fmt: skip
    meta = {"format": 1, "device": "leaf1", "platform": "sonic", "commands": [record]}
    (snap / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    got = load_device("leaf1", snap, None, "leaf")
    assert got.error is None
    assert got.problem is not None
    assert got.problem.kind == "not-collected"
    assert "`show runningconfiguration all` truncated at 1 MiB cannot be parsed" in (
        got.problem.message
    )
    (snap / "meta.json").write_text(json.dumps({**meta, "commands": []}), encoding="utf-8")
    assert load_device("leaf1", snap, None, "leaf").error is not None, "not truncated: bad input"
