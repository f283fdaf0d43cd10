"""NVUE YAML read from libyaml events (nvue_stream) gives what the composed reader gave."""

from __future__ import annotations

from typing import Any

import pytest

from rocetune import yamlc
from rocetune.errors import ParseError
from rocetune.platforms.cumulus import nvue_yaml
from rocetune.platforms.cumulus.nvue_stream import load_events
from rocetune.platforms.cumulus.tree import ConfigTree, Issues

pytestmark = pytest.mark.skipif(not yamlc.available(), reason="needs PyYAML with libyaml")

HEAD = "- header:\n    rev-id: 1.0\n    version: Cumulus Linux 5.9.1\n"
DOCUMENTS = {
    "block": HEAD
    + "- set:\n    interface:\n      swp1:\n        link:\n          mtu: 9216\n"
    + "          state:\n            down: {}\n        type: swp\n    system:\n      hostname: a\n",
    "flow": HEAD + "- set: {interface: {swp1: {link: {mtu: 9216, state: {up: {}}}}, swp2: {}}}\n",
    "several items": HEAD
    + "- set:\n    interface:\n      swp1: {link: {mtu: 9000}}\n    qos: {roce: {enable: on}}\n"
    + "- set:\n    interface:\n      swp1: {link: {speed: 100G}}\n      swp2: {type: swp}\n"
    + "- unset:\n    interface:\n      swp2: {}\n- set:\n    qos: {roce: {enable: off}}\n",
    "sequences": HEAD + "- set:\n    x:\n      - a: 1\n        b: 2\n      - [1, 2]\n      - c\n",
    "multi-line": HEAD + "- set:\n    system:\n      message: |\n        hello\n        world\n",
    "scalars": HEAD
    + "- set:\n    v: {a: 1, b: 1.5, c: -0.0, g: true, h: null, k: 2025-12-31, l: on, n: 010}\n"
    + "    true: {no: 2, yes: 3}\n",
    "odd items": HEAD + "- 12\n- [a, b]\n- set:\n    system: {hostname: x}\n- foo: 1\n"
    "- set: ~\n- set: [1]\n- set: 5\n- header: 5\n",
    "empty": "",
    "shared then merged": HEAD
    + "- set:\n    interface:\n      swp1: {link: {mtu: 9216, state: {up: {}}}, type: swp}\n"
    + "      swp2: {link: {mtu: 9216, state: {up: {}}}, type: swp}\n"
    + "- set:\n    interface:\n      swp1:\n        link:\n          state: {down: {}}\n",
    "shared then unset": HEAD
    + "- set:\n    interface:\n      swp1: {link: {mtu: 9216, state: {up: {}}}, type: swp}\n"
    + "      swp2: {link: {mtu: 9216, state: {up: {}}}, type: swp}\n"
    + "- unset:\n    interface:\n      swp1:\n        link:\n          mtu: {}\n",
    "one name twice": HEAD + "- set:\n    x:\n      1: a\n      '1': {b: 2}\n",
    # every text read twice or more, as a key and a value, plain and quoted (the second
    # reading comes from the reader's caches)
    "texts read again": HEAD
    + "- set:\n    a: {1: 1, '1': '1', x: 01, y: \"1\", z: 1.0, t: true, n: ~, d: 2025-12-31}\n"
    + "    b: {1: 1, '1': '1', x: 01, y: \"1\", z: 1.0, t: true, n: ~, d: 2025-12-31}\n"
    + "    c: {'x': x, true: x, 'true': true, null: a, -0.0: -0.0, z: 0.0}\n"
    + "    e: {x: 'x', a: .nan, b: .nan, .nan: 1, .nan: 2, on: on}\n"
    + "    f: {'on': {on: [on, 'on']}}\n",
}


def _dump(tree: ConfigTree, issues: Issues) -> tuple[Any, ...]:
    lines = sorted(tree.line_items()) if hasattr(tree, "line_items") else sorted(tree.lines.items())
    return repr(tree.root), tree.header, lines, [repr(i) for i in issues.items]


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_events_read_what_the_composed_graph_read(name: str) -> None:
    text = DOCUMENTS[name]
    streamed, composed = Issues("x.yaml"), Issues("x.yaml")
    tree = load_events(text, "x.yaml", streamed)
    assert tree is not None
    assert _dump(tree, streamed) == _dump(nvue_yaml._load_fast(text, "x.yaml", composed), composed)


def test_a_revision_list_is_never_composed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str) -> None:
        raise AssertionError("composed")

    monkeypatch.setattr(yamlc, "compose", refuse)
    tree = nvue_yaml.load_yaml(DOCUMENTS["block"], "x.yaml", Issues("x.yaml"))
    assert tree.get(("interface", "swp1", "link", "mtu")) == 9216
    assert tree.line(("interface", "swp1", "link", "mtu")) == 8


@pytest.mark.parametrize(
    "text",
    [
        HEAD + "- set:\n    interface:\n      swp1: &l {mtu: 1}\n      swp2: *l\n",
        "set:\n  system: {hostname: a}\n",
    ],
)
def test_anchors_and_other_documents_are_left_to_the_composed_reader(text: str) -> None:
    assert load_events(text, "x.yaml", Issues("x.yaml")) is None


@pytest.mark.parametrize(
    ("tail", "unusual"),
    [("", False), ("    y: [1, 2\n", True), ("    y: *q\n", True), ("---\n- set: {}\n", True)],
)
def test_budget_overflow_reads_the_rest_first(tail: str, unusual: bool) -> None:
    text = HEAD + "- set:\n    x: [" + ",".join(["1"] * 40_000) + "]\n" + tail
    if unusual:  # the composed reader would have handed this text to ruamel
        with pytest.raises(yamlc.Unusual):
            load_events(text, "x.yaml", Issues("x.yaml"))
    else:
        with pytest.raises(ParseError, match="alias bomb"):
            load_events(text, "x.yaml", Issues("x.yaml"))


def test_unparsed_items_are_recorded_only_once_read_whole() -> None:
    issues = Issues("x.yaml")
    with pytest.raises(yamlc.Unusual):
        load_events(HEAD + "- foo: 1\n- set: {a: 0x1F}\n", "x.yaml", issues)
    assert issues.items == []


def test_equal_ports_are_held_once() -> None:
    ports = "".join(
        f"      swp{i}:\n        link:\n          mtu: 9216\n        type: swp\n"
        for i in range(1, 101)
    )
    tree = load_events(HEAD + "- set:\n    interface:\n" + ports, "x.yaml", Issues("x.yaml"))
    assert tree is not None
    interfaces = tree.root["interface"]
    assert len(interfaces) == 100
    assert len({id(port) for port in interfaces.values()}) == 1
    (shape,) = tree.shapes
    ports_shape = shape.children[shape.find("interface") or 0]
    assert ports_shape is not None
    assert len({id(c) for c in ports_shape.children}) == 1
    assert tree.line(("interface", "swp100", "link", "mtu")) == 6 + 4 * 99 + 2
    assert tree.line(("interface", "swp100", "link", "nope")) == 6 + 4 * 99 + 1
    assert tree.key_line(("interface", "swp100", "link", "nope")) is None


def test_a_later_set_item_does_not_change_a_shared_subtree() -> None:
    tree = load_events(DOCUMENTS["shared then merged"], "x.yaml", Issues("x.yaml"))
    assert tree is not None
    assert tree.get(("interface", "swp1", "link", "state")) == {"up": {}, "down": {}}
    assert tree.get(("interface", "swp2", "link", "state")) == {"up": {}}
    assert tree.line(("interface", "swp1", "link", "state", "down")) == 12
    assert tree.line(("interface", "swp2", "link", "state", "up")) == 7


def test_equal_mappings_are_one_object_and_others_are_not() -> None:
    values = ["1", "01", "'1'", "true", "1.0", "0.0", "-0.0", "~", "null", "{}", "[]", "x", "'x'"]
    text = HEAD + "- set:\n" + "".join(f"    k{i}: {{a: {v}}}\n" for i, v in enumerate(values))
    tree = load_events(text, "x.yaml", Issues("x.yaml"))
    assert tree is not None
    ids = {values[i]: id(tree.root[f"k{i}"]) for i in range(len(values))}
    shared = [("1", "01"), ("~", "null"), ("{}", "{}"), ("x", "'x'")]
    assert all(ids[a] == ids[b] for a, b in shared)
    held = {ids[v] for v in values if v not in {"01", "null", "'x'"}}
    assert len(held) == len(values) - 3  # 1 / '1' / true / 1.0, 0.0 / -0.0, [] each its own


def test_a_cached_key_is_still_a_duplicate() -> None:
    with pytest.raises(yamlc.Unusual, match="duplicate key"):
        load_events(HEAD + "- set:\n    a: {x: 1}\n    b: {x: 1, y: 2, x: 3}\n", "x", Issues("x"))
    with pytest.raises(yamlc.Unusual, match="duplicate key"):
        load_events(HEAD + "- set:\n    a: {1: 1}\n    b: {true: 1, 1: 2}\n", "x", Issues("x"))
