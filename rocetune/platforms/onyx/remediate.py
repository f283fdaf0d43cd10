"""Onyx remediation: the commands that fix each finding, in Onyx's flat command form.

Onyx configuration is a sequence of one-line commands (``interface ethernet 1/1 qos trust
L3``); a later command replaces what an earlier one set, so a change is a list of commands
and its rollback the commands that restore the old values (``no <command>`` where there was
none). Settings (:mod:`rocetune.render.remedy`):

- ``trust`` -> ``interface ethernet X qos trust L3``;
- ``pfc_add`` -> ``dcb priority-flow-control enable force`` (when PFC is off globally),
  ``dcb priority-flow-control priority P enable`` and the port's ``dcb priority-flow-control
  mode on force``; ``pfc_remove`` -> ``no dcb priority-flow-control priority P enable``.
  Onyx enables PFC priorities switch-wide: the plan says so in a note;
- ``mtu`` -> ``interface ethernet X mtu M force``;
- ``ecn_queue`` -> ``interface ethernet X traffic-class T congestion-control ecn
  minimum-absolute A maximum-absolute B`` with the thresholds of the intended (rendered)
  config for that port.

The watchdog and DSCP-map settings have no automatic Onyx remedy (their syntax is not
confirmed): the plan lists them. Safe apply (NVIDIA MLNX-OS/Onyx User Manual,
"Configuration Management",
https://docs.nvidia.com/networking/display/nvidiamlnxosusermanualv3112300lts/configuration+management):
``configuration write to rocetune-before no-switch`` saves a copy and keeps the active file
(without ``no-switch`` the copy would become the active file, and the final ``configuration
write`` would overwrite it); enter the changes in ``configure terminal``, verify, then
``configuration write``; to go back, ``configuration switch-to rocetune-before`` and reload.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rocetune.model import Device, Port
from rocetune.platforms.changes import Change, Fix, PlatformPlan
from rocetune.platforms.common.running import running_config
from rocetune.platforms.onyx.commands import RUNNING_CONFIG
from rocetune.platforms.onyx.context import cli_port
from rocetune.snapshot import Snapshot, SourceFile

SAFE_APPLY = (
    "configuration write to rocetune-before no-switch; configure terminal; enter the changes; "
    "verify; "
    "configuration write to keep them (configuration switch-to rocetune-before and reload "
    "to go back)"
)
_TRUST_WORD = {"pcp": "L2", "dscp": "L3", "both": "both", "port": "port"}


class _Plan:
    def __init__(self) -> None:
        self.changes: dict[str, Change] = {}
        self.notes: list[str] = []

    def add(self, fix: Fix, pairs: list[tuple[str, str]], kind: str) -> None:
        """``pairs``: (command, rollback command); merged with an equal change."""
        pairs = [(c, r) for c, r in pairs if c != r]
        if not pairs:
            return
        text = "\n".join(c for c, _ in pairs)
        back = "\n".join(r for _, r in reversed(pairs))
        got = self.changes.get(text)
        fixes = set(got.fixes if got else ()) | ({fix.fingerprint} if fix.fingerprint else set())
        codes = set(got.codes if got else ()) | {fix.code}
        self.changes[text] = Change(
            text,
            kind,
            fix.port,
            back,
            tuple(sorted(fixes)),
            tuple(sorted(codes)),
            fix.because,
        )


def remediate(
    fixes: list[Fix],
    snapshot: Snapshot,
    device: Device,
    intended: Callable[[], dict[str, str]] | None = None,
) -> PlatformPlan:
    """Onyx changes for ``fixes`` against the snapshot's running-config."""
    running_config(snapshot, RUNNING_CONFIG)
    plan = _Plan()
    for fix in fixes:
        port = device.ports.get(fix.port or "")
        if fix.setting == "trust" and port is not None:
            _trust(plan, fix, port)
        elif fix.setting == "pfc_add" and port is not None:
            _pfc_add(plan, fix, port, device)
        elif fix.setting == "pfc_remove":
            prios = sorted(fix.value)  # type: ignore[call-overload]
            plan.add(
                fix,
                [
                    (
                        f"no dcb priority-flow-control priority {p} enable",
                        f"dcb priority-flow-control priority {p} enable",
                    )
                    for p in prios
                ],
                "pfc",
            )
            plan.notes.append(f"{fix.code}: Onyx PFC priorities are switch-wide")
        elif fix.setting == "mtu" and port is not None:
            old = port.mtu or 1500
            head = f"interface ethernet {cli_port(port.name)}"
            plan.add(fix, [(f"{head} mtu {fix.value} force", f"{head} mtu {old} force")], "mtu")
        elif fix.setting == "ecn_queue" and port is not None:
            _ecn(plan, fix, port, intended)
        else:
            plan.notes.append(f"{fix.code}: no automatic Onyx remedy for {fix.setting}")
    notes = list(dict.fromkeys(plan.notes))
    return PlatformPlan(changes=list(plan.changes.values()), hint=SAFE_APPLY, notes=notes)


def _trust(plan: _Plan, fix: Fix, port: Port) -> None:
    head = f"interface ethernet {cli_port(port.name)}"
    old = _TRUST_WORD.get(port.trust or "")
    back = f"{head} qos trust {old}" if old else f"{head} no qos trust"
    plan.add(fix, [(f"{head} qos trust L3", back)], "trust")


def _pfc_add(plan: _Plan, fix: Fix, port: Port, device: Device) -> None:
    prios = sorted(fix.value)  # type: ignore[call-overload]
    enabled = {p for other in device.ports.values() for p in (other.pfc_rx or ())}
    pairs: list[tuple[str, str]] = []
    if not enabled:
        pairs.append(
            ("dcb priority-flow-control enable force", "no dcb priority-flow-control enable force")
        )
    for prio in prios:
        if prio not in enabled:
            pairs.append(
                (
                    f"dcb priority-flow-control priority {prio} enable",
                    f"no dcb priority-flow-control priority {prio} enable",
                )
            )
    if port.pfc_mode != "on":
        head = f"interface ethernet {cli_port(port.name)}"
        pairs.append(
            (
                f"{head} dcb priority-flow-control mode on force",
                f"{head} no dcb priority-flow-control mode force",
            )
        )
    plan.add(fix, pairs, "pfc")
    if any(p not in enabled for p in prios):
        plan.notes.append(f"{fix.code}: Onyx enables PFC priorities switch-wide")


_ECN = re.compile(
    r"^\s*interface ethernet (\S+) traffic-class (\d) congestion-control ecn "
    r"minimum-absolute (\d+) maximum-absolute (\d+)\s*$",
    re.MULTILINE,
)


def _ecn(plan: _Plan, fix: Fix, port: Port, intended: Callable[[], dict[str, str]] | None) -> None:
    wanted = None
    rendered = intended() if intended is not None else {}
    for text in rendered.values():
        for match in _ECN.finditer(text):
            if match.group(1) == cli_port(port.name) and int(match.group(2)) == fix.value:
                wanted = match.group(0).strip()
    if wanted is None:
        plan.notes.append(f"{fix.code}: no intended ECN thresholds for {port.name}")
        return
    head = f"interface ethernet {cli_port(port.name)} traffic-class {fix.value}"
    old = (port.ecn or {}).get(int(fix.value))  # type: ignore[call-overload]
    if old is not None and old.min_threshold_bytes and old.max_threshold_bytes:
        mode = "both" if old.red_drop and old.ecn_mark else ("red" if old.red_drop else "ecn")
        back = (
            f"{head} congestion-control {mode} minimum-absolute {old.min_threshold_bytes // 1000}"
            f" maximum-absolute {old.max_threshold_bytes // 1000}"
        )
    else:
        back = f"{head} no congestion-control"
    plan.add(fix, [(wanted, back)], "ecn")


def simulate(snapshot: Snapshot, blocks: list[str]) -> Snapshot:
    """The snapshot with the change blocks entered after its running-config (Onyx applies
    commands in order: a later command replaces what an earlier one set)."""
    source = running_config(snapshot, RUNNING_CONFIG)
    text = source.text.rstrip("\n") + "\n" + "\n".join(b.strip("\n") for b in blocks) + "\n"
    files = {k: (SourceFile(v.path, text) if v is source else v) for k, v in snapshot.files.items()}
    return Snapshot(files=files, meta=snapshot.meta, origin=snapshot.origin)
