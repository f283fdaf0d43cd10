"""`nv set` command lists parse into the same model as the equivalent NVUE YAML."""

from __future__ import annotations

import pytest

from rocetune.model import Device
from rocetune.platforms.cumulus.commands_text import is_commands_text, load_commands
from rocetune.platforms.cumulus.qos import resolve_qos
from rocetune.platforms.cumulus.tree import Issues
from tests.platforms.cumulus.cumulus_helpers import FIXTURES, device, parse_fixture


def _same_model(a: Device, b: Device) -> None:
    assert a.ports == b.ports
    assert a.hostname == b.hostname
    assert a.buffer_pools == b.buffer_pools
    assert a.watchdog_poll_ms == b.watchdog_poll_ms
    assert [u.item for u in a.unparsed] == [u.item for u in b.unparsed]


@pytest.mark.parametrize(
    ("yaml_name", "commands_name"),
    [
        ("roce_leaf.yaml", "roce_leaf_commands.txt"),
        ("explicit_profiles_leaf.yaml", "explicit_profiles_leaf_commands.txt"),
    ],
)
def test_commands_equal_yaml(yaml_name: str, commands_name: str) -> None:
    from_yaml = parse_fixture(yaml_name).device
    from_commands = parse_fixture(commands_name).device
    _same_model(from_yaml, from_commands)
    assert from_commands.facts["nvue.source"] == "commands"
    assert from_yaml.facts["nvue.source"] == "yaml"


def test_commands_provenance_points_at_the_command_line() -> None:
    prov = parse_fixture("roce_leaf_commands.txt").provenance
    lines = {path: ref.line for path, ref in prov.refs.items()}
    assert lines["ports.swp1"] == 10  # first `nv set interface swp1-4 ...`
    assert lines["ports.swp1.mtu"] == 10
    assert lines["ports.swp1.speed_mbps"] == 11
    assert lines["ports.swp1.watchdog"] == 14
    assert lines["hostname"] == 4


def test_unset_removes_configuration() -> None:
    text = (
        "nv set interface swp1 type swp\n"
        "nv set qos roce\n"
        "nv set qos roce mode lossy\n"
        "nv unset qos roce mode\n"
        "nv set interface swp1 qos pfc-watchdog\n"
        "nv unset interface swp1 qos pfc-watchdog\n"
    )
    dev = device(text)
    assert dev.facts["nvue.roce_mode"] == "lossless"
    assert dev.ports["swp1"].watchdog is not None
    assert dev.ports["swp1"].watchdog.enabled is False
    assert device(text + "nv unset qos roce\n").facts["nvue.roce_mode"] == "off"


def test_roce_without_mode_keeps_the_mode() -> None:
    text = "nv set qos roce mode lossy\nnv set qos roce\nnv set interface swp1 type swp\n"
    assert device(text).facts["nvue.roce_mode"] == "lossy"


@pytest.mark.parametrize(
    ("nclu", "mode"),
    [
        ("cumulus@switch:~$ net add roce lossless\ncumulus@switch:~$ net commit\n", "lossless"),
        ("net add roce lossy\nnet commit\n", "lossy"),
        ("net add roce lossless\nnet del roce\n", "off"),
    ],
)
def test_nclu_roce_one_shots_read_as_their_nvue_twins(nclu: str, mode: str) -> None:
    """Cumulus 4.4 documents `net add roce lossless|lossy` / `net del roce` as `nv set qos
    roce [mode lossy]` / `nv unset qos roce`: read, not RT001."""
    assert is_commands_text(nclu)
    dev = device(nclu + "net add interface swp1 mtu 9216\n")
    assert dev.facts["nvue.roce_mode"] == mode
    assert [u.line for u in dev.unparsed] == [3]  # the other NCLU line is still reported


def test_read_only_commands_are_skipped_and_unknown_nv_lines_reported() -> None:
    text = (
        "nv set interface swp1 type swp\nnv set qos roce\nnv show qos roce\n"
        "nv sett qos pfc default-global switch-priority 4\n"
    )
    assert is_commands_text(text)
    dev = device(text)
    assert [(u.item, u.line) for u in dev.unparsed] == [
        ("nv sett qos pfc default-global switch-priority 4", 4)
    ]
    assert dev.ports["swp1"].pfc_tx == (3,)
    assert dev.facts["nvue.skipped_lines"] == "1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nv set qos roce\n", True),
        ("cumulus@switch:mgmt:~$ nv set qos roce\ncumulus@switch:mgmt:~$ nv config apply\n", True),
        ("# comment\n\nnv unset qos roce\n", True),
        ("nv config apply\n", False),
        ("nv set qos roce\nnet add interface swp1 mtu 9216\n", True),
        ("nv show qos roce\nnet add interface swp1 mtu 9216\n", False),
        ("", False),
    ],
)
def test_is_commands_text(text: str, expected: bool) -> None:
    assert is_commands_text(text) is expected


def test_collections_and_presence_keys() -> None:
    issues = Issues("mem")
    tree = load_commands(
        "nv set qos pfc default-global switch-priority 3\n"
        "nv set qos mapping default-global dscp 10,21,36 switch-priority 0\n"
        "nv set qos egress-queue-mapping default-global switch-priority 4 traffic-class 3\n"
        "nv set qos congestion-control p1 traffic-class 4,5,7 min-threshold 40000\n"
        "nv set interface swp1-4,swp6 qos link-pause profile my_pause_ports\n"
        "nv set system message pre-login 'hello world'\n",
        issues,
    )
    assert tree.root["qos"]["pfc"] == {"default-global": {"switch-priority": {"3": {}}}}
    assert tree.root["qos"]["mapping"]["default-global"]["dscp"] == {
        "10,21,36": {"switch-priority": "0"}
    }
    assert tree.root["qos"]["egress-queue-mapping"]["default-global"]["switch-priority"] == {
        "4": {"traffic-class": "3"}
    }
    assert tree.root["qos"]["congestion-control"]["p1"]["traffic-class"] == {
        "4,5,7": {"min-threshold": "40000"}
    }
    assert tree.root["interface"]["swp1-4,swp6"]["qos"]["link-pause"] == {
        "profile": "my_pause_ports"
    }
    assert tree.root["system"]["message"]["pre-login"] == "hello world"
    assert issues.items == []


def test_corpus_nv_set_file_resolves() -> None:
    """The NVIDIA doc command blocks, applied in file order (copied from the corpus)."""
    text = (FIXTURES / "corpus_cl512_nv_set_roce_tuning_commands.txt").read_text()
    assert is_commands_text(text)
    issues = Issues("corpus")
    tree = load_commands(text, issues)
    plan = resolve_qos(tree, issues)
    assert issues.items == []
    assert plan.roce_mode == "lossless-single-ipool"
    assert plan.sp_to_tc.values["priority_to_tc"] == {
        0: 0,
        1: 0,
        2: 3,
        3: 0,
        4: 3,
        5: 0,
        6: 6,
        7: 0,
    }
    mapping = plan.mappings["default-global"].values
    assert mapping["trust"] == "both"
    assert mapping["dscp_to_priority"][26] == 2
    assert plan.pfc["default-global"].priorities == (2,)
    assert plan.pfc["default-global"].cable_m == 100.0
    assert {n: (p.percent, p.priorities, p.lossless) for n, p in plan.pools.items()} == {
        "default-lossy": (40.0, (0, 1, 2, 3, 5, 6, 7), False),
        "roce-lossless": (60.0, (3,), True),
        "roce-lossy": (60.0, (4,), False),
    }
    dev = parse_fixture("corpus_cl512_nv_set_roce_tuning_commands.txt").device
    # no interface: one template port stands for every swp port (global profiles only)
    assert list(dev.ports) == ["swp*"]
    assert dev.ports["swp*"].template
    assert dev.ports["swp*"].mtu is None
    assert dev.ports["swp*"].pfc_tx == (2,)
    assert dev.unparsed == ()
