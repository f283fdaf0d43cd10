"""A truncated output redacted by windows of lines and spilled to disk (issue 18: a flooding
peer holds the cap plus a constant, not twice the cap).

- Window redaction gives the whole-text redaction (numbered placeholders aside: they are
  numbered per window) on the hardening corpus (every platform, all syntaxes of a command
  in one text, cut into windows of one line upwards), on every snapshot file of the lab
  and on multi-line secrets (PEM keys, NVUE block scalars, JSON members over lines).
- Reading by blocks gives the same text as reading whole (exec channels and shells).
- Memory: one flooding command, read, redacted, spilled and written, peaks (tracemalloc)
  under the cap plus a constant; the whole-text path (kept for other callers) does not.
"""

from __future__ import annotations

import json
import re
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from rocetune.collect import shell_batch, shell_read
from rocetune.collect.device import Collected, _record
from rocetune.collect.exec_channel import ExecSession
from rocetune.collect.spill import SpillError, redact_windows, spill
from rocetune.collect.writer import write_device
from rocetune.platforms import drivers
from rocetune.platforms.common.redact import PLACEHOLDER
from rocetune.snapshot import Command
from tests.hardening.redaction_corpus import CASES, Case, merged_json, planted
from tests.hardening.test_redaction import command_of

ROOT = Path(__file__).resolve().parents[2]
NUMBERED = re.compile(re.escape(PLACEHOLDER) + r"-\d+")


def _numbers_aside(text: str) -> str:
    return NUMBERED.sub(PLACEHOLDER + "-N", text)


def _windowed(redact: Any, text: str, block: int, window: int, context: int) -> str:
    out: list[str] = []
    blocks = (text[i : i + block] for i in range(0, len(text), block))
    redact_windows(redact, blocks, out.append, window=window, context=context)
    return "".join(out)


SIZES = [(1, 1, 600), (7, 1, 2000), (64, 40, 1000), (10**6, 300, 3000), (13, 1, 0)]
"""(block characters, window characters, context characters); the last: no context."""


def _corpus_texts() -> list[tuple[Case, list[Case], str]]:
    by: dict[tuple[str, str], list[Case]] = {}
    for case in CASES:
        by.setdefault((case.platform, case.command), []).append(case)
    texts = []
    for cases in by.values():
        if cases[0].platform == "sonic":
            # a truncated output, the only one redacted by windows, is cut short: no longer
            # a JSON document, whose parse finds SNMP community keys and NTP key values
            text = merged_json(cases).rstrip("}\n")
        else:
            text = "\n".join(planted(c)[0] for c in cases) + "\n"
        texts.append((cases[0], cases, text * 2))
    return texts


@pytest.mark.parametrize(("block", "window", "context"), SIZES[:-1])
def test_windows_redact_the_corpus_as_the_whole_text(block: int, window: int, context: int) -> None:
    for first, cases, text in _corpus_texts():
        redactor = drivers()[first.platform].redactor
        command = command_of(first)
        whole = redactor(command, text)
        got = _windowed(lambda t, c=command, r=redactor: r(c, t), text, block, window, context)
        leaked = {c.id for c in cases if planted(c)[1] in got}
        assert leaked == {c.id for c in cases if planted(c)[1] in whole}
        assert _numbers_aside(got) == _numbers_aside(whole), (first.platform, first.command)
        if first.platform != "sonic":
            assert not leaked


def test_without_context_a_multi_line_secret_leaks() -> None:
    """The context is what carries multi-line secrets over window edges (the test can fail)."""
    cases = [c for c in CASES if "PRIVATE KEY" in c.snippet and c.platform != "sonic"]
    assert cases
    case = cases[0]
    text = planted(case)[0] + "\n"
    redactor = drivers()[case.platform].redactor
    command = command_of(case)
    block, window, context = SIZES[-1]
    got = _windowed(lambda t: redactor(command, t), text, block, window, context)
    assert planted(case)[1] in got
    got = _windowed(lambda t: redactor(command, t), text, block, window, 2000)
    assert planted(case)[1] not in got


def _lab_files() -> list[tuple[str, Command, str]]:
    found = []
    for meta_file in sorted((ROOT / "inventories" / "lab" / "snapshots").glob("*/meta.json")):
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        for record in meta["commands"]:
            path = meta_file.parent / record["file"]
            if path.is_file():
                encoding = "json" if path.suffix == ".json" else "text"
                command = Command(id="x", command=record["command"], encoding=encoding)
                found.append((meta["platform"], command, path.read_text(encoding="utf-8")))
    return found


def test_windows_redact_lab_snapshots_as_the_whole_text() -> None:
    files = _lab_files()
    assert len(files) > 20
    for platform, command, text in files:
        redactor = drivers()[platform].redactor
        whole = redactor(command, text)
        for block, window, context in [(5, 1, 800), (4096, 2000, 4000)]:
            got = _windowed(lambda t, c=command, r=redactor: r(c, t), text, block, window, context)
            if platform == "sonic" and command.encoding == "json":
                assert got.count("\n") == whole.count("\n")
                continue
            assert _numbers_aside(got) == _numbers_aside(whole), (platform, command.command)


def test_windows_keep_text_without_a_final_newline_and_empty_lines() -> None:
    for text in ["", "\n", "a", "a\nb", "a\n\n\nb\n", "\n\nx", "x" * 50 + "\n" + "y" * 3]:
        for block, window, context in [(1, 1, 0), (2, 3, 5), (100, 100, 100)]:
            assert _windowed(lambda t: t, text, block, window, context) == text


def test_a_redactor_that_changes_line_counts_still_redacts_each_window() -> None:
    text = "secret 1\nsecret 2\nplain\n" * 5

    def joining(t: str) -> str:  # removes line ends: windows cannot be mapped
        return t.replace("secret", "<redacted>").replace("\nplain", " plain")

    got = _windowed(joining, text, 3, 10, 20)
    assert "secret" not in got


def test_stream_blocks_decode_as_the_whole() -> None:
    """Blocks end after a newline: the same text as decoding the kept bytes at once,
    also with invalid UTF-8, multi-byte characters and lines longer than a block."""
    samples = [
        b"plain line\n" * 40,
        ("é€😀x\n" * 30).encode() + b"\xe2\x82\n\xff\xfe tail\n" + b"z" * 300 + b"\nrest",
        b"\r\n".join([b"a" * 70, b"b\xc3", b"\xa9c"]) + b"\r\n",
    ]
    for data in samples:
        for cap in (len(data) - 1, len(data) // 2, 5):
            for size in (1, 16, 64, 1 << 20):
                whole = shell_batch.Stream("", cap, plain=True)
                whole.feed(data)
                parts = shell_batch.Stream("", cap, plain=True)
                parts.feed(data)
                assert "".join(parts.truncated_blocks(size)) == whole.truncated()
                assert not parts.buf


def test_shell_parts_drain_as_finish() -> None:
    parts = ["a\x08b\n", "c\n", "\x08\x08\n", "d e\n"]
    assert "".join(shell_read._drain(list(parts))) == shell_read._finish(parts, final=False)


class _Flood:
    """A paramiko exec channel whose command floods 64 KiB lines."""

    def __init__(self, total: int) -> None:
        self.left = total
        self.closed = False
        self.eof_received = False
        self.status_event = threading.Event()

    def settimeout(self, timeout: float) -> None:
        pass

    def exec_command(self, line: str) -> None:
        pass

    def shutdown_write(self) -> None:
        pass

    def recv_ready(self) -> bool:
        return self.left > 0

    def recv(self, size: int) -> bytes:
        n = min(size, self.left, 65536)
        self.left -= n
        return b"y" * (n - 1) + b"\n"

    def recv_stderr_ready(self) -> bool:
        return False

    def exit_status_ready(self) -> bool:
        return self.left == 0

    exit_status = 0

    def close(self) -> None:
        self.closed = True


class _Client:
    def __init__(self, total: int) -> None:
        self.total = total

    def get_transport(self) -> _Client:
        return self

    def is_active(self) -> bool:
        return True

    def open_session(self, timeout: float) -> _Flood:
        return _Flood(self.total)


MIB = 2**20


def _collect_flood(tmp_path: Path, cap: int, *, blocks: bool) -> tuple[int, Path]:
    """Peak traced bytes of one flooding command read, redacted, kept and written."""
    session = ExecSession(_Client(3 * cap), read_timeout=60, max_output_bytes=cap)
    session.blocks = blocks
    command = Command(id="qos", command="mlnx_qos -i eth2")
    redact = drivers()["linux_host"].redactor
    got = Collected(spill_to=tmp_path if blocks else None)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        _record(command, session.run(command.command), redact, got)
        meta = got.meta("h", "linux_host")
        out = write_device(
            tmp_path / "out", "h", got.outputs, meta, durable=False, spilled=got.spilled
        )
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
        got.close()
    return peak, out / command.filename


def test_a_flooding_command_holds_the_cap_and_a_constant(tmp_path: Path) -> None:
    cap = 24 * MIB
    peak, path = _collect_flood(tmp_path / "spill", cap, blocks=True)
    data = path.read_bytes()
    assert cap - 65536 <= len(data) <= cap
    assert data.endswith(b"\n")
    assert set(data.splitlines()) == {b"y" * 65535}
    # the read buffer (bytearray growth: up to 1/8 over its size) and one window of lines
    assert peak <= cap * 1.125 + 10 * MIB, peak / MIB
    spill_dir = [p.name for p in (tmp_path / "spill").iterdir()]
    assert spill_dir == ["out"], "spill files are unnamed (gone when closed)"
    whole_peak, whole_path = _collect_flood(tmp_path / "whole", cap, blocks=False)
    assert whole_path.read_bytes() == data, "same file as the whole-text path"
    assert whole_peak >= 1.9 * cap, "the whole-text path holds the output twice"


def test_a_spill_write_failure_is_a_write_failure(tmp_path: Path) -> None:
    missing = tmp_path / "file"
    missing.write_text("not a directory")
    with pytest.raises(SpillError) as info:
        spill(lambda t: t, iter(["a\n"]), missing / "sub")
    assert isinstance(info.value.error, OSError)


def test_follow_up_discovery_reads_the_head_of_a_spilled_output(tmp_path: Path) -> None:
    """Follow-ups see a spilled (truncated) output by its first HEAD bytes of whole lines,
    not read back whole (that would hold it a second time)."""
    from rocetune.collect import spill as spill_module

    lines = [f"line {i:07d}\n" for i in range(300_000)]  # 4.2 MB
    got = Collected(spill_to=tmp_path)
    got.outputs["small.txt"] = "kept\n"
    got.spilled["big.txt"] = spill(lambda t: t, iter(lines), tmp_path)
    try:
        files = got.snapshot().files
        head = files["big.txt"].text
        assert len(head.encode()) <= spill_module.HEAD
        assert head == "".join(lines)[: len(head)]
        assert head.endswith("\n")
        assert len(head) > spill_module.HEAD - 20
        assert files["small.txt"].text == "kept\n"
    finally:
        got.close()
