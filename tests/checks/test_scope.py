"""The lossless domain: which switch ports the port rules check (rocetune.checks.scope)."""

from __future__ import annotations

import pytest

from rocetune.checks.scope import port_matches, roce_scope
from rocetune.model import Device, Link, LinkEnd, Port


@pytest.mark.parametrize(
    ("name", "pattern", "hit"),
    [
        ("swp1", "swp1", True),
        ("swp12", "swp1-32", True),
        ("swp33", "swp1-32", False),
        ("swp1s0", "swp1-32", False),
        ("Ethernet124", "Ethernet0-124", True),
        ("Ethernet1/7", "Ethernet1/1-8", True),
        ("Ethernet2/7", "Ethernet1/1-8", False),
        ("swp7", "swp*", True),
        ("eth1", "swp*", False),
        ("Ethernet8", "Ethernet[0-9]", True),
    ],
)
def test_port_patterns(name: str, pattern: str, hit: bool) -> None:
    assert port_matches(name, pattern) is hit


def _dev(ports: dict[str, Port], roce_ports: tuple[str, ...] | None = None) -> Device:
    return Device(name="leaf1", kind="switch", platform="test", ports=ports, roce_ports=roce_ports)


def test_lone_config_uses_lossless_evidence_and_skips_admin_down() -> None:
    dev = _dev(
        {
            "swp1": Port(name="swp1", pfc_rx=(3,), pfc_tx=(3,)),
            "swp2": Port(name="swp2", pfc_rx=(), pfc_tx=(), trust="dscp"),
            "swp3": Port(name="swp3", pfc_rx=(), pfc_tx=(), trust="pcp"),
            "swp4": Port(name="swp4"),  # nothing known: checked, the rules say what is missing
            "swp5": Port(name="swp5", pfc_rx=(3,), pfc_tx=(3,), admin_up=False),
        }
    )
    scope = roce_scope(dev)
    assert [p.name for p in scope.roce] == ["swp1", "swp2", "swp4"]
    assert [p.name for p in scope.outside] == ["swp3"]
    assert [p.name for p in scope.admin_down] == ["swp5"]
    assert scope.basis == "config"


def test_links_decide_when_present() -> None:
    dev = _dev({n: Port(name=n, pfc_rx=(3,), pfc_tx=(3,)) for n in ("swp1", "swp2")})
    link = Link(a=LinkEnd(device="leaf1", port="swp2"), b=LinkEnd(device="gpu1", port="eth0"))
    scope = roce_scope(dev, [link])
    assert [p.name for p in scope.roce] == ["swp2"]
    assert scope.basis == "links"


def test_inventory_declaration_wins_and_unmatched_patterns_are_kept() -> None:
    ports = {n: Port(name=n, pfc_rx=(3,), pfc_tx=(3,)) for n in ("swp1", "swp2", "swp31")}
    scope = roce_scope(_dev(ports, ("swp1-16", "Ethernet*")))
    assert [p.name for p in scope.roce] == ["swp1", "swp2"]
    assert [p.name for p in scope.outside] == ["swp31"]
    assert scope.unmatched == ("Ethernet*",)
    assert scope.basis == "inventory"


def test_a_port_whose_qos_line_was_not_understood_stays_in_scope() -> None:
    from rocetune.model import Unparsed

    ports = {n: Port(name=n, pfc_rx=(), pfc_tx=(), trust="port") for n in ("Eth1/1", "Eth1/2")}
    item = Unparsed(
        item="service-policy type qos input X",
        reason="policy not defined",
        ports=("Eth1/1",),
        features=("trust", "dscp_map"),
    )
    dev = _dev(ports).model_copy(update={"unparsed": (item,)})
    scope = roce_scope(dev)
    assert [p.name for p in scope.roce] == ["Eth1/1"]
    assert [p.name for p in scope.outside] == ["Eth1/2"]


def test_explicit_pfc_off_is_outside_even_with_ecn_or_trust() -> None:
    """EOS `no priority-flow-control`, a SONiC PORT_QOS_MAP entry without pfc_enable: the
    config's own statement that the port is lossy; ECN or DSCP trust there do not make it a
    RoCE port, and an unread classification line does not either (an unread PFC line does)."""
    from rocetune.model import EcnProfile, Unparsed

    ecn = {3: EcnProfile(ecn_mark=True)}
    dev = _dev(
        {
            "swp1": Port(name="swp1", pfc_rx=(3,), pfc_tx=(3,)),
            "swp2": Port(name="swp2", pfc_rx=(), pfc_tx=(), pfc_mode="off", ecn=ecn),
            "swp3": Port(name="swp3", pfc_rx=(), pfc_tx=(), pfc_mode="off", trust="dscp"),
            "swp4": Port(name="swp4", pfc_rx=(), pfc_tx=(), ecn=ecn),  # no statement
            "swp5": Port(name="swp5", pfc_rx=(), pfc_tx=(), pfc_mode="off"),
            "swp6": Port(name="swp6", pfc_rx=(), pfc_tx=(), pfc_mode="off"),
        }
    )
    dev = dev.model_copy(
        update={
            "unparsed": (
                Unparsed(item="policy", reason="x", ports=("swp5",), features=("dscp_map",)),
                Unparsed(item="pfc x", reason="x", ports=("swp6",), features=("pfc",)),
            )
        }
    )
    scope = roce_scope(dev)
    assert [p.name for p in scope.roce] == ["swp1", "swp4", "swp6"]
    assert [p.name for p in scope.outside] == ["swp2", "swp3", "swp5"]


def test_ecn_counts_only_on_a_queue_the_dscp_map_reaches_and_trust_needs_a_map() -> None:
    """SONiC's template WRED profile on a port without a DSCP map marks nothing (su_mock
    Ethernet8); a DSCP map that puts every DSCP in priority 0 classifies nothing
    (dbmigrator Ethernet92); a forgotten pfc_enable on a port whose map feeds its ECN queue
    is a RoCE port with a fault (RT201)."""
    from rocetune.model import EcnProfile

    ecn = {3: EcnProfile(ecn_mark=True)}
    ident = {i: i for i in range(8)}
    dev = _dev(
        {
            "Ethernet0": Port(name="Ethernet0", pfc_rx=(3,), pfc_tx=(3,)),
            "Ethernet8": Port(
                name="Ethernet8",
                pfc_rx=(),
                pfc_tx=(),
                trust="port",
                ecn=ecn,
                dscp_to_priority={},
                priority_to_tc={},
                tc_to_queue={},
            ),
            "Ethernet92": Port(
                name="Ethernet92",
                pfc_rx=(),
                pfc_tx=(),
                trust="dscp",
                dscp_to_priority={0: 0},
                priority_to_tc=ident,
                tc_to_queue={0: 0},
            ),
            "Ethernet16": Port(
                name="Ethernet16",
                pfc_rx=(),
                pfc_tx=(),
                trust="dscp",
                ecn=ecn,
                dscp_to_priority={26: 3},
                priority_to_tc=ident,
                tc_to_queue=ident,
            ),
        }
    )
    scope = roce_scope(dev)
    assert [p.name for p in scope.roce] == ["Ethernet0", "Ethernet16"]
    assert [p.name for p in scope.outside] == ["Ethernet8", "Ethernet92"]
