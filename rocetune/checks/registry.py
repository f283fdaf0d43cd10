"""The explicit rule registry: one table, code -> rule class, sorted by code.

This table is the one place that says which rules rocetune ships and where each one lives
(``rocetune.checks.<module>.<Class>``); ``rocetune rules --format json`` and ``rocetune
explain`` print the module. Adding a rule: its class in a family module, its doc in
``rules/RTxxx.md``, one line here (``tests/checks/test_registry_table.py`` checks that every
rule class of ``rocetune.checks`` is listed, under its own code, in order).
"""

from __future__ import annotations

from rocetune.checks import (
    buffer_limits,
    buffers,
    classification,
    counters,
    coverage,
    dcqcn_params,
    deadlock,
    domain,
    ecn,
    ecn_fabric,
    ecn_thresholds,
    ets,
    ets_share,
    fabric,
    fabric_uniform,
    links,
    lldp,
    mtu,
    nic_cc,
    nic_port,
    pfc,
    remark,
    topology,
    verify,
    watchdog,
)
from rocetune.checks.base import Rule

RULES: dict[str, type[Rule]] = {
    "RT000": coverage.MissingData,
    "RT001": coverage.UnparsedConfig,
    "RT002": coverage.UnknownDeviceKind,
    "RT003": domain.LosslessDomain,
    "RT004": domain.SnapshotIdentity,
    "RT101": classification.TrustDscp,
    "RT102": classification.RoceDscpLossless,
    "RT103": classification.CnpDscpClass,
    "RT104": classification.StrayDscpLossless,
    "RT105": nic_port.RoceTos,
    "RT106": classification.PriorityChain,
    "RT107": remark.DscpRemark,
    "RT201": pfc.PfcOnLossless,
    "RT202": pfc.PfcExtraPriority,
    "RT203": pfc.TooManyLossless,
    "RT204": pfc.LinkPauseOff,
    "RT205": watchdog.PfcWatchdogOn,
    "RT206": watchdog.PfcWatchdogTimers,
    "RT207": watchdog.PfcWatchdogAction,
    "RT208": pfc.PfcOperState,
    "RT301": ecn.EcnOnLosslessQueue,
    "RT302": ecn.EcnProfileValid,
    "RT303": ecn.EcnMarks,
    "RT304": ecn_thresholds.EcnThresholdScale,
    "RT305": ecn_thresholds.EcnBeforePfc,
    "RT306": ecn_fabric.EcnProfileUniform,
    "RT311": nic_cc.DcqcnRp,
    "RT312": nic_cc.DcqcnNp,
    "RT313": topology.CnpDscpMatch,
    "RT314": nic_cc.CnpPriority,
    "RT315": dcqcn_params.DcqcnParamsRange,
    "RT316": nic_cc.NicFirmwareCc,
    "RT401": ets.EtsWeightsValid,
    "RT402": ets_share.LosslessBandwidth,
    "RT403": ets.CnpStrict,
    "RT404": ets_share.BulkStrict,
    "RT501": buffers.HeadroomSufficient,
    "RT502": buffers.XonXoffOrder,
    "RT503": buffers.CableLength,
    "RT504": buffer_limits.HeadroomLimits,
    "RT505": buffer_limits.LosslessPool,
    "RT506": nic_port.NicRxBuffer,
    "RT601": mtu.SwitchMtu,
    "RT602": nic_port.RoceMtuFits,
    "RT603": nic_port.RoceV2,
    "RT701": links.LinkPfcMatch,
    "RT702": links.LinkClassMatch,
    "RT703": links.LinkMtuMatch,
    "RT704": links.LinkSpeedMatch,
    "RT705": fabric_uniform.FabricUniform,
    "RT706": fabric.EcnEveryHop,
    "RT707": fabric.DualHomingSymmetry,
    "RT708": deadlock.PfcDeadlockRisk,
    "RT709": lldp.LldpAppTlv,
    "RT710": topology.UnknownNeighbor,
    "RT801": counters.LosslessDrops,
    "RT802": counters.TransportRetries,
    "RT803": counters.PfcStorm,
    "RT804": counters.PauseDuration,
    "RT805": counters.CcLoop,
    "RT806": counters.CnpIgnored,
    "RT807": counters.GlobalPauseCounters,
    "RT808": counters.OversizeFrames,
    "RT809": counters.RoceOnLossyPriority,
    "RT810": counters.PfcOnLossy,
    "RT901": verify.PerftestBandwidth,
    "RT902": verify.PerftestLatency,
    "RT903": verify.PerftestSanity,
    "RT904": verify.PerftestFailed,
}
"""Code -> rule class, sorted by code (the public rule contract, docs/rule-catalogue.md)."""


def all_rules() -> tuple[type[Rule], ...]:
    """Return every registered rule class, sorted by code."""
    return tuple(RULES.values())


def rule_module(rule: type[Rule]) -> str:
    """The module that defines ``rule`` (``rocetune.checks.pfc``)."""
    return rule.__module__


def rule_by_code(code: str) -> type[Rule] | None:
    """Return the rule with ``code`` (or kebab name), or None."""
    found = RULES.get(code.upper())
    if found is not None:
        return found
    for r in RULES.values():
        if code.lower() == r.meta.name:
            return r
    return None
