"""The memos of the host parse (``segments._PLAIN``: the lines of a plain output by its text;
``outputs._MEMO``: a parser's Found by its numbered lines) give what parsing anew gives: a
result taken from a memo equals the parser's own, for every text file of the repository
and every memoised parser, and sharing a memoised result never lets one snapshot's values
change another's."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from rocetune.platforms.linux_host import outputs, segments
from rocetune.platforms.linux_host.base import Found, Notes
from rocetune.platforms.linux_host.segments import Segment, split
from tests.platforms.linux_host.host_helpers import SNAPSHOT, fixture_files, parse_files

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _empty_memos() -> Iterator[None]:
    segments._PLAIN.clear()
    outputs._MEMO.clear()
    yield
    segments._PLAIN.clear()
    outputs._MEMO.clear()


@cache
def _texts() -> tuple[str, ...]:
    found = []
    for top in ("tests", "inventories", "docs"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in (".txt", ".md", ".sh", ".log", ".out", ""):
                found.append(path.read_bytes().decode("utf-8", errors="replace"))
    return tuple(found)


@cache
def _segments() -> tuple[Segment, ...]:
    return tuple(s for text in _texts() for s in split(text, "f"))


def _fresh(kind: str, segment: Segment) -> tuple[Found, Notes]:
    notes = Notes("f")
    return outputs._PARSERS[kind](segment, notes), notes


def _memoised(kind: str, segment: Segment) -> tuple[Found, Notes]:
    notes = Notes("f")
    return outputs._parse(kind, segment, notes), notes


def test_a_text_split_twice_splits_as_the_first_time() -> None:
    texts = _texts()
    assert len(texts) > 300
    kept = 0
    for text in texts:
        for transcript in (True, False):
            first = split(text, "a", transcript=transcript)
            segments._PLAIN.clear()
            fresh = split(text, "b", transcript=transcript)
            kept += (text, transcript) in segments._PLAIN
            again = split(text, "b", transcript=transcript)
            assert again == fresh, (transcript, text[:200])
            assert [s.lines for s in first] == [s.lines for s in fresh]
    assert kept > 300  # the memo was read


def test_the_plain_memo_is_keyed_by_the_transcript_flag() -> None:
    text = "mlnx_qos -i eth2\nDCBX mode: OS controlled\n"
    assert len(split(text, "f", transcript=False)) == 1
    assert [s.command for s in split(text, "f")] == [None, "mlnx_qos -i eth2"]


@pytest.mark.parametrize("kind", sorted(outputs._PARSERS))
def test_every_parser_gives_from_the_memo_what_it_gives_itself(kind: str) -> None:
    for segment in _segments():
        expected, expected_notes = _fresh(kind, segment)
        for _ in range(2):  # the first call may fill the memo, the second may read it
            found, notes = _memoised(kind, segment)
            assert found == expected, (kind, segment.lines[:5])
            assert notes.items == expected_notes.items
            assert notes.errors == expected_notes.errors
    assert outputs._MEMO  # the memo was filled (and read by the second calls)


def test_a_parse_with_notes_is_not_memoised() -> None:
    segment = split("grep: /sys/class/net/eth9/mtu: No such file or directory\n", "f")[0]
    for _ in range(2):
        _, notes = _memoised("mtu", segment)
        assert len(notes.errors) == 1
    assert not outputs._MEMO
    unread = split("9000\nnot a number\n", "f")[0]
    for _ in range(2):
        found, notes = _memoised("mtu", unread)
        assert found.values == {"mtu": 9000}
        assert len(notes.items) == 1
    assert not outputs._MEMO


def test_a_memoised_found_is_not_shared() -> None:
    text = (ROOT / "tests/fixtures/linux_host/gpu01/mlnx_qos_i_eth2.txt").read_text()
    segment = split(text, "f")[0]
    first, _ = _memoised("mlnx_qos", segment)
    expected, _ = _fresh("mlnx_qos", segment)
    assert first == expected
    assert isinstance(first.values["dscp_to_priority"], dict)
    first.values["dscp_to_priority"][0] = 7
    first.put("trust", "pcp", 1)
    first.facts["x"] = "y"
    for _ in range(2):
        found, _ = _memoised("mlnx_qos", segment)
        assert found == expected
        dscp = found.values["dscp_to_priority"]
        assert isinstance(dscp, dict)
        dscp.clear()


def test_a_snapshot_parsed_from_the_memos_is_the_snapshot_parsed_anew() -> None:
    files = fixture_files()
    assert SNAPSHOT.is_dir()
    fresh = parse_files(files)
    memoised = parse_files(files)
    assert outputs._MEMO
    assert segments._PLAIN
    assert memoised.device == fresh.device
    assert list(memoised.provenance.items()) == list(fresh.provenance.items())


def test_the_same_output_at_other_lines_gives_its_own_lines() -> None:
    text = (ROOT / "tests/fixtures/linux_host/gpu01/mlnx_qos_i_eth2.txt").read_text()
    transcript = f"$ mlnx_qos -i eth2\n{text}$ mlnx_qos -i eth2\n{text}$ hostname\n"
    first, second = split(transcript, "f")[1:3]
    assert [t for _, t in first.lines] == [t for _, t in second.lines]
    for segment in (first, second, first):
        found, _ = _memoised("mlnx_qos", segment)
        assert found == _fresh("mlnx_qos", segment)[0]
    assert _memoised("mlnx_qos", first)[0].lines != _memoised("mlnx_qos", second)[0].lines
