"""The hand-written RoCE spine snapshot: its named decisions, provenance, lint (the exact model
is the parser golden tests/platforms/goldens/eos/roce_spine)."""

from __future__ import annotations

from rocetune import api
from rocetune.model import LldpNeighbor
from tests.platforms.eos.eos_helpers import (
    FIXTURES,
    parse_path,
)

SPINE = FIXTURES / "roce_spine"


def test_roce_spine_golden_facts() -> None:
    """The whole parsed model is the golden tests/platforms/goldens/eos/roce_spine; these are
    the decisions it encodes, named."""
    dev = parse_path(SPINE, "spine1").device
    ports = dev.ports
    assert list(ports) == [
        "Ethernet1/1",
        "Ethernet2/1",
        "Ethernet3/1",
        "Ethernet4/1",
        "Ethernet32/1",
    ]
    # no `speed` line: the operational speed from `show interfaces status`
    assert ports["Ethernet3/1"].speed_mbps == 100_000
    # the interface's own tx-queue 3 ECN line (microseconds at 400G) overrides the profile's
    ecn = ports["Ethernet4/1"].ecn
    assert ecn is not None
    assert (ecn[3].name, ecn[3].min_threshold_bytes, ecn[3].max_threshold_bytes) == (
        None,
        1_000_000,
        4_000_000,
    )
    # shut down: status `disabled`, so its bandwidth is not a speed
    assert (ports["Ethernet32/1"].speed_mbps, ports["Ethernet32/1"].admin_up) == (None, False)
    assert dev.role == "spine"
    assert dev.lldp is not None
    # no interfaceId_v2: the quoted interfaceId, and `Et49/1` expanded
    assert dev.lldp[2] == LldpNeighbor(
        local_port="Ethernet3/1", remote_name="leaf3", remote_port="Ethernet49/1"
    )


def test_roce_spine_provenance() -> None:
    prov = parse_path(SPINE).provenance
    where = {path: (ref.file.rsplit("/", 1)[-1], ref.line) for path, ref in prov.refs.items()}
    run = "show_running_config.txt"
    assert where[""] == (run, 1)
    assert where["hostname"] == (run, 12)
    assert where["watchdog_poll_ms"] == (run, 93)
    assert where["lldp"] == ("show_lldp_neighbors_detail_json.json", 1)
    assert where["ports.Ethernet1/1"] == (run, 44)
    assert where["ports.Ethernet1/1.mtu"] == (run, 46)
    assert where["ports.Ethernet1/1.speed_mbps"] == (run, 47)
    assert where["ports.Ethernet3/1.speed_mbps"] == ("show_interfaces_status_json.json", 23)
    assert where["ports.Ethernet1/1.trust"] == (run, 25)  # the profile's `qos trust dscp`
    assert where["ports.Ethernet1/1.dscp_to_priority"] == (run, 19)
    assert where["ports.Ethernet1/1.pfc_rx"] == (run, 40)  # `priority 3 no-drop`
    assert where["ports.Ethernet1/1.link_pause"] == (run, 39)  # `priority-flow-control on`
    assert where["ports.Ethernet1/1.ecn.3"] == (run, 34)
    assert where["ports.Ethernet4/1.ecn.3"] == (run, 76)  # the interface's own line
    assert where["ports.Ethernet4/1.schedulers.3"] == (run, 32)  # the profile's `no priority`
    assert where["ports.Ethernet1/1.schedulers.6"] == (run, 37)
    assert where["ports.Ethernet1/1.watchdog"] == (run, 41)
    assert where["ports.Ethernet1/1.watchdog.action"] == (run, 42)  # port action drop
    assert where["ports.Ethernet1/1.watchdog.detection_ms"] == (run, 91)
    assert where["ports.Ethernet1/1.watchdog.restoration_ms"] == (run, 92)
    assert where["ports.Ethernet32/1.admin_up"] == (run, 80)
    assert where["ports.Ethernet32/1.mtu"] == (run, 17)  # `interface defaults` / `mtu 9214`
    ref = prov.lookup("ports.Ethernet1/1.fec")  # a default: falls back to the port
    assert ref is not None
    assert ref.line == 44


def test_roce_spine_lints_clean_of_errors() -> None:
    result = api.lint([SPINE])
    assert not result.errors
    assert result.exit_code() == 0
    codes = {f.code for f in result.findings}
    assert not codes & {"RT001", "RT101", "RT102", "RT103", "RT201", "RT204", "RT205", "RT301"}
    assert "RT304" in codes  # 150/1500 KB does not scale to 400G (intent envelope)
