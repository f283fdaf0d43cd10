"""Hand-built audit results for reporter tests (independent of parsers and rule logic)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rocetune.checks.registry import rule_by_code
from rocetune.model import (
    AuditResult,
    Device,
    DeviceStatus,
    Fabric,
    Finding,
    Link,
    LinkEnd,
    Port,
    Provenance,
    Severity,
)

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


def finding(code: str, severity: str = "error", **kw: Any) -> Finding:
    """A finding with a name derived from the code and a default message."""
    kw.setdefault("message", f"{code} message")
    rule = rule_by_code(code)
    name = rule.meta.name if rule is not None else f"name-{code.lower()}"
    return Finding(code=code, name=name, severity=Severity(severity), **kw)


def result(
    findings: list[Finding],
    devices: dict[str, str | None] | None = None,
    *,
    rules: tuple[str, ...] = (),
    files: dict[str, str] | None = None,
    inventory: str | None = None,
    links: tuple[Link, ...] = (),
) -> AuditResult:
    """An AuditResult: ``devices`` maps name -> None (ok) or an error message."""
    devices = devices if devices is not None else {"leaf1": None}
    models = {
        n: Device(name=n, kind="switch", platform="sonic", ports={"Ethernet0": Port(name="E0")})
        for n, err in devices.items()
        if err is None
    }
    status = {
        n: DeviceStatus(n, "sonic", "ok" if err is None else "error", err)
        for n, err in devices.items()
    }
    prov = {}
    for name, file in (files or {}).items():
        prov[name] = Provenance()
        prov[name].add("", file, None)
    fabric = Fabric(devices=models, links=links)
    return AuditResult(fabric, findings, status, [], prov, rules, inventory)


def link(a: str, b: str) -> Link:
    """A link from ``dev:port`` strings."""
    da, _, pa = a.partition(":")
    db, _, pb = b.partition(":")
    return Link(a=LinkEnd(device=da, port=pa), b=LinkEnd(device=db, port=pb))
