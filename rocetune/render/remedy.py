"""Remedies: per rule, the vendor-neutral fix a finding asks for (the input of a minimal plan).

A remedy reads one finding plus the parsed fabric and returns :class:`Fix` objects: which
setting of which device/port to move, and to what. Only what the finding names is touched:
a DSCP the intent does not mention keeps its priority, a port without a finding is never
selected, an MTU is only changed for an MTU finding. Link findings (RT70x, RT313) fix the
end(s) that differ from the intent, not both ends. Platforms turn fixes into native changes
(``rocetune/platforms/<p>/changeset.py``: ``remediate``).

Settings and their values:

- ``pfc_add`` / ``pfc_remove``: frozenset of priorities to add to / remove from the port's
  PFC set (RT201, RT202, RT701; RT102 leaves a RoCE priority without PFC to RT201).
- ``pfc_mode``: ``on`` for a port whose PFC priorities are configured but whose mode leaves
  them unused (RT201 on NX-OS ``priority-flow-control mode auto|off``).
- ``dscp``: tuple of (DSCP, priority) pairs for the classification map the port uses
  (RT102, RT104, RT702); only those DSCPs change.
- ``trust``: ``dscp`` (RT101, RT702 trust mismatch).
- ``mtu``: the port MTU (RT601, RT703).
- ``cnp_dscp``: the NIC's runtime CNP DSCP (RT313); ``cnp_dscp_firmware``: the mlxconfig
  value (RT316).
- ``watchdog_on``: (detection ms, restoration ms, action) for a port or device without one
  (RT205); ``watchdog_action``: the action word (RT207).
- ``ecn_queue``: the egress queue that must mark ECN (RT301, RT303, RT706).
- ``cable_length``: the link length in metres, with the headroom it needs (RT501, RT503).
- ``prio_buffer``: the NIC's priority -> receive buffer vector (RT506): the lossless
  priorities alone in the largest buffer the lossy ones do not use.

Rules not listed have no automatic remedy: the plan names them instead of changing anything,
with the reason :func:`no_remedy_reason` gives (per rule where a plain reason is known, e.g.
RT404 and RT705).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rocetune.fingerprint import fingerprint
from rocetune.model import Fabric, Finding, Link, NicPort, Port, Severity
from rocetune.platforms.changes import Fix
from rocetune.tune.classes import DEFAULT_TC, dscp_plan

Remedy = Callable[[Finding, Fabric], list[Fix]]


def _end(fabric: Fabric, device: str, port: str) -> Port | NicPort | None:
    dev = fabric.devices.get(device)
    if dev is None:
        return None
    return dev.ports.get(port) or dev.nics.get(port)


def _ends(finding: Finding, fabric: Fabric) -> list[tuple[str, str]]:
    """(device, port) of a finding: the link's two ends, else its own port."""
    link = _link(finding, fabric)
    if link is not None:
        return [(link.a.device, link.a.port), (link.b.device, link.b.port)]
    if finding.device and finding.port:
        return [(finding.device, finding.port)]
    return []


def _link(finding: Finding, fabric: Fabric) -> Link | None:
    if not finding.link:
        return None
    return next((lk for lk in fabric.links if lk.label == finding.link), None)


def _fix(finding: Finding, device: str, port: str | None, setting: str, value: object) -> Fix:
    return Fix(device, port, setting, value, fingerprint(finding), finding.code)


def _pfc(item: Port | NicPort) -> frozenset[int] | None:
    if isinstance(item, NicPort):
        got = item.pfc_priorities
    else:
        got = item.pfc_tx if item.pfc_tx is not None else item.pfc_rx
        if item.pfc_rx is not None and item.pfc_tx is not None:
            got = tuple(set(item.pfc_rx) & set(item.pfc_tx))
    return None if got is None else frozenset(got)


def _pfc_to_intent(finding: Finding, fabric: Fabric, *, remove: bool) -> list[Fix]:
    lossless = frozenset(fabric.intent.lossless_priorities)
    out: list[Fix] = []
    for device, port in _ends(finding, fabric):
        item = _end(fabric, device, port)
        current = None if item is None else _pfc(item)
        if current is None:
            continue
        if lossless - current:
            out.append(_fix(finding, device, port, "pfc_add", lossless - current))
        if remove and current - lossless:
            out.append(_fix(finding, device, port, "pfc_remove", current - lossless))
    return out


def pfc_missing(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT201: add the intent's lossless priorities the port lacks; a port whose priorities are
    configured but whose PFC mode leaves them unused (NX-OS ``mode auto``: DCBX decides, or
    ``mode off``) gets its mode turned on instead."""
    out = _pfc_to_intent(finding, fabric, remove=False)
    if out or not (finding.device and finding.port):
        return out
    item = _end(fabric, finding.device, finding.port)
    if isinstance(item, Port) and item.pfc_mode in ("auto", "off"):
        out.append(_fix(finding, finding.device, finding.port, "pfc_mode", "on"))
    return out


def pfc_extra(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT202: remove the PFC priorities the intent does not declare lossless."""
    out: list[Fix] = []
    lossless = frozenset(fabric.intent.lossless_priorities)
    for device, port in _ends(finding, fabric):
        item = _end(fabric, device, port)
        current = None if item is None else _pfc(item)
        if current is not None and current - lossless:
            out.append(_fix(finding, device, port, "pfc_remove", current - lossless))
    return out


def pfc_link(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT701: the end(s) whose PFC set is not the intent's get exactly the intent's set."""
    return _pfc_to_intent(finding, fabric, remove=True)


def _wanted_dscp(fabric: Fabric) -> dict[int, int]:
    """Intent-mentioned DSCPs (RoCE, CNP) -> their priority."""
    full = dscp_plan(fabric.intent)
    mentioned = (*fabric.intent.roce_dscp, fabric.intent.cnp.dscp)
    return {d: full[d] for d in mentioned}


def _dscp_or_trust(finding: Finding, fabric: Fabric, device: str, port: str) -> list[Fix]:
    item = _end(fabric, device, port)
    if item is None:
        return []
    out: list[Fix] = []
    if item.trust is not None and item.trust not in ("dscp", "both"):
        out.append(_fix(finding, device, port, "trust", "dscp"))
        if item.dscp_to_priority is None:
            # the map is not readable under this trust mode: set the intent's DSCPs too
            pairs = tuple(sorted(_wanted_dscp(fabric).items()))
            out.append(_fix(finding, device, port, "dscp", pairs))
        return out
    if item.dscp_to_priority is None:
        return out
    wrong = tuple(
        sorted((d, p) for d, p in _wanted_dscp(fabric).items() if item.dscp_to_priority.get(d) != p)
    )
    if wrong:
        out.append(_fix(finding, device, port, "dscp", wrong))
    return out


def roce_class(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT102: RoCE DSCP -> a priority without PFC: fix the map, or PFC on that priority."""
    if not (finding.device and finding.port):
        return []
    fixes = _dscp_or_trust(finding, fabric, finding.device, finding.port)
    if fixes:
        return fixes
    return _pfc_to_intent(finding, fabric, remove=False)


def class_link(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT702 / RT101: the end(s) that classify RoCE/CNP differently from the intent."""
    out: list[Fix] = []
    for device, port in _ends(finding, fabric):
        out.extend(_dscp_or_trust(finding, fabric, device, port))
    return out


def extra_lossless_dscp(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT104: DSCPs the intent does not name that land in a lossless priority -> priority 0."""
    if not (finding.device and finding.port):
        return []
    item = _end(fabric, finding.device, finding.port)
    if item is None or item.dscp_to_priority is None:
        return []
    lossless = set(fabric.intent.lossless_priorities)
    roce = set(fabric.intent.roce_dscp)
    extra = tuple(
        sorted(
            (d, DEFAULT_TC)
            for d, p in item.dscp_to_priority.items()
            if p in lossless and d not in roce
        )
    )
    return [_fix(finding, finding.device, finding.port, "dscp", extra)] if extra else []


def mtu(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT601 / RT703: the port(s) below the fabric's MTU get the intent's MTU."""
    out: list[Fix] = []
    for device, port in _ends(finding, fabric):
        dev = fabric.devices.get(device)
        item = _end(fabric, device, port)
        if dev is None or item is None or item.mtu is None:
            continue
        mtus = fabric.intent.mtu
        want = mtus.host if dev.kind == "host" else mtus.switch_for(dev.mtu_max)
        if item.mtu < want:
            out.append(_fix(finding, device, port, "mtu", want))
    return out


def cnp_dscp(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT313: a NIC that sends CNPs with another DSCP than the intent's."""
    want = fabric.intent.cnp.dscp
    out: list[Fix] = []
    for device, port in _ends(finding, fabric):
        item = _end(fabric, device, port)
        if isinstance(item, NicPort) and item.cnp_dscp is not None and item.cnp_dscp != want:
            out.append(_fix(finding, device, port, "cnp_dscp", want))
    return out


def cnp_firmware(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT316: the NIC firmware's CNP DSCP differs from the intent's."""
    if not (finding.device and finding.port):
        return []
    return [
        _fix(finding, finding.device, finding.port, "cnp_dscp_firmware", fabric.intent.cnp.dscp)
    ]


def _watchdog_value(fabric: Fabric) -> tuple[float, float, str]:
    wd = fabric.intent.pfc_watchdog
    return (wd.detection_ms, wd.restoration_ms, wd.action)


def watchdog_off(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT205: turn the PFC watchdog on (the intent's timers and action)."""
    if not finding.device:
        return []
    return [_fix(finding, finding.device, finding.port, "watchdog_on", _watchdog_value(fabric))]


def watchdog_action(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT207: the watchdog action the intent declares."""
    if not finding.device:
        return []
    action = fabric.intent.pfc_watchdog.action
    return [_fix(finding, finding.device, finding.port, "watchdog_action", action)]


def ecn_queue(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT301 / RT303 / RT706: every lossless queue marks ECN (on the device reported)."""
    if not finding.device:
        return []
    return [
        _fix(finding, finding.device, None, "ecn_queue", q)
        for q in fabric.intent.lossless_priorities
    ]


def cable_length(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT501 / RT503: size the port for its link's length (cable length + headroom)."""
    if not (finding.device and finding.port):
        return []
    length = None
    for lk in fabric.links:
        for end in (lk.a, lk.b):
            if (end.device, end.port) == (finding.device, finding.port):
                length = lk.length_m
    if length is None:
        return []
    return [_fix(finding, finding.device, finding.port, "cable_length", float(length))]


def nic_buffer(finding: Finding, fabric: Fabric) -> list[Fix]:
    """RT506: lossless priorities into their own (largest free) NIC receive buffer."""
    if not (finding.device and finding.port):
        return []
    nic = _end(fabric, finding.device, finding.port)
    if not isinstance(nic, NicPort) or not nic.priority_to_buffer or not nic.buffer_sizes_bytes:
        return []
    lossless = set(fabric.intent.lossless_priorities)
    lossy = [b for p, b in nic.priority_to_buffer.items() if p not in lossless]
    shared = max(set(lossy), key=lossy.count) if lossy else 0
    free = [b for b, size in nic.buffer_sizes_bytes.items() if b != shared and size > 0]
    if not free:
        return []
    own = max(free, key=lambda b: nic.buffer_sizes_bytes[b] if nic.buffer_sizes_bytes else 0)
    vector = tuple(own if p in lossless else shared for p in range(8))
    return [_fix(finding, finding.device, finding.port, "prio_buffer", vector)]


REMEDIES: dict[str, Remedy] = {
    "RT101": class_link,
    "RT102": roce_class,
    "RT104": extra_lossless_dscp,
    "RT201": pfc_missing,
    "RT202": pfc_extra,
    "RT205": watchdog_off,
    "RT207": watchdog_action,
    "RT301": ecn_queue,
    "RT303": ecn_queue,
    "RT313": cnp_dscp,
    "RT316": cnp_firmware,
    "RT501": cable_length,
    "RT503": cable_length,
    "RT506": nic_buffer,
    "RT601": mtu,
    "RT701": pfc_link,
    "RT702": class_link,
    "RT703": mtu,
    "RT706": ecn_queue,
}
"""Rule code -> its remedy (explicit registry; codes not listed have no automatic fix)."""


_RT705_RULES = {
    "DSCP plan": "RT102/RT702",
    "lossless set": "RT201/RT202/RT701",
    "PFC set": "RT201/RT202/RT701",
    "CNP class": "RT103/RT403",
    "PFC watchdog policy": "RT205/RT207",
    "trust mode": "RT101/RT702",
    "CNP DSCP/priority": "RT313/RT316",
    "MTU": "RT601/RT703",
}
"""RT705 aspect label (as its message names it) -> the rules that judge that setting against
the intent (their remedies are the fixes)."""


def _no_remedy_rt404(finding: Finding) -> str:
    queues = finding.message.split(" are strict", 1)[0]
    return (
        f"{queues} would each need a DWRR/ETS share, taken from the classes that have one "
        "today: the bandwidth split is a policy decision, so no automatic change is safe; "
        "give the data queues a share by hand (`no priority` and a `bandwidth percent`, or "
        "the platform's ETS weights) or use --converge"
    )


def rt705_rules(finding: Finding) -> tuple[str, ...]:
    """The rules that judge the setting an RT705 finding compares (empty: not known)."""
    rules = next(
        (r for label, r in _RT705_RULES.items() if f" has {label} " in finding.message), ""
    )
    return tuple(rules.split("/")) if rules else ()


def _no_remedy_rt705(finding: Finding) -> str:
    rules = "/".join(rt705_rules(finding))
    where = f"the rules that judge it against the intent ({rules})" if rules else "another rule"
    return (
        "RT705 compares a device with the fabric's majority, not with the intent: moving it "
        "to the majority could move it away from the intent, so no automatic change is made; "
        f"the fix is that of {where}, which the plan applies when such a finding is at or "
        "above --fail-on"
    )


NO_REMEDY: dict[str, Callable[[Finding], str]] = {
    "RT404": _no_remedy_rt404,
    "RT705": _no_remedy_rt705,
}
"""Rule code -> why its findings get no automatic change (said per finding in the plan)."""


def no_remedy_reason(finding: Finding) -> str:
    """Why the plan leaves ``finding`` to a person (rules without a remedy, or a remedy that
    finds nothing to change for this finding)."""
    reason = NO_REMEDY.get(finding.code)
    if reason is not None:
        return reason(finding)
    if finding.code in REMEDIES:
        return (
            "the rule's remedy found no setting to change for this finding (the value it "
            "would set is unknown or already set): fix it by hand or use --converge"
        )
    return "no automatic fix for this rule: fix it by hand or use --converge"


@dataclass
class Remediation:
    """The fixes of a set of findings, per device, and the findings without a remedy."""

    fixes: dict[str, list[Fix]] = field(default_factory=dict)
    unremedied: list[Finding] = field(default_factory=list)
    """Findings in scope that no remedy fixes (named in the plan, never changed)."""
    in_scope: list[Finding] = field(default_factory=list)


def remediation(
    findings: Iterable[Finding], fabric: Fabric, fail_on: Severity = Severity.ERROR
) -> Remediation:
    """Fixes for every finding at or above ``fail_on`` (RT000-RT002 are never remedied)."""
    out = Remediation()
    for f in findings:
        if f.severity.rank < fail_on.rank or f.code in ("RT000", "RT001", "RT002"):
            continue
        out.in_scope.append(f)
        remedy = REMEDIES.get(f.code)
        got = remedy(f, fabric) if remedy is not None else []
        if not got:
            out.unremedied.append(f)
        for fix in got:
            out.fixes.setdefault(fix.device, []).append(fix)
    return out
