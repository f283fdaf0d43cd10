"""Model-level state comparison: exact wording for each kind of change."""

from __future__ import annotations

from typing import Any

from rocetune.model import (
    BufferProfile,
    Device,
    EcnProfile,
    Fabric,
    Intent,
    NicPort,
    Port,
    Scheduler,
    Watchdog,
)
from rocetune.statediff import compare_fabrics


def fabric(ports: dict[str, dict[str, Any]], intent: Intent | None = None, **dev: Any) -> Fabric:
    device = Device(
        name="leaf1",
        kind="switch",
        platform="sonic",
        ports={n: Port(name=n, **p) for n, p in ports.items()},
        **dev,
    )
    return Fabric(intent=intent or Intent(), devices={"leaf1": device})


def changes(before: Fabric, after: Fabric) -> list[str]:
    return [str(c) for c in compare_fabrics(before, after)]


def test_no_change_no_rows() -> None:
    port = {"Ethernet0": {"mtu": 9216, "pfc_rx": (3,), "pfc_tx": (3,)}}
    assert changes(fabric(port), fabric(port)) == []


def test_scalars_and_pfc_directions() -> None:
    a = {"E0": {"mtu": 9216, "speed_mbps": 400000, "trust": "dscp", "pfc_rx": (3,), "pfc_tx": (3,)}}
    b = {"E0": {"mtu": 1500, "speed_mbps": 100000, "trust": "pcp", "pfc_rx": (3,), "pfc_tx": ()}}
    assert changes(fabric(a), fabric(b)) == [
        "leaf1 E0: speed 400G → 100G",
        "leaf1 E0: MTU 9216 → 1500",
        "leaf1 E0: trust dscp → pcp",
        "leaf1 E0: PFC priorities {3} → rx {3} tx {}",
    ]


def test_dscp_entries_of_the_intent_dscps_only() -> None:
    a = {"E0": {"dscp_to_priority": {26: 3, 48: 6, 10: 0}}}
    b = {"E0": {"dscp_to_priority": {26: 0, 10: 1}}}
    assert changes(fabric(a), fabric(b)) == [
        "leaf1 E0: DSCP 26 → priority 3 → 0",
        "leaf1 E0: DSCP 48 → priority 6 → unmapped",
    ]
    custom = Intent(roce_dscp=(24,))
    # DSCP 26 is not an intent DSCP any more: its remap is not RoCE-relevant
    assert changes(fabric(a, custom), fabric(b, custom)) == [
        "leaf1 E0: DSCP 48 → priority 6 → unmapped"
    ]


def test_queue_objects_added_removed_changed_and_unknown() -> None:
    ecn = EcnProfile(ecn_mark=True, min_threshold_bytes=100, max_threshold_bytes=400)
    a = {
        "E0": {
            "ecn": {3: ecn},
            "schedulers": {3: Scheduler(kind="dwrr", weight=50), 6: Scheduler(kind="strict")},
            "pg_buffers": {3: BufferProfile(xoff_bytes=1000, size_bytes=2000)},
        }
    }
    b = {
        "E0": {
            "ecn": {},
            "schedulers": {3: Scheduler(kind="dwrr", weight=60)},
            "pg_buffers": None,
        }
    }
    assert changes(fabric(a), fabric(b)) == [
        "leaf1 E0: ECN queue 3 marking on, min threshold 100 B, max threshold 400 B → none",
        "leaf1 E0: scheduler queue 3 weight 50 → 60",
        "leaf1 E0: scheduler queue 6 kind strict → none",
        "leaf1 E0: buffer PG 3 size 2000 B, xoff 1000 B, computed at runtime off → unknown",
    ]


def test_watchdog_toggle_is_one_row_and_timer_change_is_precise() -> None:
    off = {"E0": {"watchdog": Watchdog(enabled=False)}}
    on = {"E0": {"watchdog": Watchdog(enabled=True, detection_ms=200, action="drop")}}
    slow = {"E0": {"watchdog": Watchdog(enabled=True, detection_ms=400, action="drop")}}
    assert changes(fabric(off), fabric(on)) == [
        "leaf1 E0: PFC watchdog off → on, detection 200 ms, action drop"
    ]
    assert changes(fabric(on), fabric(slow)) == ["leaf1 E0: PFC watchdog detection 200 ms → 400 ms"]


def test_ports_devices_and_device_fields() -> None:
    a = fabric({"E0": {}, "E4": {}}, watchdog_poll_ms=100)
    b = fabric({"E0": {}, "E8": {}}, watchdog_poll_ms=200)
    assert changes(a, b) == [
        "leaf1: PFC watchdog poll interval 100 ms → 200 ms",
        "leaf1 E4: port removed",
        "leaf1 E8: port added",
    ]
    empty = Fabric()
    assert changes(empty, a) == ["leaf1: device added"]
    assert changes(a, empty) == ["leaf1: device removed"]


def test_nic_ports() -> None:
    def host(**nic: Any) -> Fabric:
        dev = Device(
            name="gpu1", kind="host", platform="linux", nics={"eth0": NicPort(name="eth0", **nic)}
        )
        return Fabric(devices={"gpu1": dev})

    a = host(pfc_priorities=(3,), cnp_dscp=48, dcqcn_rp={3: True}, mtu=9000)
    b = host(pfc_priorities=(), cnp_dscp=46, dcqcn_rp={3: False}, mtu=None)
    assert changes(a, b) == [
        "gpu1 eth0: MTU 9000 → unknown",
        "gpu1 eth0: PFC priorities {3} → {}",
        "gpu1 eth0: DCQCN RP priority 3 on → off",
        "gpu1 eth0: CNP DSCP 48 → 46",
    ]
