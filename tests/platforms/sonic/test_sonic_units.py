"""Driver contract, detection edge cases, ASIC family and value readers."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.asic import asic_family
from rocetune.platforms.sonic.commands import CONFIG_DB, LLDP, PFC_PRIORITY
from rocetune.platforms.sonic.parse import parse_text
from rocetune.platforms.sonic.tables import Entry
from rocetune.platforms.sonic.values import (
    At,
    Problems,
    parse_indexes,
    port_index_key,
    read_index_list,
    read_int,
    read_ref,
    read_text,
)


def test_driver_contract() -> None:
    driver = SONIC
    assert (SONIC.name, SONIC.kind) == ("sonic", "switch")
    assert driver.commands() == (CONFIG_DB, LLDP, PFC_PRIORITY)
    assert LLDP.filename == "docker_exec_lldp_lldpctl_f_json.json"
    assert not LLDP.required
    assert CONFIG_DB.id == "config_db"
    assert CONFIG_DB.command == "show runningconfiguration all"
    assert CONFIG_DB.encoding == "json"
    assert CONFIG_DB.filename == "show_runningconfiguration_all.json"


@pytest.mark.parametrize(
    "text",
    [
        '{"PORT": {"Ethernet0": {"speed": "100000"}}, "bgpraw": "router bgp 1"}',
        '{"PORT_QOS_MAP|Ethernet0": {"pfc_enable": "3,4"}}',
        '[{"PORT": {"Ethernet0": {}}}, {"BGP_NEIGHBOR": {}}]',
        '{"localhost": {"DEVICE_METADATA": {"localhost": {}}}, "asic0": {"PORT": {}}}',
        '\ufeff  {"BUFFER_PG": {}}',
        # Invalid JSON that is meant to be CONFIG_DB: claimed, so the parser reports the line.
        '{\n  "PORT": {"Ethernet0": {"mtu": "9100",}}\n}',
    ],
)
def test_sniff_accepts_config_db(text: str) -> None:
    assert SONIC.sniff("config_db.json", text) == CONFIG_DB


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "{",
        "[[[[",
        "[" * 100_000,
        "[]",
        "{}",
        "null",
        '{"interface": {"swp1": {"qos": {}}}}',
        '{"TABLE_interface": {"ROW_interface": []}}',
        '{"cmds": {"qos trust dscp": null}}',
        '{"QOS_CAPABILITY_TABLE|qos": {"buffer_mode": "lossless"}}',
        '{"PORT": "Ethernet0"}',
        '["PORT", "QUEUE"]',
        "[{}, 1]",
        "# speed cable size xon xoff threshold\n 10000 5m 34816 18432 16384 0\n",
        "PORT:\n  Ethernet0: {speed: 100000}\n",
        "Port      Rx PFC0  Rx PFC1\n---------  -------\nEthernet0  0  0\n",
        "\x00\x01\x02binary",
    ],
)
def test_sniff_rejects_other_text(text: str) -> None:
    assert SONIC.sniff("file", text) is None


@pytest.mark.parametrize(
    ("platform", "hwsku", "family"),
    [
        ("x86_64-mlnx_msn2700-r0", None, "spectrum1"),
        ("x86_64-mlnx_msn2410-r0", "ACS-MSN2410", "spectrum1"),
        ("x86_64-nvidia_sn2201-r0", None, "spectrum1"),
        ("x86_64-mlnx_msn3700-r0", None, "spectrum2"),
        ("x86_64-mlnx_msn3800-r0", "Mellanox-SN3800-D112C8", "spectrum2"),
        (None, "ACS-MSN3700C", "spectrum2"),
        ("x86_64-mlnx_msn4600c-r0", None, "spectrum3"),
        ("x86_64-mlnx_msn4700-r0", None, "spectrum3"),
        ("x86_64-nvidia_sn5600-r0", None, "spectrum4"),
        ("x86_64-nvidia_sn5400-r0", None, "spectrum4"),
        ("x86_64-nvidia_sn5640-r0", None, "spectrum5"),
        ("x86_64-nvidia_sn6600_ld-r0", None, "spectrum6"),
        ("x86_64-nvidia_sn5900-r0", None, None),  # not in asic_table.j2
        # sonic-buildimage platform_asic "broadcom": a shared headroom pool ASIC
        ("x86_64-dellemc_z9264f_c3538-r0", "DellEMC-Z9264f-C64", "broadcom"),
        ("x86_64-arista_7060x6_64pe", "Arista-7060X6-64PE-B-O128", "broadcom"),
        ("x86_64-accton_wedge100bf_32x-r0", None, None),  # Barefoot: not modelled
        ("multi_asic", "multi_asic", None),
        ("x86_64-foo_sn2700", None, None),  # no NVIDIA/Mellanox context
        (None, None, None),
    ],
)
def test_asic_family(platform: str | None, hwsku: str | None, family: str | None) -> None:
    assert asic_family(platform, hwsku) == family


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", [3]),
        ("3-4", [3, 4]),
        ("0-2", [0, 1, 2]),
        ("0,3-4", [0, 3, 4]),
        ("", []),
        (" 3 , 4 ", [3, 4]),
        ("4-3", None),
        ("a", None),
        ("3-", None),
        ("-1", None),
        ("64", None),
    ],
)
def test_parse_indexes(text: str, expected: list[int] | None) -> None:
    got = parse_indexes(text)
    assert got == (None if expected is None else tuple(expected))


def test_port_index_key() -> None:
    assert port_index_key("Ethernet0|3") == (("Ethernet0",), (3,))
    assert port_index_key("Ethernet0,Ethernet4|3-4") == (("Ethernet0", "Ethernet4"), (3, 4))
    assert port_index_key("Ethernet0") is None
    assert port_index_key("|3") is None
    assert port_index_key("Ethernet0|") is None


def _entry(**fields: object) -> Entry:
    return Entry("QUEUE", "Ethernet0|3", dict(fields), 10, dict.fromkeys(fields, 11))


def test_read_ref_old_and_new_syntax() -> None:
    pr = Problems("f")
    assert read_ref(_entry(s="scheduler.1"), "s", "SCHEDULER", pr) == At("scheduler.1", 11)
    assert read_ref(_entry(s="[SCHEDULER|scheduler.1]"), "s", "SCHEDULER", pr) == At(
        "scheduler.1", 11
    )
    assert read_ref(_entry(s="x"), "missing", "SCHEDULER", pr) is None
    assert pr.items == []
    assert read_ref(_entry(s="[SCHEDULAR|scheduler.1]"), "s", "SCHEDULER", pr) == At(None, 11)
    assert read_ref(_entry(s="[SCHEDULER|"), "s", "SCHEDULER", pr) == At(None, 11)
    assert read_ref(_entry(s=""), "s", "SCHEDULER", pr) == At(None, 11)
    assert read_ref(_entry(s=["a"]), "s", "SCHEDULER", pr) == At(None, 11)
    assert [u.reason for u in pr.items] == [
        "refers to table SCHEDULAR, expected SCHEDULER",
        "expected a SCHEDULER name or [SCHEDULER|name]",
        "empty SCHEDULER reference",
        "expected a string",
    ]
    assert all(u.line == 11 and u.file == "f" for u in pr.items)


def test_read_numbers_are_tri_state() -> None:
    pr = Problems("f")
    assert read_int(_entry(n="9100"), "n", pr) == At(9100, 11)
    assert read_int(_entry(n=9100), "n", pr) == At(9100, 11)
    assert read_int(_entry(n="9100"), "other", pr) is None
    assert read_int(_entry(n="9.1"), "n", pr) == At(None, 11)
    assert read_int(_entry(n=True), "n", pr) == At(None, 11)
    assert read_int(_entry(n="70000"), "n", pr, lo=1, hi=65535) == At(None, 11)
    assert read_index_list(_entry(p="4,3,3"), "p", pr) == At((3, 4), 11)
    assert read_index_list(_entry(p="8"), "p", pr) == At(None, 11)
    assert len(pr.items) == 4


def test_problems_are_deduplicated_and_sorted() -> None:
    pr = Problems("f")
    pr.add("b", "r", 5)
    pr.add("a", "r", 9)
    pr.add("b", "r", 5)
    pr.unknown_field(_entry(x="1"), "x")
    pr.unknown_field(Entry("QUEUE", "Ethernet4|3", {"x": "1"}, 20), "x")
    result = pr.result()
    assert [(u.item, u.line) for u in result] == [("b", 5), ("a", 9), ("QUEUE|Ethernet0|3 x", 11)]
    assert result[2].reason == "QUEUE field 'x' is not modelled by rocetune (2 entries)"


def test_read_numbers_keep_their_line_and_value_of_every_form() -> None:
    """The typed readers convert the field's text without an At of it: padded text, JSON
    numbers, missing fields and unreadable values give what read_text and a conversion
    give."""
    pr = Problems("f")
    assert read_int(_entry(n=" 9100 "), "n", pr) == At(9100, 11)
    assert read_int(_entry(n=None), "n", pr) == At(None, 11)
    assert read_index_list(_entry(p=" 3,4"), "p", pr) == At((3, 4), 11)
    assert read_index_list(_entry(p=[3]), "p", pr) == At(None, 11)
    assert read_index_list(_entry(p="4,3"), "other", pr) is None
    assert [u.reason for u in pr.items] == ["expected a string", "expected a string"]


def test_ports_of_a_switch_hold_one_watchdog_and_priority_tuple_per_value() -> None:
    """Ports configured alike hold one Watchdog and one PFC tuple (read once, not per port),
    equal to what each port's own would be."""
    import json

    from rocetune.model import Watchdog
    from rocetune.platforms.sonic.parse import parse_text

    names = [f"Ethernet{4 * i}" for i in range(4)]
    db = {
        "PORT": {n: {"mtu": "9100", "speed": "100000", "admin_status": "up"} for n in names},
        "PORT_QOS_MAP": {n: {"pfc_enable": "4,3"} for n in names},
        "PFC_WD": {
            n: {"detection_time": "200", "restoration_time": str(200 if i < 3 else 400)}
            for i, n in enumerate(names)
        },
    }
    ports = parse_text(json.dumps(db, indent=1), "db.json", "s1", None).device.ports
    wds = [ports[n].watchdog for n in names]
    assert wds[0] is wds[1] is wds[2]
    assert wds[0] == Watchdog(enabled=True, detection_ms=200, restoration_ms=200, action="drop")
    assert wds[3] is not None
    assert wds[3].restoration_ms == 400
    assert len({id(ports[n].pfc_tx) for n in names}) == 1
    assert ports[names[0]].pfc_tx == (3, 4)
    assert wds[0].model_fields_set == wds[3].model_fields_set


def test_at_is_a_frozen_value_with_its_line() -> None:
    """At sets its slots itself (faster than a frozen dataclass's __init__) and stays what a
    frozen dataclass is: equal by value and line, hashable, immutable, picklable."""
    at = At("x", 3)
    assert (at.value, at.line) == ("x", 3)
    assert at == At("x", 3)
    assert at != At("x", 4)
    assert hash(at) == hash(At("x", 3))
    assert repr(at) == "At(value='x', line=3)"
    assert At(value=None, line=None).value is None
    assert pickle.loads(pickle.dumps(at)) == at
    assert [f.name for f in dataclasses.fields(At)] == ["value", "line"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        at.value = "y"  # type: ignore[misc]


def test_readers_take_the_entry_line_for_a_field_without_one() -> None:
    """The readers' fast paths (a string field, line_of inlined) give a field whose line is
    None or not recorded the entry's line, as :meth:`Entry.line_of` does."""
    pr = Problems("f")
    entry = Entry("QUEUE", "Ethernet0|3", {"s": "a", "n": "7", "t": " x "}, 10, {"s": None})
    assert read_ref(entry, "s", "SCHEDULER", pr) == At("a", 10)
    assert read_int(entry, "n", pr) == At(7, 10)
    assert read_text(entry, "t", pr) == At("x", 10)
    entry.field_lines.update(s=3, n=4, t=5)
    assert read_ref(entry, "s", "SCHEDULER", pr) == At("a", 3)
    assert read_int(entry, "n", pr) == At(7, 4)
    assert read_text(entry, "t", pr) == At("x", 5)
    assert pr.items == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("-3", -3), ("007", 7), ("+3", None), ("3.0", None), ("1e3", None), ("", None), ("3 4", None)],
)
def test_read_int_of_each_text_twice(text: str, value: int | None) -> None:
    """Integers are converted through a cache of texts: the second read of a text (cached)
    gives what the first gives, and a text that is no integer is reported each time."""
    for _ in range(2):
        pr = Problems("f")
        assert read_int(_entry(n=text), "n", pr) == At(value, 11)
        assert [u.reason for u in pr.items] == (
            [] if value is not None else ["expected an integer"]
        )


def test_unknown_fields_of_buffer_and_queue_bindings_are_reported() -> None:
    """A BUFFER_PG/BUFFER_QUEUE/QUEUE entry with only the fields it binds reports nothing;
    a field beside them (or in place of them) is reported (an entry with one field is read
    without looking at its fields again)."""
    text = """{
      "BUFFER_PG": {"Ethernet0|3": {"profile": "p"}, "Ethernet4|3": {"profile": "p", "x": "1"},
                    "Ethernet8|3": {"y": "1"}},
      "BUFFER_QUEUE": {"Ethernet0|3": {"profile": "p"}, "Ethernet4|3": {"xq": "1"}},
      "QUEUE": {"Ethernet0|3": {"scheduler": "s", "wred_profile": "w"},
                "Ethernet4|3": {"scheduler": "s"}, "Ethernet8|3": {"wred_profile": "w", "z": "1"},
                "Ethernet12|3": {"scheduler": "s", "wred_profile": "w", "zz": "1"}}
    }"""
    unparsed = parse_text(text, "f", "sw", None).device.unparsed
    unknown = sorted(u.item for u in unparsed if "not modelled" in u.reason)
    assert unknown == [
        "BUFFER_PG|Ethernet4|3 x",
        "BUFFER_PG|Ethernet8|3 y",
        "BUFFER_QUEUE|Ethernet4|3 xq",
        "QUEUE|Ethernet12|3 zz",
        "QUEUE|Ethernet8|3 z",
    ]
