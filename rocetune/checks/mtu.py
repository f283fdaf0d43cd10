"""RT6xx: MTU (see rules/ and docs/rule-catalogue.md)."""

from __future__ import annotations

from collections.abc import Iterator

from rocetune.checks.base import CheckContext, Issue, PortRule, Result, Rule, RuleMeta, port_path
from rocetune.checks.helpers import missing
from rocetune.model import Device, Port, Severity


class SwitchMtu(PortRule):
    """RT601: switch port MTU >= intent host MTU + L2 overhead."""

    meta = RuleMeta(
        code="RT601",
        name="switch-mtu",
        severity=Severity.ERROR,
        scope="port",
        summary="switch port MTU >= host MTU + L2 overhead",
        tags=("mtu",),
        features=("mtu",),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Compare one switch port's MTU with the intent host MTU plus L2 overhead."""
        host = ctx.intent.mtu.host
        overhead = ctx.intent.l2_overhead_bytes
        need = host + overhead
        if port.mtu is None:
            yield missing(dev.name, port, "mtu", "MTU")
            return
        if port.mtu >= need:
            return
        yield Issue(
            message=f"port MTU {port.mtu} is below host MTU {host} + {overhead} B L2 overhead"
            f" = {need}: full-size frames from the hosts are dropped as oversize on this port",
            device=dev.name,
            port=port.name,
            observed=port.mtu,
            expected=f">= {need} (intent mtu.host {host} + l2_overhead_bytes {overhead})",
            path=port_path(port, "mtu"),
        )


RULES: tuple[type[Rule], ...] = (SwitchMtu,)
