"""Real files as users have them: chassis keys, pasted captures, and the RT000 contract
(every unparsed item says which ports and features it may change)."""

from __future__ import annotations

import json
from collections.abc import Callable

from rocetune.platforms.base import ParseResult
from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.platforms.sonic.detect import looks_like_config_db
from rocetune.platforms.sonic.parse import parse_text
from tests.platforms.sonic.conftest import FIXTURES, snapshot_of

Parse = Callable[[str], ParseResult]
VOQ = "sb_qos_arista7800r3_48cq2_lc_voq.json"


def test_voq_keys_without_device_metadata_bind_what_every_linecard_agrees_on(
    parse_fixture: Parse,
) -> None:
    dev = parse_fixture(VOQ).device
    # every linecard gives queues 3/4 of every port WRED AZURE_LOSSLESS: true on any of them
    ecn = dev.ports["Ethernet0"].ecn
    assert ecn is not None
    assert {q: e.name for q, e in ecn.items()} == {3: "AZURE_LOSSLESS", 4: "AZURE_LOSSLESS"}
    # schedulers differ between lc3 and lc4/lc5: not bound, reported with ports and feature
    (item,) = [u for u in dev.unparsed if u.item.startswith("QUEUE")]
    assert item.item == "QUEUE scheduler"
    assert "scheduler differs" in item.reason
    assert item.features == ("scheduler",)
    assert item.ports is not None
    assert "Ethernet0" in item.ports
    assert len(item.ports) == 45
    assert dev.ports["Ethernet0"].schedulers == {}
    assert not any("|" in name for name in dev.ports)


def test_voq_keys_bind_to_the_local_linecard(parse_config: Parse) -> None:
    doc = json.loads((FIXTURES / VOQ).read_text())
    meta = {"localhost": {"hostname": "dut-lc3", "asic_name": "asic0", "switch_type": "voq"}}
    dev = parse_config(json.dumps({"DEVICE_METADATA": meta, **doc}, indent=4)).device
    assert not [u for u in dev.unparsed if u.item.startswith("QUEUE")]
    ecn = dev.ports["Ethernet0"].ecn
    assert ecn is not None
    assert set(ecn) == {3, 4}
    assert ecn[3].ecn_mark is True
    schedulers = dev.ports["Ethernet0"].schedulers
    assert schedulers is not None
    assert set(schedulers) == set(range(7))
    # lc4 and lc5 keys are remote system ports: skipped, not merged into the local ports
    assert int(dev.facts["chassis.remote_keys"]) == 4 * 48
    assert not any("|" in name for name in dev.ports)


def test_pasted_capture_with_prompt_parses_with_file_lines(parse_fixture: Parse) -> None:
    name = "su_mock_config_db_flat.json"
    text = (FIXTURES / name).read_text()
    pasted = (
        f"admin@sonic:~$ sudo show runningconfiguration all\n{text.rstrip()}\nadmin@sonic:~$ \n"
    )
    assert looks_like_config_db(pasted)
    snap_path = "capture.txt"
    got = SONIC.parse(snapshot_of(pasted, snap_path), "sw1", None)
    want = parse_fixture(name)
    assert got.device.ports == want.device.ports
    assert [u.line for u in got.device.unparsed] == [
        (u.line or 0) + 1 for u in want.device.unparsed
    ]
    assert SONIC.sniff(snap_path, pasted) == CONFIG_DB


def test_prose_around_json_is_not_a_capture() -> None:
    assert not looks_like_config_db('Here is my config:\n{"PORT": {"Ethernet0": {}}}\n')


def test_unparsed_items_name_ports_and_features(parse_fixture: Parse) -> None:
    dev = parse_fixture("su_mock_asic0_config_db_flat.json").device
    by_item = {u.item: u for u in dev.unparsed}
    brs = by_item["PFC_WD|GLOBAL BIG_RED_SWITCH=enable"]
    assert (brs.ports, brs.features) == (None, ("watchdog",))
    missing = by_item["PORT_QOS_MAP|Ethernet8"]
    assert missing.ports == ("Ethernet8",)
    assert "pfc" in missing.features
    # an invalid reference (table SCHEDULAR) is a finding on that queue's port
    bad = next(u for u in dev.unparsed if "SCHEDULAR" in u.item)
    assert bad.ports == ("Ethernet4",)
    assert bad.features == ("scheduler",)
    assert "expected SCHEDULER" in bad.reason


def test_referenced_objects_apply_to_the_ports_that_bind_them(parse_fixture: Parse) -> None:
    dev = parse_fixture("sm_configlet_add_qos_new_dbfmt.json").device
    wred = next(u for u in dev.unparsed if u.item == "WRED_PROFILE|AZURE_LOSSLESS")
    assert wred.ports == ("Ethernet63",)
    assert wred.features == ("ecn",)


def test_port_without_admin_status_is_down_in_the_running_config() -> None:
    text = '{"PORT": {"Ethernet0": {"mtu": "9100"}}}'
    running = parse_text(text, "config_db.json", "sw1", None, running=True).device
    assert running.ports["Ethernet0"].admin_up is False
    saved = parse_text(text, "config_db.json", "sw1", None).device
    assert saved.ports["Ethernet0"].admin_up is None


def test_every_item_of_the_fixtures_has_features(parse_fixture: Parse) -> None:
    for path in sorted(FIXTURES.glob("*.json")):
        dev = parse_fixture(path.name).device
        for u in dev.unparsed:
            assert u.features, (path.name, u.item)
