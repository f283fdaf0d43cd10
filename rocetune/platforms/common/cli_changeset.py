"""Change sets of indented-CLI platforms (EOS, NX-OS) with ``hier-config`` remediation.

The running-config is scoped to what rocetune renders before the diff, so that nothing else
of the switch is negated: a top-level line or section is kept when the intended config has the
same line/section header, or when it starts with one of the platform's owned prefixes (then it
is negated when the intended config lacks it). In sections the platform lists as *partial*
(``interface ...``) only the children whose first word also starts an intended child of that
section are kept (``mtu``, ``service-profile``, ...). Both texts are merged per section first
(the renderer re-enters a section once per feature). ``hier-config``'s
``WorkflowRemediation`` then gives the remediation (negations first) and the rollback;
each top-level remediation item is one change, its kind the worst of its lines'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hier_config import HConfig, Platform, WorkflowRemediation, get_hconfig

from rocetune.model import Device
from rocetune.platforms.changes import Change, ChangeSet, PlatformPlan, worst
from rocetune.platforms.common.running import running_config
from rocetune.snapshot import Command, Snapshot
from rocetune.tune.target import DeviceTarget

Tree = dict[str, "Tree"]


@dataclass(frozen=True)
class CliScope:
    """What a platform owns in its running-config and how its lines are classified."""

    platform: Platform
    owned_prefixes: tuple[str, ...]
    partial_sections: tuple[str, ...]
    kind_of: Callable[[str], str]
    port_of: Callable[[str], str | None]
    hint: str


def kind_by_prefix(line: str, kinds: tuple[tuple[tuple[str, ...], str], ...]) -> str:
    """The neutral kind of a config line from a ``(prefixes, kind)`` table, first match wins;
    a ``no`` form counts as the line it negates; ``other`` when nothing matches."""
    bare = line[3:] if line.startswith("no ") else line
    for prefixes, kind in kinds:
        if any(bare == p or bare.startswith(p + " ") for p in prefixes):
            return kind
    return "other"


def interface_port(header: str) -> str | None:
    """The interface of an ``interface X`` section header, else None."""
    words = header.split()
    return words[1] if len(words) == 2 and words[0] == "interface" else None


def tree_of(text: str) -> Tree:
    """Indented config text -> nested sections (same header merged; ``!``/``end`` dropped)."""
    root: Tree = {}
    stack: list[tuple[int, Tree]] = [(-1, root)]
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("!") or line == "end":
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= indent:
            stack.pop()
        node = stack[-1][1].setdefault(line, {})
        stack.append((indent, node))
    return root


def text_of(tree: Tree, depth: int = 0) -> list[str]:
    """Nested sections -> indented lines (two spaces per level)."""
    out: list[str] = []
    for line, children in tree.items():
        out.append("  " * depth + line)
        out.extend(text_of(children, depth + 1))
    return out


def scoped(running: Tree, intended: Tree, scope: CliScope) -> Tree:
    """The part of ``running`` rocetune owns (see the module docstring)."""
    out: Tree = {}
    for line, children in running.items():
        if line in intended and line.startswith(scope.partial_sections):
            firsts = {c.split()[0] for c in intended[line]}
            out[line] = {c: v for c, v in children.items() if c.split()[0] in firsts}
        elif line in intended or line.startswith(scope.owned_prefixes):
            out[line] = children
    return out


_OBJECTS = ("no policy-map ", "no class-map ", "no qos profile ", "no table-map ")
"""Deletions of objects that interfaces or other objects may still reference."""


def detach_first(groups: list[list[str]]) -> list[list[str]]:
    """Top-level groups with object deletions last (policy-maps before class-maps).

    A switch refuses to delete a policy-map or profile that is still attached (NX-OS, EOS),
    so every detach (``interface``/``system qos`` sections) must come before the deletion.
    """

    def rank(group: list[str]) -> int:
        head = group[0].strip()
        for i, prefix in enumerate(_OBJECTS):
            if head.startswith(prefix):
                return 1 + (1 if i == 1 else 0)
        return 0

    return sorted(groups, key=rank)


def _groups(config: HConfig) -> list[list[str]]:
    return [
        [c.cisco_style_text()] + [d.cisco_style_text() for d in c.all_children_sorted()]
        for c in config.children
    ]


def _lines(config: HConfig) -> list[str]:
    return [line for group in detach_first(_groups(config)) for line in group]


def running_changeset(scope: CliScope, command: Command, suffix: str = ".cfg") -> ChangeSet:
    """The change set of a platform that renders one ``*<suffix>`` config: the snapshot's
    running config (the output of ``command``) diffed against it in ``scope``."""

    def changeset(
        snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
    ) -> PlatformPlan:
        """Diff the snapshot's running-config against the rendered config."""
        del device, target
        running = running_config(snapshot, command).text
        intended = next(t for p, t in rendered.items() if p.endswith(suffix))
        return diff_cli(running, intended, scope)

    return changeset


def diff_cli(running_text: str, intended_text: str, scope: CliScope) -> PlatformPlan:
    """Remediation and rollback from ``running_text`` to ``intended_text``."""
    intended = tree_of(intended_text)
    running = scoped(tree_of(running_text), intended, scope)
    flow = WorkflowRemediation(
        get_hconfig(scope.platform, "\n".join(text_of(running))),
        get_hconfig(scope.platform, "\n".join(text_of(intended))),
    )
    plan = PlatformPlan(hint=scope.hint, rollback=_lines(flow.rollback_config))
    for lines in detach_first(_groups(flow.remediation_config)):
        kinds = [scope.kind_of(x.strip()) for x in lines]
        port = scope.port_of(lines[0].strip())
        plan.changes.append(Change("\n".join(lines), worst(kinds), port))
    return plan
