"""Enterprise SONiC remediation: the sonic-cli lines that fix each finding, where they live.

Each change is one block to paste into ``configure terminal``: a mode line (``interface
Eth1/1``, ``qos map dscp-tc NAME``), the fixing lines one space in, and ``exit``. The
running configuration's own objects are edited in place: a DSCP fix changes the entries of
the ``dscp-tc`` map the port binds (every port bound to that map changes with it: the
change says so); PFC fixes add or remove ``priority-flow-control priority N``; MTU fixes set
``mtu``; watchdog fixes set the port's ``priority-flow-control watchdog`` lines; an ECN fix
binds the lossless queue to a WRED policy of the running configuration that marks ECN on
green packets. Rollback enters the old line again (``no <line>`` when there was none).
Settings without a sonic-cli remedy are listed as notes.

Safe apply: Enterprise SONiC has no commit-confirm for ``configure terminal``; the hint is
to save a copy first (``copy running-configuration startup-configuration`` after checking,
and keep ``show running-configuration`` of before), paste, verify, then ``write memory``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from rocetune.model import Device
from rocetune.platforms.changes import Change, Fix, PlatformPlan
from rocetune.platforms.common.cli_remedy import merge_change
from rocetune.platforms.common.running import running_config
from rocetune.platforms.enterprise_sonic.commands import RUNNING_CONFIG
from rocetune.platforms.enterprise_sonic.grammar import Issues, read_tree
from rocetune.platforms.enterprise_sonic.reader import read_config
from rocetune.platforms.enterprise_sonic.tables import KlishDb
from rocetune.snapshot import Snapshot, SourceFile

SAFE_APPLY = (
    "keep `show running-configuration` of before; configure terminal; paste the changes; "
    "verify (rocetune audit); write memory only after that; to undo, paste the rollback"
)
_WD_ACTIONS = ("drop", "alert", "forward")


@dataclass
class _Plan:
    kdb: KlishDb
    blocks: dict[str, Change] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(
        self,
        fix: Fix,
        header: str,
        pairs: list[tuple[str, str | None]],
        kind: str,
        port: str | None,
    ) -> None:
        pairs = [(new, old) for new, old in pairs if new != old]
        if not pairs:
            return
        text = "\n".join([header, *(f" {new}" for new, _ in pairs), "exit"])
        back = [old if old is not None else f"no {new}" for new, old in reversed(pairs)]
        rollback = "\n".join([header, *(f" {line}" for line in back), "exit"])
        merge_change(self.blocks, fix, text, rollback, kind=kind, port=port)

    def field(self, table: str, key: str, name: str) -> str | None:
        entry = self.kdb.db.table(table).get(key)
        value = entry.fields.get(name) if entry is not None else None
        return str(value) if value is not None else None


def remediate(
    fixes: list[Fix],
    snapshot: Snapshot,
    device: Device,
    intended: Callable[[], dict[str, str]] | None = None,
) -> PlatformPlan:
    """sonic-cli changes for ``fixes`` against the snapshot's running configuration."""
    del device, intended
    text = running_config(snapshot, RUNNING_CONFIG).text
    issues = Issues("running")
    plan = _Plan(read_config(read_tree(text, issues), issues))
    for fix in fixes:
        port = fix.port
        if fix.setting in ("pfc_add", "pfc_remove") and port:
            _pfc(plan, fix, port, add=fix.setting == "pfc_add")
        elif fix.setting == "dscp" and port:
            _dscp(plan, fix, port)
        elif fix.setting == "mtu" and port:
            old = plan.field("PORT", port, "mtu")
            plan.add(
                fix, f"interface {port}", [(f"mtu {fix.value}", _opt("mtu", old))], "mtu", port
            )
        elif fix.setting in ("watchdog_on", "watchdog_action"):
            _watchdog(plan, fix, [port] if port else sorted(plan.kdb.ports))
        elif fix.setting == "ecn_queue":
            _ecn(plan, fix)
        else:
            plan.notes.append(f"{fix.code}: no automatic Enterprise SONiC remedy for {fix.setting}")
    return PlatformPlan(changes=list(plan.blocks.values()), hint=SAFE_APPLY, notes=plan.notes)


def _opt(word: str, value: str | None) -> str | None:
    return f"{word} {value}" if value is not None else None


def _pfc(plan: _Plan, fix: Fix, port: str, *, add: bool) -> None:
    prios = sorted(cast("frozenset[int]", fix.value))
    pairs: list[tuple[str, str | None]] = []
    for prio in prios:
        line = f"priority-flow-control priority {prio}"
        pairs.append((line, None) if add else (f"no {line}", line))
    plan.add(fix, f"interface {port}", pairs, "pfc", port)


def _dscp(plan: _Plan, fix: Fix, port: str) -> None:
    name = plan.field("PORT_QOS_MAP", port, "dscp_to_tc_map")
    if name is None:
        plan.notes.append(f"{fix.code} on {port}: the port binds no qos map dscp-tc")
        return
    users = sorted(
        p
        for p, e in plan.kdb.db.table("PORT_QOS_MAP").items()
        if e.fields.get("dscp_to_tc_map") == name
    )
    pairs: list[tuple[str, str | None]] = []
    for dscp, prio in cast("tuple[tuple[int, int], ...]", fix.value):
        old = plan.field("DSCP_TO_TC_MAP", name, str(dscp))
        pairs.append((f"dscp {dscp} traffic-class {prio}", _old_dscp(dscp, old)))
    if len(users) > 1:
        note = f"qos map dscp-tc {name} is bound to {', '.join(users)}: its change applies to all"
        if note not in plan.notes:
            plan.notes.append(note)
    plan.add(fix, f"qos map dscp-tc {name}", pairs, "dscp_map", port)


def _old_dscp(dscp: int, old: str | None) -> str | None:
    return f"dscp {dscp} traffic-class {old}" if old is not None else None


def _watchdog(plan: _Plan, fix: Fix, ports: list[str]) -> None:
    for port in ports:

        def old(name: str, word: str, port: str = port) -> str | None:
            value = plan.field("PFC_WD", port, name)
            return f"priority-flow-control watchdog {word}{value}" if value is not None else None

        if fix.setting == "watchdog_action":
            action = str(fix.value)
            if action not in _WD_ACTIONS:
                plan.notes.append(f"{fix.code}: sonic-cli has no watchdog action {action!r}")
                return
            pairs = [(f"priority-flow-control watchdog action {action}", old("action", "action "))]
        else:
            detect, restore, action = cast("tuple[float, float, str]", fix.value)
            pairs = [
                (f"priority-flow-control watchdog action {action}", old("action", "action ")),
                (
                    f"priority-flow-control watchdog on detect-time {detect:g}",
                    old("detection_time", "on detect-time "),
                ),
                (
                    f"priority-flow-control watchdog restore-time {restore:g}",
                    old("restoration_time", "restore-time "),
                ),
            ]
        plan.add(fix, f"interface {port}", pairs, "watchdog", port)


def _ecn(plan: _Plan, fix: Fix) -> None:
    queue = cast("int", fix.value)
    marking = sorted(
        name
        for name, e in plan.kdb.db.table("WRED_PROFILE").items()
        if e.fields.get("ecn") in ("ecn_green", "ecn_all", "ecn_green_yellow", "ecn_green_red")
        and e.fields.get("green_min_threshold") is not None
    )
    if not marking:
        plan.notes.append(f"{fix.code}: no ECN-marking qos wred-policy in the running config")
        return
    ports = [fix.port] if fix.port else sorted(plan.kdb.ports)
    for port in ports:
        old = plan.field("QUEUE", f"{port}|{queue}", "wred_profile")
        line = f"queue {queue} wred-policy {marking[0]}"
        plan.add(
            fix, f"interface {port}", [(line, _opt(f"queue {queue} wred-policy", old))], "ecn", port
        )


def simulate(snapshot: Snapshot, blocks: list[str]) -> Snapshot:
    """The snapshot with the change blocks entered after its running configuration (sonic-cli
    applies lines in order; a later line of a mode overrides the earlier one)."""
    source = running_config(snapshot, RUNNING_CONFIG)
    text = source.text if source.text.endswith("\n") else source.text + "\n"
    text += "".join(f"!\n{block}\n" for block in blocks)
    files = {k: (SourceFile(v.path, text) if v is source else v) for k, v in snapshot.files.items()}
    return Snapshot(files=files, meta=snapshot.meta, origin=snapshot.origin)
