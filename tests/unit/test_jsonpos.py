"""The line-aware JSON reader."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rocetune.errors import ParseError
from rocetune.platforms.common import jsonpos
from rocetune.platforms.common.jsonpos import parse_json

DOC = """{
  "PORT": {
    "Ethernet0": {"mtu": "9100", "speed": "100000"},
    "Ethernet4": {"mtu": "9100"}
  },
  "LIST": [1, 2.5, -3e2, true, false, null, "a\\u00e9"],
  "PORT": {"Ethernet8": {}}
}
"""


def test_values_match_the_stdlib_and_lines_are_kept() -> None:
    doc = parse_json(DOC, "x.json")
    assert doc.value == json.loads(DOC)
    assert doc.line("PORT") == 2  # the first occurrence keeps its line
    assert doc.line("PORT", "Ethernet0", "speed") == 3
    assert doc.line("LIST", 6) == 6
    assert doc.line("nope") == 1


def test_duplicate_keys_are_reported() -> None:
    doc = parse_json(DOC, "x.json")
    assert doc.duplicates == [(("PORT",), 7)]


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ('{"a": 1,\n "b" 2}', 2, 6),
        ('{"a": [1, 2,\n\n]}', 3, 1),
        ("", 1, 1),
        ('{"a": 1} x', 1, 10),
        ('{"a": tru}', 1, 7),
        ('{"a": "unterminated}', 1, 7),
    ],
)
def test_errors_carry_line_and_column(text: str, line: int, col: int) -> None:
    with pytest.raises(ParseError) as exc_info:
        parse_json(text, "bad.json")
    assert (exc_info.value.file, exc_info.value.line, exc_info.value.column) == (
        "bad.json",
        line,
        col,
    )


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(ParseError, match="too deep"):
        parse_json("[" * 5000 + "]" * 5000, "deep.json")


def _lines(doc: Any) -> dict[tuple[str | int, ...], int]:
    lines: dict[tuple[str | int, ...], int] = doc.lines
    return lines


@pytest.mark.parametrize(
    "text",
    [
        '{\n "PORT": {\n  "Ethernet0": {"mtu": "9100"}\n }\n}\n',
        '{"a": {"b": 1}, "a": {"c": 2}}',  # a duplicate key: placed by the token scan
        '{"a": [1, {"b": 2}]}',  # an array
        '{"k\\"q": {"x": 1}}',  # an escaped quote
        "{" + '"a": {' * 40 + "}" * 40 + "}",  # deeper than a decoded value is taken
        "{" + '"a": {' * 250 + "}" * 250 + "}",
    ],
)
def test_a_value_decoded_elsewhere_gives_the_same_document(text: str) -> None:
    """parse_json takes a value json.loads gave for the text (a sniff's) as its own."""
    alone = parse_json(text, "x.json")
    handed = parse_json(text, "x.json", decoded=json.loads(text))
    assert handed.value == alone.value
    assert _lines(handed) == _lines(alone)
    assert handed.duplicates == alone.duplicates


def test_a_value_decoded_elsewhere_is_not_decoded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '{\n "PORT": {\n  "Ethernet0": {"mtu": "9100"}\n }\n}\n'
    value = json.loads(text)
    monkeypatch.setattr(jsonpos, "_decode", lambda text, file: pytest.fail("decoded again"))
    assert parse_json(text, "x.json", decoded=value).value is value
