"""The SSH device lab fixture: one server process for the whole test session."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lab.lab import FIXTURES, LabServer, freeze_fabric, lab_fabric_devices, start_lab
from tests.lab.secrets import secret_devices
from tests.paths import CORPUS

LEAF1 = {
    "platform": "sonic",
    "snapshot": str(FIXTURES.parent.parent / "inventories/lab/snapshots/leaf1"),
}
FAULTS: dict[str, dict[str, Any]] = {
    "f-auth": {"auth": "reject"},
    "f-authdelay": {"auth_delay_s": 3},
    "f-slow": {"command_latency_ms": {"show runningconfiguration all": 2500}},
    "f-drop": {"disconnect_on": "show runningconfiguration all"},
    "f-tarpit": {"tarpit": True},
    "f-unknown": {"unknown": ["show runningconfiguration all"]},
    "f-hkunknown": {},
    "f-hkmismatch": {},
    "f-refused": {"refuse": True},
}
"""Fault device -> its knob (each a copy of leaf1 otherwise). Lab-only device names carry a
prefix (f-, x-, s-) so they never collide with the example fabric's."""
NXOS = FIXTURES / "nxos"
OTHERS: dict[str, dict[str, Any]] = {
    "x-eos": {
        "platform": "eos",
        "snapshot": str(FIXTURES / "eos" / "roce_spine"),
        "pager": True,
        "latency_ms": 5,
    },
    "x-nxos": {
        "platform": "nxos",
        "files": {
            "show running-config": str(NXOS / "roce_spine_running_config.txt"),
            "show interface | json": str(NXOS / "roce_spine_show_interface.json"),
            "show lldp neighbors detail | json": str(NXOS / "roce_spine_lldp.json"),
        },
    },
    "x-host-exec": {"platform": "linux_host", "snapshot": str(FIXTURES / "linux_host" / "gpu01")},
    "x-esonic-plan": {
        "platform": "enterprise_sonic",
        "engine": {
            "kind": "klish",
            "running": str(
                CORPUS.parent / "fixtures/enterprise_sonic/leaf9/show_running_configuration.txt"
            ),
        },
    },
    "x-esonic": {
        "platform": "enterprise_sonic",
        "engine": {
            "kind": "klish",
            "running": str(CORPUS / "enterprise_sonic/amd_rocm_z9664f_dcqcn_running_config.txt"),
        },
    },
    "x-host-unknown": {
        "platform": "linux_host",
        "snapshot": str(FIXTURES / "linux_host" / "gpu01"),
        "unknown": ["mlnx_qos -i eth2"],
    },
    "x-host-shell": {
        "platform": "linux_host",
        "snapshot": str(FIXTURES / "linux_host" / "gpu01"),
        "echo": "tty",
    },
    "x-sonic-tty": {**LEAF1, "echo": "tty"},
}


GPU01 = {"platform": "linux_host", "snapshot": str(FIXTURES / "linux_host" / "gpu01")}
RUNNING = "show runningconfiguration all"
HOSTILE: dict[str, dict[str, Any]] = {
    "h-drip-host": {**GPU01, "hostile": "drip", "hostile_on": "mlnx_qos -i eth2"},
    "h-flood-host": {**GPU01, "hostile": "flood", "hostile_on": "mlnx_qos -i eth2", "flood_mib": 4},
    "h-nosh-host": {**GPU01, "hostile": "no_sh"},
    "h-drip-switch": {**LEAF1, "hostile": "drip", "hostile_on": RUNNING},
    "h-flood-switch": {**LEAF1, "hostile": "flood", "hostile_on": RUNNING, "flood_mib": 4},
    "h-flood-eos": {
        "platform": "eos",
        "snapshot": str(FIXTURES / "eos" / "roce_spine"),
        "hostile": "flood",
        "hostile_on": "show running-config",
        "flood_mib": 4,
    },
}
"""Hostile peers (tests/hardening/test_hostile_peers.py)."""
HOST_FAULTS: dict[str, dict[str, Any]] = {
    "fh-auth": {**GPU01, "auth": "reject"},
    "fh-authdelay": {**GPU01, "auth_delay_s": 3},
    "fh-slow": {**GPU01, "command_latency_ms": {"mlnx_qos -i eth2": 15000}},
    "fh-drop": {**GPU01, "disconnect_on": "mlnx_qos -i eth2"},
    "fh-tarpit": {**GPU01, "tarpit": True},
    "fh-hkunknown": GPU01,
    "fh-hkmismatch": GPU01,
    "fh-refused": {**GPU01, "refuse": True},
}
"""Host faults over exec channels (tests/lab/test_host_transport.py)."""


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """Every lab device: the example fabric, fault devices, other platforms, secrets."""
    root = tmp_path_factory.mktemp("lab")
    fabric = freeze_fabric(root / "fabric")
    devices = lab_fabric_devices(fabric)
    devices.update({name: {**LEAF1, **knob} for name, knob in FAULTS.items()})
    devices.update(OTHERS)
    devices.update(HOSTILE)
    devices.update(HOST_FAULTS)
    devices.update(secret_devices(root / "secrets"))
    server = start_lab(devices, root / "server")
    server.fabric = fabric
    try:
        yield server
    finally:
        server.stop()
