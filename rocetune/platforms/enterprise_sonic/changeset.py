"""Enterprise SONiC change set (``plan --converge``): running configuration -> rendered one.

Both texts are put in indented form by CLI mode first (:mod:`.grammar`: the switch's own
output is indented, vendor guides print it flush left), then diffed with hier-config's
generic platform (``no <line>`` negations) over what rocetune renders: the objects of the
same name (``qos map ... ROCETUNE``, ``qos wred-policy ROCETUNE-<speed>``, ``qos
scheduler-policy ROCETUNE``), the global watchdog poll, and in ``interface`` blocks only the
lines whose first word rocetune renders there. Objects of other names are left alone (a port
may still bind them). Each change ends with one ``exit`` per mode it entered, so it can be
pasted into ``configure terminal`` as it is.
"""

from __future__ import annotations

from hier_config import Platform

from rocetune.model import Device
from rocetune.platforms.changes import Change, PlatformPlan
from rocetune.platforms.common.cli_changeset import (
    CliScope,
    diff_cli,
    interface_port,
    kind_by_prefix,
)
from rocetune.platforms.common.running import running_config
from rocetune.platforms.enterprise_sonic.commands import RUNNING_CONFIG
from rocetune.platforms.enterprise_sonic.grammar import Issues, Node, read_tree
from rocetune.platforms.enterprise_sonic.remediate import SAFE_APPLY
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget

KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("priority-flow-control watchdog",), "watchdog"),
    (("priority-flow-control", "pfc"), "pfc"),
    (("mtu",), "mtu"),
    (("speed",), "speed"),
    (("qos wred-policy", "green", "yellow", "red", "ecn"), "ecn"),
    (("qos scheduler-policy", "scheduler-policy", "type", "weight"), "scheduling"),
    (("qos-map", "qos map", "dscp", "dot1p", "traffic-class", "pfc-priority"), "dscp_map"),
)
"""Line prefix -> neutral kind, first match wins (``no`` forms included)."""


def kind_of(line: str) -> str:
    """The neutral kind of one sonic-cli line."""
    bare = line[3:] if line.startswith("no ") else line
    if bare.startswith("queue ") and " wred-policy" in bare:
        return "ecn"
    if bare.startswith("queue "):
        return "scheduling"
    return kind_by_prefix(line, KINDS)


SCOPE = CliScope(
    platform=Platform.GENERIC,
    owned_prefixes=("priority-flow-control watchdog polling-interval",),
    partial_sections=("interface ",),
    kind_of=kind_of,
    port_of=interface_port,
    hint=SAFE_APPLY,
)


def indented(text: str) -> str:
    """sonic-cli text with every mode body indented one space per level (prompts, exec
    commands and comments dropped)."""
    out: list[str] = []

    def emit(node: Node, depth: int) -> None:
        out.append(" " * depth + node.text)
        for child in node.children:
            emit(child, depth + 1)

    for root in read_tree(text, Issues("text")):
        emit(root, 0)
    return "\n".join(out) + "\n"


def with_exits(text: str) -> str:
    """An indented block with an ``exit`` after the body of every mode it enters."""
    lines = text.splitlines()
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    out: list[str] = []
    open_modes: list[int] = []
    for i, line in enumerate(lines):
        while open_modes and indents[i] <= open_modes[-1]:
            out.append(" " * open_modes.pop() + "exit")
        out.append(line)
        if i + 1 < len(lines) and indents[i + 1] > indents[i]:
            open_modes.append(indents[i])
    while open_modes:
        out.append(" " * open_modes.pop() + "exit")
    return "\n".join(out)


def changeset(
    snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
) -> PlatformPlan:
    """Diff the snapshot's running configuration against the rendered configuration."""
    del device, target
    intended = next(t for p, t in rendered.items() if p.endswith(".esonic.cfg"))
    plan = diff_cli(
        indented(running_config(snapshot, RUNNING_CONFIG).text), indented(intended), SCOPE
    )
    plan.changes = [
        Change(with_exits(c.text), c.kind, c.port, c.rollback, c.fixes, c.codes, c.because)
        for c in plan.changes
    ]
    return plan
