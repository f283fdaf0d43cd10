"""Shared pieces of the apply-driver tests: lab snapshots, plan changes, engines, sessions.

The changes are the ones ``rocetune plan inventories/lab/inventory.yaml --format json``
writes for the example fabric (leaf1 SONiC, leaf3/leaf4 Cumulus, gpu02/gpu03/gpu04 hosts).
"""

from __future__ import annotations

from typing import Any, Literal

from rocetune.platforms import drivers
from rocetune.platforms.transaction import DeviceChanges, Transaction, TxContext
from tests.lab.engines import make_engine
from tests.lab.engines.box import BoxEngine
from tests.lab.engines.inproc import EngineSession
from tests.paths import ROOT

SNAPSHOTS = ROOT / "inventories" / "lab" / "snapshots"
SNAPSHOT = {
    "gpu01": SNAPSHOTS / "gpu01",
    "leaf1": SNAPSHOTS / "leaf1",
    "leaf3": SNAPSHOTS / "leaf3",
    "leaf4": ROOT / "inventories" / "lab" / "configs" / "leaf4.yaml",
    "gpu02": SNAPSHOTS / "gpu02",
    "gpu03": SNAPSHOTS / "gpu03",
    "gpu04": SNAPSHOTS / "gpu04",
}
KIND = {
    "gpu01": "linux_host",
    "leaf1": "sonic",
    "leaf3": "cumulus",
    "leaf4": "cumulus",
    "gpu02": "linux_host",
    "gpu03": "linux_host",
    "gpu04": "linux_host",
}


def _patch(op: str, path: str, value: Any = None) -> dict[str, Any]:
    return {"op": op, "path": path, **({} if op == "remove" else {"value": value})}


SONIC_CHANGES: tuple[dict[str, Any], ...] = (
    {
        "kind": "watchdog",
        "disruptive": False,
        "patch": [_patch("add", "/PORT_QOS_MAP/Ethernet8/pfcwd_sw_enable", "3")],
    },
    {
        "kind": "watchdog",
        "disruptive": False,
        "patch": [
            _patch(
                "add",
                "/PFC_WD/Ethernet8",
                {"action": "drop", "detection_time": "200", "restoration_time": "200"},
            )
        ],
    },
    {
        "kind": "pfc",
        "disruptive": True,
        "patch": [_patch("add", "/PORT_QOS_MAP/Ethernet8/pfc_enable", "3")],
    },
)
SONIC_ROLLBACK = {
    "patch": [
        _patch("remove", "/PORT_QOS_MAP/Ethernet8/pfc_enable"),
        _patch("remove", "/PFC_WD/Ethernet8"),
        _patch("remove", "/PORT_QOS_MAP/Ethernet8/pfcwd_sw_enable"),
    ]
}
CHANGES: dict[str, tuple[tuple[dict[str, Any], ...], dict[str, Any]]] = {
    "leaf1": (SONIC_CHANGES, SONIC_ROLLBACK),
    "leaf3": (
        ({"commands": ["nv set qos mapping default-global dscp 26 switch-priority 3"]},),
        {"commands": ["nv set qos mapping default-global dscp 26 switch-priority 0"]},
    ),
    "leaf4": (
        ({"commands": ["nv set interface swp32 link mtu 9214"], "disruptive": True},),
        {"commands": ["nv set interface swp32 link mtu 1500"]},
    ),
    "gpu02": (
        (
            {
                "kind": "trust",
                "disruptive": True,
                "commands": [
                    "mlnx_qos -i eth2 --trust dscp",
                    "mlnx_qos -i eth2 --dscp2prio set,26,3",
                    "mlnx_qos -i eth2 --dscp2prio set,48,6",
                ],
            },
        ),
        {"commands": ["mlnx_qos -i eth2 --trust pcp"]},
    ),
    "gpu03": (
        (
            {
                "commands": ["echo 48 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp"],
                "disruptive": False,
            },
        ),
        {"commands": ["echo 4 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp"]},
    ),
    "gpu04": (
        ({"commands": ["mlnx_qos -i eth3 --pfc 0,0,0,1,0,0,0,0"], "disruptive": True},),
        {"commands": ["mlnx_qos -i eth3 --pfc 0,0,0,0,1,0,0,0"]},
    ),
}


def engine(device: str, **options: Any) -> BoxEngine:
    """The lab engine of ``device`` with ``options`` (faults, fail_at, ...)."""
    spec = {"kind": KIND[device], "snapshot": str(SNAPSHOT[device]), **options}
    made = make_engine(device, spec)
    assert isinstance(made, BoxEngine)
    return made


def session(eng: BoxEngine) -> EngineSession:
    """A new in-process connection: exec-style for hosts, an interactive CLI for switches."""
    mode: Literal["exec", "shell"] = "exec" if eng.platform == "linux_host" else "shell"
    return EngineSession(eng, mode, eng.platform)


def changes(
    device: str,
    disruptive: bool | None = None,
    extra: tuple[dict[str, Any], ...] = (),
) -> DeviceChanges:
    """The plan's changes of ``device`` (``disruptive``: allowed, default from the plan)."""
    items, rollback = CHANGES[device]
    items = items + extra
    flag = any(bool(c.get("disruptive")) for c in items) if disruptive is None else disruptive
    return DeviceChanges(device, KIND[device], items, rollback, flag)


def transaction(device: str, run_id: str = "r1", platform: str | None = None) -> Transaction:
    """The platform driver's transaction for ``device``."""
    kind = platform or KIND[device]
    tx = drivers()[kind].transaction(TxContext(run_id, device, "CHG-1"))
    assert tx is not None
    return tx
