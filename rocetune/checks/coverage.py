"""RT0xx: input and coverage rules."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rocetune.checks.base import CheckContext, DeviceRule, Issue, Result, Rule, RuleMeta
from rocetune.model import Device, Severity


class MissingData(Rule):
    """RT000: emitted by the engine on behalf of every rule that lacked data."""

    meta = RuleMeta(
        code="RT000",
        name="missing-data",
        severity=Severity.INFO,
        scope="device",
        summary="a rule could not run because the snapshot lacks the data it needs",
        tags=("coverage",),
    )

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Yield nothing: the engine aggregates other rules' Missing results into RT000."""
        return iter(())


class UnparsedConfig(DeviceRule):
    """RT001: QoS-relevant input the parser did not understand."""

    meta = RuleMeta(
        code="RT001",
        name="unparsed-config",
        severity=Severity.WARNING,
        scope="device",
        summary="QoS/buffer/PFC-related config lines or keys the parser did not understand",
        tags=("coverage",),
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Report every unparsed item the parser recorded."""
        for i, item in enumerate(dev.unparsed):
            yield Issue(
                message=f"not understood: {item.item} ({item.reason})",
                device=dev.name,
                observed=item.item,
                expected="a construct rocetune can read",
                path=f"unparsed.{i}",
            )


class UnknownDeviceKind(Rule):
    """RT002: a device whose platform is missing or unsupported."""

    meta = RuleMeta(
        code="RT002",
        name="unknown-device-kind",
        severity=Severity.ERROR,
        scope="device",
        summary="platform missing or unsupported for a device in the inventory",
        tags=("coverage",),
    )

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Report inventory devices that could not be modelled for lack of a platform."""
        for problem in ctx.fabric.problems:
            if problem.kind == "unsupported-platform":
                yield Issue(
                    message=problem.message,
                    device=problem.device,
                    observed=problem.platform or "no platform",
                    expected="a supported platform",
                )
