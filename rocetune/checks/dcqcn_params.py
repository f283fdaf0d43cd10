"""RT315 dcqcn-params-range: NIC DCQCN parameters inside their documented ranges
(roce-knowledge.md §2.8, R-NIC-18).

The ranges and vendor defaults are data in :mod:`rocetune.tune.dcqcn`. A value outside its
range is a warning; a value inside the range that differs from the vendor default is an
info-level finding (tuned on purpose or left over: either way worth knowing when comparing
hosts). Parameters without a documented range/default are not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocetune.checks.base import CheckContext, Issue, Missing, PortRule, Result, RuleMeta, port_path
from rocetune.checks.helpers import missing
from rocetune.model import Device, NicPort, Severity
from rocetune.tune.dcqcn import DCQCN_PARAMS, DcqcnParam, in_range


class DcqcnParamsRange(PortRule):
    """RT315: DCQCN parameters in range; deviations from vendor defaults as info."""

    meta = RuleMeta(
        code="RT315",
        name="dcqcn-params-range",
        severity=Severity.WARNING,
        scope="port",
        summary="DCQCN parameters inside documented ranges; deviations from vendor defaults "
        "reported",
        tags=("dcqcn", "nic"),
        features=("dcqcn",),
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Compare every documented parameter of a NIC port with its range and default."""
        if ctx.intent.congestion_control == "none":
            return
        params = nic.dcqcn_params
        if params is None:
            yield missing(dev.name, nic, "dcqcn_params", "DCQCN parameters (ecn/roce_rp)")
            return
        absent = [p.name for p in DCQCN_PARAMS if p.name not in params]
        if absent:
            item = f"{nic.name}: DCQCN parameters {', '.join(absent)} not in snapshot"
            yield Missing(device=dev.name, item=item, path=port_path(nic, "dcqcn_params"))
        for param in DCQCN_PARAMS:
            if param.name in params:
                yield from _check(dev, nic, param, params[param.name])


def _check(dev: Device, nic: NicPort, param: DcqcnParam, value: int) -> Iterator[Result]:
    ok = in_range(param, value, nic.speed_mbps)
    if ok is None:
        item = f"{nic.name}: port speed (the upper bound of {param.name}) not in snapshot"
        yield Missing(device=dev.name, item=item, path=port_path(nic, "speed_mbps"))
    if ok is False:
        yield _issue(dev, nic, param, value, _range_message(param, value, nic))
    elif value != param.default:
        message = (
            f"DCQCN {param.name} ({param.meaning}) is {param.fmt(value)}, not the vendor "
            f"default {param.fmt(param.default)}: a tuned value, so keep it identical on "
            "every NIC of the fabric and make sure it was chosen on purpose"
        )
        yield _issue(dev, nic, param, value, message, default=True)


def _range_message(param: DcqcnParam, value: int, nic: NicPort) -> str:
    where = param.range_text()
    if param.high is None and nic.speed_mbps is not None:
        where += f" (line rate {nic.speed_mbps} Mb/s)"
    return (
        f"DCQCN {param.name} ({param.meaning}) is {param.fmt(value)}, outside the documented "
        f"range {where}: the NIC rejects or clamps it, or the reaction point does not "
        "behave as DCQCN expects"
    )


def _issue(
    dev: Device,
    nic: NicPort,
    param: DcqcnParam,
    value: int,
    message: str,
    *,
    default: bool = False,
) -> Issue:
    expected = (
        f"vendor default {param.fmt(param.default)}"
        if default
        else f"{param.range_text()} (vendor default {param.fmt(param.default)})"
    )
    return Issue(
        message=message,
        device=dev.name,
        port=nic.name,
        observed=f"{param.name} = {param.fmt(value)}",
        expected=expected,
        path=port_path(nic, f"dcqcn_params.{param.name}"),
        severity=Severity.INFO if default else None,
    )
