"""Cisco NX-OS remediation: edit the policies the switch already binds, line by line.

ECN: the ``random-detect`` line of the lossless queue's class in every queuing policy bound
(``system qos`` or an interface) gets ``ecn`` appended; the policy keeps its name and its
bindings (no new policy is created or attached). Watchdog: the global
``priority-flow-control watch-dog-interval on``. MTU: the interface's ``mtu``. PFC mode
(RT201 on a port left to DCBX by ``mode auto``): the interface's ``priority-flow-control
mode on``. Rollback enters
the old line again, or ``no <line>`` for a line that was not there; as the policies are edited
in place, nothing is detached or deleted.

Safe apply (Cisco Nexus 9000 NX-OS System Management Configuration Guide, "Configuring
Rollback",
https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus9000/sw/105x/config-guides/cisco-nexus-9000-series-nx-os-system-management-configuration-guide-release-105x/m-configuring-rollback-10x.html):
``checkpoint rocetune-before``, enter the changes, verify; undo with ``rollback running-config
checkpoint rocetune-before`` (atomic by default). At most 10 checkpoints: delete it with ``no
checkpoint rocetune-before`` once kept; ``copy running-config startup-config`` persists.
"""

from __future__ import annotations

from typing import cast

from rocetune.model import Device
from rocetune.platforms.changes import Fix, PlatformPlan
from rocetune.platforms.common.cli_edit import Node, parse
from rocetune.platforms.common.cli_remedy import CliPlan, child_starting, find, simulate_text
from rocetune.platforms.common.running import running_config
from rocetune.platforms.nxos.commands import RUNNING_CONFIG
from rocetune.snapshot import Snapshot, SourceFile

UNIT = 2
SINGLE = (
    "random-detect",
    "mtu",
    "priority-flow-control mode",
    "priority-flow-control watch-dog-interval",
    "priority-flow-control watch-dog interval",
    "priority-flow-control watch-dog shutdown-multiplier",
    "priority-flow-control fixed-restore multiplier",
)
POLL_MS = 100
"""The watchdog poll interval rocetune renders (tune.target DEFAULT_POLL_MS), at most the
detection and restoration times."""
SAFE_APPLY = (
    "checkpoint rocetune-before; enter the changes; verify; "
    "undo: rollback running-config checkpoint rocetune-before (atomic); "
    "keep: copy running-config startup-config, then no checkpoint rocetune-before"
)
_QUEUE_CLASSES = ("c-out-8q-q{q}", "c-out-q{q}")


def _queuing_policies(root: Node) -> list[str]:
    names: list[str] = []
    for top in root.children:
        if top.text == "system qos" or top.text.startswith("interface "):
            for c in top.children:
                words = c.text.split()
                if words[:4] == ["service-policy", "type", "queuing", "output"] and len(words) == 5:
                    names.append(words[4])
    return sorted(set(names))


def _ecn(cli: CliPlan, fix: Fix, root: Node) -> None:
    done = False
    for policy in _queuing_policies(root):
        header = f"policy-map type queuing {policy}"
        for pattern in _QUEUE_CLASSES:
            cls = f"class type queuing {pattern.format(q=fix.value)}"
            node = find(root, header, cls)
            if node is None:
                continue
            old = child_starting(node, "random-detect")
            if old is None:
                cli.notes.append(
                    f"{fix.code}: {policy} {cls} has no random-detect line to mark ECN with"
                )
            elif old.split()[-1] != "ecn":
                cli.add(fix, [header, cls], old + " ecn", old, "ecn")
            done = True
    if not done:
        cli.notes.append(f"{fix.code}: no bound queuing policy has a class for queue {fix.value}")


def _watchdog(cli: CliPlan, fix: Fix, root: Node) -> None:
    """Global watchdog on, with timers: detection = interval x shutdown-multiplier,
    restoration = interval x fixed-restore multiplier (as the full render writes them)."""
    detect, restore, _action = cast("tuple[float, float, str]", fix.value)
    poll = min(POLL_MS, detect, restore)
    wanted = [
        ("priority-flow-control watch-dog interval", f"{round(poll)}"),
        ("priority-flow-control watch-dog shutdown-multiplier", f"{round(detect / poll)}"),
        ("priority-flow-control fixed-restore multiplier", f"{round(restore / poll)}"),
        ("priority-flow-control watch-dog-interval", "on"),
    ]
    pairs = [(f"{p} {v}", child_starting(root, p)) for p, v in wanted]
    cli.add_lines(fix, [], pairs, "watchdog")


def remediate(fixes: list[Fix], snapshot: Snapshot, device: Device) -> PlatformPlan:
    """NX-OS changes for ``fixes`` against the snapshot's running-config."""
    del device
    root = parse(running_config(snapshot, RUNNING_CONFIG).text)
    cli = CliPlan(UNIT, SINGLE)
    for fix in fixes:
        if fix.setting == "ecn_queue":
            _ecn(cli, fix, root)
        elif fix.setting == "watchdog_on":
            _watchdog(cli, fix, root)
        elif fix.setting == "mtu" and fix.port:
            header = f"interface {fix.port}"
            old = child_starting(find(root, header), "mtu")
            cli.add(fix, [header], f"mtu {fix.value}", old, "mtu", port=fix.port)
        elif fix.setting == "pfc_mode" and fix.port:
            # the no-drop CoS are already set system-wide (network-qos): the port only has to
            # run PFC on them instead of leaving it to DCBX (``mode auto``, the default)
            header = f"interface {fix.port}"
            old = child_starting(find(root, header), "priority-flow-control mode")
            line = f"priority-flow-control mode {fix.value}"
            cli.add(fix, [header], line, old, "pfc", port=fix.port)
        else:
            cli.notes.append(f"{fix.code}: no automatic NX-OS remedy for {fix.setting}")
    return cli.plan(SAFE_APPLY)


def simulate(snapshot: Snapshot, blocks: list[str]) -> Snapshot:
    """The snapshot with the change blocks entered into its running-config."""
    source = running_config(snapshot, RUNNING_CONFIG)
    text = simulate_text(source.text, blocks, UNIT, SINGLE)
    files = {k: (SourceFile(v.path, text) if v is source else v) for k, v in snapshot.files.items()}
    return Snapshot(files=files, meta=snapshot.meta, origin=snapshot.origin)
