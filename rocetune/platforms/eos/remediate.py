"""Arista EOS remediation: the config lines that fix each finding, entered where they live.

The watchdog action is one global line (``priority-flow-control pause watchdog action``),
replaced in place; an MTU fix is the interface's ``mtu``; a DSCP fix is one ``qos map dscp
<d> to traffic-class <tc>`` line per priority, which overrides only those DSCPs. Rollback
enters the old line again (``no <line>`` when the running config had none).

Safe apply (Arista EOS configuration sessions,
https://www.arista.com/en/um-eos/eos-configure-session; commit timer as in Arista's TOI,
https://eos.arista.com/author/7261-skommu/): ``configure session rocetune-<run>``, paste the
changes, ``show session-config diffs``, ``commit timer 00:10:00`` (hh:mm:ss, no default),
verify, then ``configure session rocetune-<run> commit`` to keep it (``... abort`` or the
timer's expiry reverts); ``write memory`` only after that confirm.
"""

from __future__ import annotations

from collections import defaultdict

from rocetune.model import Device
from rocetune.platforms.changes import Fix, PlatformPlan
from rocetune.platforms.common.cli_edit import parse
from rocetune.platforms.common.cli_remedy import CliPlan, child_starting, simulate_text
from rocetune.platforms.common.running import running_config
from rocetune.platforms.eos.commands import RUNNING_CONFIG
from rocetune.snapshot import Snapshot, SourceFile

UNIT = 3
SINGLE = ("priority-flow-control pause watchdog action", "mtu")
SAFE_APPLY = (
    "configure session rocetune-<run>; enter the changes; show session-config diffs; "
    "commit timer 00:10:00; verify; then `configure session rocetune-<run> commit` to keep "
    "them (abort or timer expiry reverts); write memory after that"
)
_ACTIONS = {"drop": "drop", "forward": "no-drop"}


def remediate(fixes: list[Fix], snapshot: Snapshot, device: Device) -> PlatformPlan:
    """EOS changes for ``fixes`` against the snapshot's running-config."""
    root = parse(running_config(snapshot, RUNNING_CONFIG).text)
    cli = CliPlan(UNIT, SINGLE)
    for fix in fixes:
        if fix.setting == "watchdog_action" and isinstance(fix.value, str):
            word = _ACTIONS.get(fix.value)
            if word is None:
                cli.notes.append(f"{fix.code}: EOS has no watchdog action {fix.value!r}")
                continue
            prefix = "priority-flow-control pause watchdog action"
            cli.add(fix, [], f"{prefix} {word}", child_starting(root, prefix), "watchdog")
        elif fix.setting == "mtu" and fix.port:
            header = f"interface {fix.port}"
            section = next((c for c in root.children if c.text == header), None)
            old = child_starting(section, "mtu")
            cli.add(fix, [header], f"mtu {fix.value}", old, "mtu", port=fix.port)
        elif fix.setting == "dscp":
            _dscp(cli, fix, device)
        else:
            cli.notes.append(f"{fix.code}: no automatic EOS remedy for {fix.setting}")
    return cli.plan(SAFE_APPLY)


def _dscp(cli: CliPlan, fix: Fix, device: Device) -> None:
    port = device.ports.get(fix.port or "")
    current = port.dscp_to_priority if port is not None else None
    pairs: tuple[tuple[int, int], ...] = fix.value  # type: ignore[assignment]
    by_new: dict[int, list[int]] = defaultdict(list)
    for d, p in pairs:
        by_new[p].append(d)
    for prio, dscps in sorted(by_new.items()):
        line = "qos map dscp " + " ".join(map(str, sorted(dscps))) + f" to traffic-class {prio}"
        olds = {(current or {}).get(d) for d in dscps}
        old = None
        if len(olds) == 1 and None not in olds:
            old = "qos map dscp " + " ".join(map(str, sorted(dscps)))
            old += f" to traffic-class {olds.pop()}"
        cli.add(fix, [], line, old, "dscp_map")


def simulate(snapshot: Snapshot, blocks: list[str]) -> Snapshot:
    """The snapshot with the change blocks entered into its running-config."""
    source = running_config(snapshot, RUNNING_CONFIG)
    text = simulate_text(source.text, blocks, UNIT, SINGLE)
    files = {k: (SourceFile(v.path, text) if v is source else v) for k, v in snapshot.files.items()}
    return Snapshot(files=files, meta=snapshot.meta, origin=snapshot.origin)
