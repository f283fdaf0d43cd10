"""The line scan of the JSON reader against an independent oracle (pretty-printed JSON)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocetune.platforms.common import jsonpos
from rocetune.platforms.common.jsonpos import (
    _SPACED_COLON,
    JsonDoc,
    JsonPath,
    _Fallback,
    _fast_scan,
    _line_scan,
    _scan,
    parse_json,
)

KEYS = st.text(alphabet='ab"\\é{}[],: \n', min_size=0, max_size=4)
SCALARS = st.none() | st.booleans() | st.integers() | st.text(alphabet='x"\\{[,:\n', max_size=3)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


def expected_lines(value: Any) -> dict[JsonPath, int]:
    """With ``json.dumps(indent=1)`` every key and element starts a line of its own."""
    out: dict[JsonPath, int] = {(): 1}
    line = 1

    def walk(node: Any, path: JsonPath) -> None:
        nonlocal line
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, child in items:
            line += 1
            out[(*path, key)] = line
            if isinstance(child, dict | list) and child:
                walk(child, (*path, key))
                line += 1  # the closing bracket

    if isinstance(value, dict | list):
        walk(value, ())
    return out


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_lines_match_the_pretty_printed_layout(value: Any) -> None:
    text = json.dumps(value, indent=1)
    doc = parse_json(text, "x.json")
    assert doc.value == value
    assert doc.lines == expected_lines(value)
    assert doc.duplicates == []


def test_nested_keys_under_a_duplicate_are_new_keys() -> None:
    text = '{\n"PORT": {"a": 1,\n "b": 2},\n"PORT": {\n"a": 3}}'
    doc = parse_json(text, "x.json")
    assert doc.value == {"PORT": {"a": 3}}
    assert doc.duplicates == [(("PORT",), 4)]
    assert doc.lines[("PORT", "a")] == 5  # the value comes from the later object
    assert doc.lines[("PORT",)] == 2


def test_escaped_keys_and_strings_with_structure_characters() -> None:
    text = '{"a\\"b": {"k": "x}, {\\"y\\": ["},\n "c\\u00e9": [\n 1,\n "]"]}'
    doc = parse_json(text, "x.json")
    assert doc.value == {'a"b': {"k": 'x}, {"y": ['}, "cé": [1, "]"]}
    assert doc.lines == {
        (): 1,
        ('a"b',): 1,
        ('a"b', "k"): 1,
        ("cé",): 2,
        ("cé", 0): 3,
        ("cé", 1): 4,
    }


def test_nan_is_not_json() -> None:
    import pytest

    from rocetune.errors import ParseError

    with pytest.raises(ParseError) as info:
        parse_json('{"a": "NaN",\n "b": NaN}', "x.json")
    assert (info.value.line, info.value.column) == (2, 7)
    assert "unexpected word 'NaN'" in info.value.message


def test_truncated_document_says_end_of_file() -> None:
    import pytest

    from rocetune.errors import ParseError

    with pytest.raises(ParseError) as info:
        parse_json('{"lldp": \n', "x.json")
    assert info.value.message == "invalid JSON: unexpected end of file"
    assert (info.value.line, info.value.column) == (2, 1)


OBJECTS = st.recursive(
    SCALARS, lambda inner: st.dictionaries(KEYS, inner, max_size=3), max_leaves=12
)
LAYOUTS = st.sampled_from([None, 0, 1, 4])


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, OBJECTS, max_size=4), LAYOUTS, st.booleans())
def test_the_fast_key_scan_places_lines_as_the_token_scan(
    value: dict[str, Any], indent: int | None, compact: bool
) -> None:
    """Documents of objects only take the one-match-per-key path; same lines as the full scan."""
    separators = (",", ":") if compact else None
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=False)
    slow = JsonDoc(value=value)
    _scan(text, "x.json", slow)
    fast = JsonDoc(value=value, root=_fast_scan(text, value))
    assert fast.lines == slow.lines
    assert parse_json(text, "x.json").lines == slow.lines


@pytest.mark.parametrize(
    "text",
    [
        '{"a": {"x": 1},\n "a": {"y": 2}}',  # duplicate: more keys in the text than the value
        '{"a": [1,\n 2]}',  # arrays: element lines come from the token scan
        '{"a": ["k", {"b": 1}]}',
    ],
)
def test_the_fast_key_scan_leaves_other_documents_to_the_token_scan(text: str) -> None:
    value = json.loads(text)
    with pytest.raises(_Fallback):
        _fast_scan(text, value)
    doc = parse_json(text, "x.json")
    slow = JsonDoc(value=value)
    _scan(text, "x.json", slow)
    assert doc.lines == slow.lines
    assert doc.duplicates == slow.duplicates


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, OBJECTS, max_size=4), LAYOUTS, st.booleans())
def test_the_line_scan_places_lines_as_the_token_scan_or_declines(
    value: dict[str, Any], indent: int | None, compact: bool
) -> None:
    """Documents of objects only take the line path (no regular expression); anything it
    cannot place (escaped quotes, a string that starts with a colon) is declined, never
    placed wrong."""
    separators = (",", ":") if compact else None
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=False)
    slow = JsonDoc(value=value)
    _scan(text, "x.json", slow)
    placed = _line_scan(text, value)
    if placed is not None:
        assert JsonDoc(value=value, root=placed).lines == slow.lines
    plain = '\\"' not in text and not _SPACED_COLON.search(text)
    if plain and text.count('":') == _keys(value):
        assert placed is not None  # SONiC's layout, and any other without those


def _keys(value: Any) -> int:
    if not isinstance(value, dict):
        return 0
    return len(value) + sum(_keys(v) for v in value.values())


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{\n"a" : 1,\n"b": 2}', "a key written with a space before its colon"),
        ('{"a": ":", "b": 2}', "a string that starts with a colon"),
        ('{\n"a": {"x": 1},\n"a": {"y": 2}}', "a duplicate key"),
        ('{\n"a\\"": 1}', "an escaped quote"),
        ('{\n"a": [\n1]}', "an array"),
        ('{\n"a": "x\\":",\n"b": 1}', "a colon after an escaped quote in a value"),
        ('{"a" :\n":x",\n"b": 1}', "a spaced key and a string that starts with a colon"),
        ('{"a":\n":x",\n"b": 1}', "a string that starts with a colon on a line of its own"),
    ],
)
def test_the_line_scan_declines_what_it_cannot_place(text: str, why: str) -> None:
    value = json.loads(text)
    assert _line_scan(text, value) is None, why
    doc = parse_json(text, "x.json")
    slow = JsonDoc(value=value)
    _scan(text, "x.json", slow)
    assert doc.lines == slow.lines


def test_the_line_scan_places_keys_that_share_a_line() -> None:
    text = '{"a": {"x": 1, "y": "2"},\n "b": 3, "c": {}}'
    placed = _line_scan(text, json.loads(text))
    assert placed is not None
    lines = JsonDoc(value=json.loads(text), root=placed).lines
    assert lines == {(): 1, ("a",): 1, ("a", "x"): 1, ("a", "y"): 1, ("b",): 2, ("c",): 2}


def test_the_line_scan_places_a_config_db_layout() -> None:
    text = '{\n    "PORT": {\n        "Ethernet0": {\n            "mtu": "9100",\n'
    text += '            "speed": "400000"\n        }\n    },\n    "DEVICE_METADATA": {}\n}'
    value = json.loads(text)
    placed = _line_scan(text, value)
    assert placed is not None
    doc = JsonDoc(value=value, root=placed)
    assert doc.lines == {
        (): 1,
        ("PORT",): 2,
        ("PORT", "Ethernet0"): 3,
        ("PORT", "Ethernet0", "mtu"): 4,
        ("PORT", "Ethernet0", "speed"): 5,
        ("DEVICE_METADATA",): 8,
    }


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, OBJECTS, max_size=4), LAYOUTS, st.integers(1, 40))
def test_the_line_scan_counts_lines_across_windows(
    value: dict[str, Any], indent: int | None, window: int
) -> None:
    """The text is split a window at a time: windows as small as one character (cut at a
    newline, or past the window when it has none) place every key as one window does."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    whole = _line_scan(text, value)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonpos, "_WINDOW", window)
        windowed = _line_scan(text, value)
    if whole is None:
        assert windowed is None
    else:
        assert windowed is not None
        lines = JsonDoc(value=value, root=windowed).lines
        assert lines == JsonDoc(value=value, root=whole).lines
