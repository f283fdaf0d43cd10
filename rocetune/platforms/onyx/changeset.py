"""Onyx change set (``rocetune plan --converge``): running config -> the rendered config.

Both sides are read as Onyx statements (:mod:`.lines`), interface ranges expanded to one
line per port (``interface ethernet 1/1-1/2 qos trust L3`` -> two lines). Every rendered
command the running config lacks is a change; since Onyx applies commands in order, a
rendered line replaces the running line of the same setting (same port, same traffic class)
and that line is the change's rollback. Running lines rocetune owns that the intended
config does not have are removed: extra ``dcb priority-flow-control priority N enable`` and
``traffic-class N congestion-control`` of a rendered port. Other running lines are left
alone.
"""

from __future__ import annotations

import re

from rocetune.model import Device
from rocetune.platforms.changes import Change, PlatformPlan
from rocetune.platforms.common.running import running_config
from rocetune.platforms.onyx.commands import RUNNING_CONFIG
from rocetune.platforms.onyx.lines import read_lines
from rocetune.platforms.onyx.reader import expand
from rocetune.platforms.onyx.remediate import SAFE_APPLY
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget

_KINDS: tuple[tuple[str, str], ...] = (
    ("qos trust", "trust"),
    ("dcb priority-flow-control", "pfc"),
    ("traffic pool", "buffers"),
    ("congestion-control", "ecn"),
    ("dcb ets", "scheduling"),
    ("bind switch-priority", "dscp_map"),
    ("mtu", "mtu"),
)
_NEGATE: dict[str, str] = {
    "qos trust": "no qos trust",
    "dcb priority-flow-control mode": "no dcb priority-flow-control mode force",
    "mtu": "mtu 1500 force",
}
_TC = re.compile(r"^traffic-class (\d) (congestion-control|dcb ets|bind switch-priority)")


def kind_of(line: str) -> str:
    """The neutral kind of one Onyx command."""
    for part, kind in _KINDS:
        if part in line:
            return kind
    return "other"


def statements(text: str) -> list[tuple[str | None, str]]:
    """(port or None, command) of every statement, interface ranges expanded per port."""
    out: list[tuple[str | None, str]] = []
    for st in read_lines(text).statements:
        words = st.text.split()
        if st.context is not None:
            ports = expand(*st.context) or []
            out.extend((p, st.text) for p in ports)
        elif words[0] == "interface" and len(words) > 3:
            ports = expand(words[1], words[2]) or []
            out.extend((p, " ".join(words[3:])) for p in ports)
        elif words[0] != "interface":
            out.append((None, st.text))
    return out


def setting(command: str) -> str:
    """What a command sets (``qos trust``, ``traffic-class 3 congestion-control``, ``mtu``)."""
    found = _TC.match(command)
    if found:
        return f"traffic-class {found.group(1)} {found.group(2)}"
    for prefix in ("qos trust", "dcb priority-flow-control mode", "mtu", "speed"):
        if command.startswith(prefix):
            return prefix
    return command


def _line(port: str | None, command: str) -> str:
    return command if port is None else f"interface ethernet {port[3:]} {command}"


def changeset(
    snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
) -> PlatformPlan:
    """Diff the snapshot's running-config against the rendered config."""
    del device, target
    running = statements(running_config(snapshot, RUNNING_CONFIG).text)
    intended_text = next(t for p, t in rendered.items() if p.endswith(".cfg"))
    intended = statements(intended_text)
    have = set(running)
    current: dict[tuple[str | None, str], str] = {}
    for port, command in running:
        current[(port, setting(command))] = command
    changes: list[Change] = []
    for port, command in intended:
        if (port, command) in have or command.startswith("hostname "):
            continue
        old = current.get((port, setting(command)))
        back = _rollback(port, command, old)
        changes.append(Change(_line(port, command), kind_of(command), port, back))
    wanted = set(intended)
    replaced = {(p, setting(c)) for p, c in intended}
    ports = {p for p, _ in intended if p is not None}
    for port, command in running:
        if (port, command) in wanted or (port, setting(command)) in replaced:
            continue
        extra_prio = port is None and re.match(
            r"^dcb priority-flow-control priority \d enable$", command
        )
        extra_cc = port in ports and re.match(r"^traffic-class \d congestion-control ", command)
        if extra_prio or extra_cc:
            gone = "no " + (
                command
                if extra_prio
                else command.split(" congestion-control")[0] + " congestion-control"
            )
            changes.append(Change(_line(port, gone), kind_of(command), port, _line(port, command)))
    return PlatformPlan(changes=changes, hint=SAFE_APPLY)


def _rollback(port: str | None, command: str, old: str | None) -> str | None:
    if old is not None:
        return _line(port, old)
    for prefix, negation in _NEGATE.items():
        if command.startswith(prefix):
            return _line(port, negation)
    if command.startswith("dcb priority-flow-control") or command.startswith("traffic pool"):
        return _line(port, "no " + command)
    found = _TC.match(command)
    if found and found.group(2) == "congestion-control":
        return _line(port, f"no traffic-class {found.group(1)} congestion-control")
    return None
