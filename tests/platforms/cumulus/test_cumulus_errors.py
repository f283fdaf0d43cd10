"""Invalid input: ParseError with the line for unreadable files, Unparsed items otherwise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocetune.errors import ParseError
from rocetune.snapshot import Snapshot
from tests.platforms.cumulus.cumulus_helpers import DRIVER, device, nvue, parse_text


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("- set:\n    qos:\n      roce: [on\n    system: {}\n", 4),  # unclosed flow list
        ("- set:\n    qos:\n      roce: {}\n      roce: {}\n", 4),  # duplicate key
        ("- set:\n\tqos: {}\n", 2),  # tab indentation
    ],
)
def test_invalid_yaml_raises_parse_error_with_line(text: str, line: int) -> None:
    with pytest.raises(ParseError) as caught:
        parse_text(text, "bad.yaml")
    assert caught.value.file == "bad.yaml"
    assert caught.value.line == line
    assert "invalid YAML" in caught.value.message


def test_missing_configuration_raises() -> None:
    with pytest.raises(ParseError):
        DRIVER.parse(Snapshot(files={}, origin="snap/leaf1"), "leaf1", None)


def _items(text: str) -> list[tuple[str, int | None]]:
    return [(u.item, u.line) for u in device(text).unparsed]


def test_wrong_link_types_become_unparsed_and_unknown() -> None:
    text = nvue("""
        interface:
          swp1:
            link:
              mtu: jumbo
              speed: fast
              state: sideways
        """)
    port = device(text).ports["swp1"]
    assert (port.mtu, port.speed_mbps, port.admin_up) == (None, None, None)
    assert _items(text) == [
        ("interface.swp1.link.mtu", 7),
        ("interface.swp1.link.speed", 8),
        ("interface.swp1.link.state", 9),
    ]


WRONG_QOS = """
interface:
  swp1:
    type: swp
qos:
  roce: yes please
  mapping:
    default-global:
      trust: maybe
      dscp:
        99:
          switch-priority: 3
  pfc:
    default-global:
      switch-priority: nine
      rx: sometimes
  congestion-control:
    default-global:
      traffic-class:
        3:
          min-threshold: lots
  egress-scheduler: [1, 2]
  traffic-pool:
    roce-lossless:
      memory-percent: 250
  pfc-watchdog:
    polling-interval: -5
"""


def test_wrong_qos_types_become_unparsed_and_unknown() -> None:
    dev = device(nvue(WRONG_QOS))
    port = dev.ports["swp1"]
    assert port.trust is None
    assert port.dscp_to_priority is None
    assert port.pfc_rx is None
    assert port.pfc_tx is None
    assert port.ecn is not None
    assert port.ecn[3].min_threshold_bytes is None
    assert port.schedulers is not None  # the unreadable egress-scheduler is ignored
    assert dev.buffer_pools is not None
    assert dev.buffer_pools["roce-lossless"].percent is None
    assert dev.watchdog_poll_ms is None
    assert set(_items(nvue(WRONG_QOS))) == {
        ("qos.roce", 8),
        ("qos.mapping.default-global.trust", 11),
        ("qos.mapping.default-global.dscp.99", 13),
        ("qos.pfc.default-global.switch-priority", 17),
        ("qos.pfc.default-global.rx", 18),
        ("qos.congestion-control.default-global.traffic-class.3.min-threshold", 23),
        ("qos.egress-scheduler", 24),
        ("qos.traffic-pool.roce-lossless.memory-percent", 27),
        ("qos.pfc-watchdog.polling-interval", 29),
    }


def test_unknown_keys_and_bad_bindings() -> None:
    text = nvue("""
        interface:
          swp1:
            qos:
              pfc:
                profile: nope
              frobnicate: 1
          bond1:
            bond:
              member:
                swp2: {}
            qos:
              pfc:
                profile: x
          swp[1:
            type: swp
        qos:
          shaping-magic: {}
          egress-queue-mapping:
            other: {}
        """)
    dev = device(text)
    assert dev.ports["swp1"].pfc_tx is None
    assert dev.ports["swp2"].pfc_tx == ()
    assert set(_items(text)) == {
        ("interface.swp1.qos.pfc.profile", 8),
        ("interface.swp1.qos.frobnicate", 9),
        ("interface.bond1.qos.pfc.profile", 16),
        ("interface.swp[1", 17),
        ("qos.shaping-magic", 20),
        ("qos.egress-queue-mapping.other", 22),
    }


@pytest.mark.parametrize(
    "text",
    [
        "just a string\n",
        "42\n",
        "- 1\n- 2\n",
        "- set: 7\n",
        "- set:\n    interface: [swp1]\n    qos: 3\n    system: [x]\n",
        "- set:\n    interface:\n      swp1: 7\n      swp2:\n        link: 9\n        qos: []\n",
        "{}\n",
        "- set:\n    qos:\n      roce:\n        mode: [lossy]\n      pfc: {a: 1}\n",
    ],
)
def test_garbage_never_raises(text: str) -> None:
    dev = device(text)
    assert dev.platform == "cumulus"


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-10, max_value=100_000),
    st.text(max_size=6),
    st.sampled_from(["on", "off", "enable", "100G", "0-3,5-7", "alpha_2", "dwrr", "strict"]),
)
_KEYS = st.sampled_from(
    [
        "qos",
        "roce",
        "mode",
        "pfc",
        "default-global",
        "switch-priority",
        "rx",
        "tx",
        "traffic-class",
        "congestion-control",
        "egress-scheduler",
        "mapping",
        "dscp",
        "trust",
        "interface",
        "swp1",
        "swp1-2",
        "link",
        "mtu",
        "speed",
        "profile",
        "pfc-watchdog",
        "traffic-pool",
        "memory-percent",
        "advance-buffer-config",
        "3",
        "0,3",
    ]
)
_TREES = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.dictionaries(_KEYS, children, max_size=4), st.lists(children, max_size=3)
    ),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(_TREES)
def test_random_trees_never_raise(tree: object) -> None:
    import json

    dev = parse_text(json.dumps({"qos": tree, "interface": {"swp1": tree}})).device
    assert dev.platform == "cumulus"
