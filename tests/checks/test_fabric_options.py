"""Options of the fabric rules (RT705, RT708) and RT708 on a larger generated topology."""

from __future__ import annotations

from typing import Any

from rocetune.checks.deadlock import PfcDeadlockRisk, PfcDeadlockRiskOptions, tier_map
from rocetune.checks.fabric_uniform import FabricUniform, FabricUniformOptions
from rocetune.engine import run_checks
from rocetune.model import Device, Fabric, Link, LinkEnd, Port

LOSSLESS = Port(name="p", pfc_rx=(3,), pfc_tx=(3,))


def switch(name: str, role: str | None, ports: dict[str, Port], platform: str = "t") -> Device:
    ports = {n: p.model_copy(update={"name": n}) for n, p in ports.items()}
    return Device(name=name, kind="switch", platform=platform, role=role, ports=ports)


def link(a: str, b: str) -> Link:
    (da, pa), (db, pb) = a.split(":"), b.split(":")
    return Link(a=LinkEnd(device=da, port=pa), b=LinkEnd(device=db, port=pb))


def fabric(devices: list[Device], links: list[Link] = ()) -> Fabric:  # type: ignore[assignment]
    return Fabric(devices={d.name: d for d in devices}, links=tuple(links))


def summary(findings: list[Any]) -> list[tuple[str, str | None, str | None]]:
    return [(f.code, f.device, f.observed) for f in findings]


# --- RT705 ---------------------------------------------------------------------------------


def _wd_fabric() -> Fabric:
    sonic = Port(
        name="p",
        watchdog={"enabled": True, "action": "drop", "detection_ms": 200, "restoration_ms": 200},
    )
    cumulus = Port(
        name="p",
        watchdog={"enabled": True, "action": "drop", "detection_ms": 300, "restoration_ms": 100},
    )
    odd = Port(name="p", watchdog={"enabled": False})
    return fabric(
        [
            switch("s1", "leaf", {"E0": sonic}, "sonic"),
            switch("s2", "leaf", {"E0": sonic}, "sonic"),
            switch("s3", "leaf", {"E0": odd}, "sonic"),
            switch("c1", "leaf", {"swp1": cumulus}, "cumulus"),
            switch("c2", "leaf", {"swp1": cumulus}, "cumulus"),
            switch("c3", "spine", {"swp1": cumulus}, "cumulus"),
        ]
    )


def test_rt705_group_by_platform_compares_within_each_platform() -> None:
    fab = _wd_fabric()
    only_wd = {"switch_aspects": ("watchdog",), "nic_aspects": ()}
    plain = FabricUniformOptions.model_validate(only_wd)
    # fabric-wide: 3 cumulus timers, 2 sonic, 1 off: no strict majority -> one finding
    assert summary(run_checks(fab, [FabricUniform], {"RT705": plain})) == [
        (
            "RT705",
            None,
            "on, drop, 300/100 ms on c1, c2, c3 | on, drop, 200/200 ms on s1, s2 | off on s3",
        )
    ]
    by_platform = FabricUniformOptions.model_validate({**only_wd, "group_by": "platform"})
    assert summary(run_checks(fab, [FabricUniform], {"RT705": by_platform})) == [
        ("RT705", "s3", "off")
    ]
    by_role = FabricUniformOptions.model_validate({**only_wd, "group_by": "role"})
    # leaves: 2 sonic, 2 cumulus, 1 off -> no majority; the lone spine has nothing to compare
    (tie,) = run_checks(fab, [FabricUniform], {"RT705": by_role})
    assert tie.device is None
    assert "c3" not in (tie.observed or "")


def test_rt705_aspects_option_limits_the_comparison() -> None:
    fab = _wd_fabric()
    opts = FabricUniformOptions(switch_aspects=("lossless-set",), nic_aspects=())
    findings = run_checks(fab, [FabricUniform], {"RT705": opts})
    # PFC state is unknown everywhere: only missing data, no comparison finding
    assert {f.code for f in findings} == {"RT000"}
    assert len(findings) == 6


# --- RT708 ---------------------------------------------------------------------------------


def test_rt708_custom_tier_order_and_no_inference() -> None:
    fab = fabric(
        [
            switch("t1", "pod-leaf", {"a": LOSSLESS, "x": LOSSLESS}),
            switch("t2", "pod-leaf", {"a": LOSSLESS, "x": LOSSLESS}),
            switch("p1", "pod-spine", {"a": LOSSLESS, "b": LOSSLESS}),
            switch("u1", None, {"a": LOSSLESS}),
        ],
        [link("t1:a", "p1:a"), link("t2:a", "p1:b"), link("t1:x", "t2:x"), link("u1:a", "t1:a")],
    )
    opts = PfcDeadlockRiskOptions(tier_order=("host", "pod-leaf", "pod-spine"), infer_tiers=False)
    got = run_checks(fab, [PfcDeadlockRisk], {"RT708": opts})
    assert [(f.code, f.device, f.link) for f in got] == [
        ("RT708", "t1", "t1:x--t2:x"),
        ("RT000", "u1", None),
    ]
    assert "closes the loop t1 → p1 → t2 → t1" in got[0].message
    assert "pod-leaf switches" in got[0].message
    assert "tier unknown" in got[1].message
    tiers, names = tier_map(fab, PfcDeadlockRiskOptions(tier_order=("host", "pod-leaf")))
    assert tiers == {"t1": 1, "t2": 1, "u1": 2, "p1": 2}  # p1 and u1 inferred above the leaves
    assert names == {0: "host", 1: "pod-leaf"}


def test_rt708_long_loops_are_cut_to_max_cycle_hops() -> None:
    n = 12
    ring = [switch(f"l{i}", "leaf", {"a": LOSSLESS, "b": LOSSLESS}) for i in range(n)]
    links = [link(f"l{i}:a", f"l{(i + 1) % n}:b") for i in range(n)]
    opts = PfcDeadlockRiskOptions(max_cycle_hops=3)
    got = run_checks(fabric(ring, links), [PfcDeadlockRisk], {"RT708": opts})
    assert len(got) == n
    closing = [f for f in got if "closes the loop" in f.message]
    assert len(closing) == 1
    assert "(a loop longer than 6 hops)" in closing[0].message
    assert all("lies on a loop" in f.message for f in got if f not in closing)


def test_rt708_many_peer_links_one_finding_each() -> None:
    """A 3-tier fabric: 64 leaf pairs with lossless peer links, spine-spine links lossy."""
    spines = [switch(f"s{i}", "spine", {f"d{j}": LOSSLESS for j in range(128)}) for i in range(4)]
    leaves, links = [], []
    for j in range(128):
        ports = {f"u{i}": LOSSLESS for i in range(4)} | {"peer": LOSSLESS}
        leaves.append(switch(f"l{j}", "leaf", ports))
        links += [link(f"l{j}:u{i}", f"s{i}:d{j}") for i in range(4)]
    links += [link(f"l{j}:peer", f"l{j + 1}:peer") for j in range(0, 128, 2)]
    got = run_checks(fabric(spines + leaves, links), [PfcDeadlockRisk])
    assert len(got) == 64
    assert all(f.code == "RT708" and "closes the loop" in f.message for f in got)
    assert {f.device for f in got} == {f"l{j}" for j in range(0, 128, 2)}
