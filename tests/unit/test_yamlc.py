"""rocetune.yamlc reads what ruamel's round-trip loader reads (values, key lines) or steps aside.

Every case is compared with ruamel itself: a value the fast reader gives must be the value
ruamel gives, and a document it cannot read exactly must raise Unusual (the callers then
use ruamel)."""

from __future__ import annotations

import datetime
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from rocetune import yamlc
from tests.paths import ROOT

pytestmark = pytest.mark.skipif(not yamlc.available(), reason="PyYAML without libyaml")

SCALARS = [
    *[
        "010",
        "0o10",
        "0x1F",
        "0X1F",
        "1_000",
        "+5",
        "-0",
        "0",
        "00",
        ".5",
        "1.",
        "1e3",
        "1.5e3",
        "1E3",
        "1.5E+3",
        "+.5",
        "-.5e-2",
        ".5e3",
    ],
    *[
        ".inf",
        "-.Inf",
        "+.INF",
        ".nan",
        ".NaN",
        "1:20",
        "12:30:00",
        "yes",
        "no",
        "on",
        "off",
        "True",
        "TRUE",
        "tRUE",
        "true",
    ],
    *[
        "false",
        "False",
        "FALSE",
        "null",
        "~",
        "Null",
        "NULL",
        "nULL",
        "2001-12-14",
        "2001-13-45",
        "0b101",
        "0b2",
        "1__2",
        "_1",
        "1_",
    ],
    *[
        "0x_1",
        "0.0",
        "1,000",
        "1e",
        "e3",
        "0o",
        "0o8",
        "08",
        "09.5",
        "1.5.6",
        "+",
        "Infinity",
        "NaN",
        "1_0.5",
        "0.1_2",
        ".1e3",
        "1e+03",
    ],
    *[
        "0x1f_ff",
        "10.0.0.1",
        "10.0.0.0/8",
        "00:11:22:33:44:55",
        "25G",
        "swp1-4",
        "Ethernet0",
        "9216",
        "-1",
        "1.0",
    ],
    "2001-12-14 21:59:43.10 -5",
    "2001-12-14t21:59:43.10-05:00",
    "",
    "'1'",
    '"true"',
    "'on'",
]


def ruamel_value(text: str) -> Any:
    return YAML(typ="rt").load(text)["k"]


def fast_value(text: str) -> Any:
    return yamlc.load(text)["k"]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


def plain(value: Any) -> Any:
    """ruamel's scalar subclasses (ScalarInt, ScalarFloat, ...) as the plain type."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def check(scalar: str) -> None:
    text = f"k: {scalar}\n"
    try:
        expected = plain(ruamel_value(text))
    except Exception:
        with pytest.raises(yamlc.Unusual):
            fast_value(text)
        return
    try:
        got = fast_value(text)
    except yamlc.Unusual:
        return  # left to ruamel: always allowed
    assert isinstance(expected, datetime.date | type(None) | bool | int | float | str)
    assert same(got, expected), (scalar, got, expected)


@pytest.mark.parametrize("scalar", SCALARS)
def test_scalar_like_ruamel(scalar: str) -> None:
    check(scalar)


def test_common_scalars_are_read_not_left_to_ruamel() -> None:
    read = {s: fast_value(f"k: {s}\n") for s in ("010", "1.5", "on", "true", "~", "2025-12-31")}
    assert read == {
        "010": 10,
        "1.5": 1.5,
        "on": "on",
        "true": True,
        "~": None,
        "2025-12-31": datetime.date(2025, 12, 31),
    }


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789+-._eExXoObB:aZ ~tnf", min_size=1, max_size=8))
def test_generated_scalars_like_ruamel(scalar: str) -> None:
    if scalar != scalar.strip() or scalar.startswith(("-", "?", ":", "~ ")):
        scalar = f"'{scalar}'"
    check(scalar)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a: 1\na: 2\n", "duplicate key"),
        ("a: &x {b: 1}\nc:\n  <<: *x\n", "key <<"),
        ("? [a]\n: 1\n", "complex key"),
        ("a: !!int '3'\n", "tag"),
        ("%YAML 1.1\n---\na: yes\n", "directive"),
        ("a:\t1\n", "tab"),
        ("a: [1\n", "libyaml"),
        ("a: 1_000\n", "number"),
    ],
)
def test_unusual_documents_are_left_to_ruamel(text: str, why: str) -> None:
    with pytest.raises(yamlc.Unusual, match=why):
        yamlc.load(text)


def test_positions_like_ruamel() -> None:
    text = "top:\n  a: 1\n  b:\n    - x\n    - {c: 2}\nlist: [1, 2]\n"
    ours, theirs = yamlc.load(text), YAML(typ="rt").load(text)
    for key in ("top", "list"):
        assert ours.lc.key(key) == tuple(theirs.lc.key(key))
        assert ours.lc.value(key) == tuple(theirs.lc.value(key))
    for key in ("a", "b"):
        assert ours["top"].lc.key(key) == tuple(theirs["top"].lc.key(key))
    for index in (0, 1):
        assert ours["top"]["b"].lc.item(index) == tuple(theirs["top"]["b"].lc.item(index))
    assert (ours["top"].lc.line, ours["top"].lc.col) == (
        theirs["top"].lc.line,
        theirs["top"].lc.col,
    )


def test_aliases_are_shared_not_copied() -> None:
    doc = yamlc.load("a: &x {b: [1, 2]}\nc: *x\n")
    assert doc["a"] is doc["c"]


def test_alias_events() -> None:
    assert list(yamlc.alias_events("a: &x 1\nb: *x\n")) == [("x", 1, 3)]
    assert list(yamlc.alias_events("a: 1\n")) == []


def _positions(node: Any, path: tuple[Any, ...] = ()) -> dict[Any, Any]:
    out: dict[Any, Any] = {path: (node.lc.line, node.lc.col)}
    if isinstance(node, yamlc.PosMap):
        for key, value in node.items():
            out[(*path, key, "k")] = node.lc.key(key)
            out[(*path, key, "v")] = node.lc.value(key)
            if isinstance(value, yamlc.PosMap | yamlc.PosSeq):
                out.update(_positions(value, (*path, key)))
    else:
        for index, value in enumerate(node):
            out[(*path, index, "i")] = node.lc.item(index)
            if isinstance(value, yamlc.PosMap | yamlc.PosSeq):
                out.update(_positions(value, (*path, index)))
    return out


def test_lab_inventory_reads_alike_with_either_reader() -> None:
    text = (ROOT / "inventories" / "lab" / "inventory.yaml").read_text(encoding="utf-8")
    fast, slow = yamlc.load(text), yamlc.adopt(YAML(typ="rt").load(text))
    assert fast == slow
    assert _positions(fast) == _positions(slow)


def _graph(node: Any, seen: dict[int, int] | None = None) -> Any:
    """A node graph spelled out (tag, value, line, column); a node met again is its index."""
    seen = {} if seen is None else seen
    if node is None:
        return None
    if id(node) in seen:
        return ("again", seen[id(node)])
    seen[id(node)] = len(seen)
    mark = node.start_mark
    value = node.value
    if isinstance(value, list):
        value = [
            tuple(_graph(part, seen) for part in item)
            if isinstance(item, tuple)
            else _graph(item, seen)
            for item in value
        ]
    return (node.tag, value, mark.line, mark.column)


def _repo_yaml_texts() -> list[str]:
    root = ROOT
    texts = []
    for pattern in ("inventories/**/*.yaml", "tests/**/*.yaml", "tests/**/*.yml"):
        texts += [p.read_text(encoding="utf-8", errors="replace") for p in root.glob(pattern)]
    return texts


@pytest.mark.skipif(not yamlc.available(), reason="libyaml not installed")
def test_the_event_composer_builds_libyamls_node_graph() -> None:
    """compose() builds from libyaml's events the graph ``get_single_node`` composes (tags,
    values, start lines and columns, aliases as the anchor's node), or raises Unusual where
    libyaml's composer raised."""
    import yaml

    texts = [
        *_repo_yaml_texts(),
        "a: 1\nb: [1, 2, {c: d}]\n",
        "- &x {a: 1}\n- *x\n- &y [1, *x]\n- *y\n",
        "",
        "x\n",
        "--- 'q'\n",
        "a:\n  - 1\n  - b: 2\n    c: 'q'\n  -\n",
        "--- a\n--- b\n",
        "a: *nope\n",
        "a: &x 1\nb: &x 2\n",
        "a: [1, 2\n",
    ]
    loader_class = yamlc._loader()
    assert len(texts) > 20
    for text in texts:
        try:
            mine = _graph(yamlc.compose(text))
        except yamlc.Unusual:
            mine = "unusual"
        if "\t" in text or "%" in text or "!" in text:
            continue  # refused before composing
        loader = loader_class(text)
        try:
            theirs = _graph(loader.get_single_node())
        except yaml.YAMLError:
            theirs = "unusual"
        finally:
            loader.dispose()
        assert mine == theirs, text[:200]
