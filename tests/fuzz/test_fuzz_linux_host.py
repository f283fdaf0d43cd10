"""Robustness of the Linux host parser: mutations of a collected snapshot and saved outputs.

Originals: ``tests/fixtures/linux_host/gpu01`` (one file of the snapshot is mutated at a
time, the others stay as collected, with and without ``meta.json``), the copies of the
shared-corpus host files ``tests/fixtures/linux_host/corpus_*`` and the corpus itself
(``tests/corpus/host``), each as the single saved file it is. Every
example must parse (the host parser reports odd input as Unparsed and never raises
ParseError) and sniffing never raises (see :mod:`tests.fuzz.mutations`).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from rocetune.platforms.base import ParseResult
from rocetune.platforms.linux_host import PLATFORM as LINUX_HOST
from rocetune.platforms.linux_host.commands import TRANSCRIPT
from rocetune.snapshot import Snapshot, SourceFile, read_meta
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.fuzz.snapshots import check_sniff, read
from tests.paths import CORPUS as CORPUS_ROOT

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "linux_host"
SNAPSHOT = FIXTURES / "gpu01"
CORPUS = CORPUS_ROOT / "host"
DRIVER = LINUX_HOST

FILES = {p.name: read(p) for p in sorted(SNAPSHOT.iterdir()) if p.name != "meta.json"}
META = read_meta(SNAPSHOT)
SAVED = [
    read(p) for p in (*sorted(FIXTURES.glob("corpus_*")), *sorted(CORPUS.rglob("*"))) if p.is_file()
]


def _parse(files: dict[str, str], *, meta: bool) -> ParseResult:
    snap = Snapshot(
        files={n: SourceFile(path=f"/fuzz/{n}", text=t) for n, t in files.items()},
        meta=META if meta else Snapshot(files={}).meta,
        origin="/fuzz",
    )
    result = DRIVER.parse(snap, "dut", None)  # never ParseError: odd input is Unparsed
    assert isinstance(result, ParseResult)
    assert result.device.name == "dut"
    assert result.device.kind == "host"
    return result


def test_originals_parse() -> None:
    assert len(FILES) == 37
    assert len(SAVED) >= 8
    full = _parse(FILES, meta=True)
    assert set(full.device.nics) == {"eth2", "eth3"}
    for text in SAVED:
        command = DRIVER.sniff("/fuzz/x", text)
        assert command is not None
        check_parse(DRIVER, command, text)


@FUZZ_SETTINGS
@given(st.data(), st.sampled_from(sorted(FILES)), st.booleans())
def test_snapshot_with_one_file_mutated(data: st.DataObject, name: str, meta: bool) -> None:
    text = data.draw(mutated([FILES[name]]))
    check_sniff(DRIVER, TRANSCRIPT, text)
    result = _parse({**FILES, name: text}, meta=meta)
    untouched = "eth3" if "eth2" in name or "mlx5_0" in name or "17_00" in name else "eth2"
    if name not in ("ibdev2netdev.txt", "lldpctl_f_json.json", "hostname.txt"):
        assert untouched in result.device.nics


@FUZZ_SETTINGS
@given(mutated(SAVED))
def test_saved_outputs_mutated(text: str) -> None:
    check_sniff(DRIVER, TRANSCRIPT, text)
    command = DRIVER.sniff("/fuzz/x", text) or TRANSCRIPT
    check_parse(DRIVER, command, text)


def test_regression_empty_and_binary_files() -> None:
    for text in ("", "\x00" * 64, "\ufeff", "```\n```\n", "+ \n$ \n"):
        _parse({**FILES, "mlnx_qos_i_eth2.txt": text}, meta=True)
        check_parse(DRIVER, TRANSCRIPT, text)
