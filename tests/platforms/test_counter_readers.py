"""The switch counter readers (apply's counter gate) on real outputs (tests/fixtures/counters).

Each test checks numbers read from the file, so a reader that returned zeros or dropped a
column fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.model import Device, Port
from rocetune.platforms import get_driver
from rocetune.platforms.counters import by_priority, slot, table_rows
from rocetune.platforms.cumulus import counters as nvue
from rocetune.platforms.eos import counters as eos
from rocetune.platforms.nxos import counters as nxos
from rocetune.platforms.sonic import counters as sonic

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "counters"


def text(name: str) -> str:
    """A fixture without the prompt line netmiko strips."""
    lines = (FIX / name).read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if "@" not in line.split(" ", 1)[0]) + "\n"


def switch(platform: str, ports: dict[str, Port]) -> Device:
    return Device(name="sw1", kind="switch", platform=platform, ports=ports)


def test_every_transaction_platform_has_a_counter_reader() -> None:
    for name in ("sonic", "cumulus", "eos", "nxos"):
        driver = get_driver(name)
        assert driver is not None, name
        assert driver.counter_reader is not None, name


def test_sonic_real_pfc_counters_and_pfcwd_stats() -> None:
    dev = switch("sonic", {})
    got = sonic.parse(
        dev,
        {
            sonic.PFC: text("sonic_real_z9332_show_pfc_counters_tx.txt"),
            sonic.PFCWD: text("sonic_real_z9332_show_pfcwd_stats.txt"),
            sonic.QUEUES: None,
        },
    )
    by = {c.port: c for c in got}
    assert sorted(by) == [f"Ethernet{i}" for i in (0, 10, 2, 4, 6, 8)]
    assert by["Ethernet6"].pfc_tx_by_priority == {
        0: 0,
        1: 0,
        2: 0,
        3: 15437,
        4: 0,
        5: 0,
        6: 0,
        7: 0,
    }
    assert by["Ethernet6"].pfc_rx_by_priority is None  # only the Tx table was printed
    assert by["Ethernet4"].storm_events == 2
    assert by["Ethernet6"].storm_events == 2
    assert by["Ethernet0"].storm_events == 0  # watchdog table read, no row: no storm
    assert by["Ethernet0"].discards_by_priority is None  # queue counters not read


def test_sonic_queue_counters_map_queues_to_priorities() -> None:
    ports = {"Ethernet0": Port(name="Ethernet0", priority_to_tc={3: 3, 4: 4}, tc_to_queue={3: 5})}
    got = sonic.parse(
        switch("sonic", ports),
        {sonic.QUEUES: text("sonic_utilities_show_queue_counters.txt")},
    )
    by = {c.port: c for c in got}
    drops = by["Ethernet0"].discards_by_priority
    assert drops is not None
    assert drops[3] == 35  # priority 3 -> TC 3 -> queue 5 (UC5 Drop/pkts 35)
    assert drops[4] == 12  # priority 4 -> TC 4 -> queue 4 (UC4)
    assert drops[0] == 0
    assert drops[7] == 94
    assert by["Ethernet4"].discards_by_priority is not None
    assert by["Ethernet4"].discards_by_priority[3] == 48
    assert by["Ethernet0"].pfc_tx_by_priority is None
    assert by["Ethernet0"].storm_events is None


def test_sonic_rejects_an_unknown_table() -> None:
    with pytest.raises(ValueError, match="Port Rx"):
        sonic.parse(switch("sonic", {}), {sonic.PFC: "% Error: no such command\n"})


def test_nvue_real_counters_qos_and_watchdog() -> None:
    ports = {"swp1": Port(name="swp1", pfc_rx=(3,), pfc_tx=(3,))}
    dev = switch("cumulus", ports)
    assert nvue.commands(dev) == (
        "nv show interface swp1 counters qos",
        "nv show interface swp1 qos pfc-watchdog",
    )
    got = nvue.parse(
        dev,
        {
            nvue.qos_command("swp1"): text("nvue_cl512_nv_show_interface_swp1_counters_qos.txt"),
            nvue.watchdog_command("swp1"): text(
                "nvue_cl512_nv_show_interface_swp1_qos_pfc_watchdog.txt"
            ),
        },
    )
    (c,) = got
    assert c.pfc_rx_by_priority == dict.fromkeys(range(8), 0)
    assert c.pfc_tx_by_priority == dict.fromkeys(range(8), 0)
    assert c.discards_by_priority == dict.fromkeys(range(8), 0)
    assert c.storm_events == 8  # deadlock counts 3 (TC1) + 2 (TC2) + 3 (TC7)


def test_nvue_sizes_and_growth() -> None:
    qos = text("nvue_cl512_nv_show_interface_swp1_counters_qos.txt").replace(
        "    3              0          0 Bytes   0 Bytes                0",
        "    3              9          1 KB      2 KB                   4",
    )
    (c,) = nvue.parse(
        switch("cumulus", {"swp1": Port(name="swp1")}), {nvue.qos_command("swp1"): qos}
    )
    assert c.discards_by_priority is not None
    assert c.discards_by_priority[3] == 2048 + 4
    assert c.storm_events is None
    # a module table without an egress Dropped/Pkts row is unknown, never "0 drops"
    with pytest.raises(ValueError, match="Dropped"):
        nxos.dropped('{"TABLE_module": {"ROW_module": {"TABLE_queuing_interface": {}}}}')
    assert nvue.amount("56.52 MB") == round(56.52 * 1024**2)
    with pytest.raises(ValueError, match="not a counter"):
        nvue.amount("lots")


def test_eos_watchdog_json_shape() -> None:
    ports = {
        "Ethernet1": Port(name="Ethernet1", pfc_rx=(3,)),
        "Ethernet2": Port(name="Ethernet2", pfc_rx=(3,)),
    }
    got = eos.parse(
        switch("eos", ports),
        {eos.WATCHDOG: (FIX / "eos_shape_show_pfc_counters_watchdog.json").read_text()},
    )
    assert {c.port: c.storm_events for c in got} == {"Ethernet1": 2, "Ethernet2": 0}
    assert all(c.discards_by_priority is None for c in got)
    assert eos.READER.unread  # drops are named as not read
    with pytest.raises(ValueError, match="interfaces"):
        eos.parse(switch("eos", ports), {eos.WATCHDOG: "[]"})
    # the layout is unverified: an interface listed with other keys is unknown, never 0
    other = '{"interfaces": {"Ethernet1": {"queues": {"3": {"stuck": 4}}}}}'
    with pytest.raises(ValueError, match="txQueues"):
        eos.parse(switch("eos", ports), {eos.WATCHDOG: other})
    renamed = '{"interfaces": {"Ethernet1": {"txQueues": {"3": {"stuckEvents": 4}}}}}'
    with pytest.raises(ValueError, match="stuckCount"):
        eos.parse(switch("eos", ports), {eos.WATCHDOG: renamed})


def test_nxos_queuing_json_shape() -> None:
    ports = {"Ethernet1/1": Port(name="Ethernet1/1", pfc_mode="on", priority_to_tc={3: 3})}
    dev = switch("nxos", ports)
    assert nxos.commands(dev) == ("show queuing interface Ethernet1/1 | json",)
    raw = (FIX / "nxos_shape_show_queuing_interface_json.json").read_text()
    assert nxos.dropped(raw) == {0: 5, 3: 21}
    (c,) = nxos.parse(dev, {nxos.queuing_command("Ethernet1/1"): raw})
    assert c.discards_by_priority is not None
    assert c.discards_by_priority[3] == 21
    assert c.discards_by_priority[0] == 5
    assert c.storm_events is None


def test_slot_and_by_priority_follow_the_port_maps() -> None:
    port = Port(name="p", pfc_priority_to_queue={3: 6}, priority_to_tc={4: 1}, tc_to_pg={1: 2})
    assert slot(port, 3, "queue") == 6
    assert slot(port, 4, "pg") == 2
    assert slot(None, 5, "queue") == 5
    assert by_priority({6: 10}, port, "queue") == {3: 10, 6: 10}  # 6 -> TC 6 -> queue 6
    assert by_priority({}, port, "queue") is None


def test_table_rows_headers() -> None:
    rows = table_rows("  A  B\n---  ---\n  1  2\n")
    assert rows == [["#header", "A", "B"], ["1", "2"]]
