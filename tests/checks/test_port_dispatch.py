"""PortRule.run_device calls check_port / check_nic only when the rule overrides them (a
rule of one port kind is not called on every port of the other kind), and still notes a
device without ports of its kind whatever the rule checks."""

from __future__ import annotations

from collections.abc import Iterable

from rocetune.checks.base import CheckContext, Missing, PortRule, Result, RuleOptions
from rocetune.model import Device, Fabric, NicPort, Port


class _SwitchOnly(PortRule):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        self.seen.append(f"{dev.name}:{port.name}")
        return [Missing(device=dev.name, item=f"{port.name}: x not in snapshot")]


class _NicOnly(PortRule):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterable[Result]:
        self.seen.append(f"{dev.name}:{nic.name}")
        return []


def _fabric() -> Fabric:
    ports = {n: Port(name=n) for n in ("E0", "E1", "E2")}
    return Fabric(
        devices={
            "sw": Device(
                name="sw", kind="switch", platform="test", ports=ports, roce_ports=("E0", "E2")
            ),
            "bare": Device(name="bare", kind="switch", platform="test"),
            "h1": Device(
                name="h1", kind="host", platform="test", nics={"eth2": NicPort(name="eth2")}
            ),
            "h2": Device(name="h2", kind="host", platform="test"),
        }
    )


def _run(rule: PortRule, fabric: Fabric) -> list[tuple[str, str]]:
    ctx = CheckContext(fabric=fabric, options=RuleOptions())
    return [(r.device or "", r.item) for r in rule.run(ctx) if isinstance(r, Missing)]


def test_a_switch_port_rule_checks_roce_ports_and_notes_devices_without_ports() -> None:
    rule = _SwitchOnly()
    got = _run(rule, _fabric())
    assert rule.seen == ["sw:E0", "sw:E2"]
    assert got == [
        ("sw", "E0: x not in snapshot"),
        ("sw", "E2: x not in snapshot"),
        ("bare", "no switch ports in the snapshot"),
        ("h2", "no NIC ports in the snapshot"),
    ]


def test_a_nic_rule_checks_every_nic_and_notes_devices_without_ports() -> None:
    rule = _NicOnly()
    got = _run(rule, _fabric())
    assert rule.seen == ["h1:eth2"]
    assert got == [
        ("bare", "no switch ports in the snapshot"),
        ("h2", "no NIC ports in the snapshot"),
    ]
