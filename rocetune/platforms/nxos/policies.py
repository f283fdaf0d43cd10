"""Policy-maps: the block structure shared by the three types, and type-qos classification.

``policy-map [type qos|queuing|network-qos] NAME`` (no type = type qos) holds ``class
[type <t>] <class>`` sections, each with action lines. Every line below a policy-map belongs
to the last ``class`` line above it, whatever its indentation (the CLI enters class mode on
``class``). A policy-map repeated in the file adds classes to the first one (as the CLI
does). Control-plane, PBR, inspect and subscriber policy-maps are skipped.

Type qos (ingress classification, evaluated in class order, first match wins): ``set
qos-group N`` is the classification rocetune models; ``set cos``, ``set dscp`` and ``set
precedence`` rewrite the packet and are recorded in ``Device.facts`` as
``nxos.remark.<policy>.<class>`` (no model field yet); ``police`` and anything else is
reported. A class without ``set qos-group`` leaves its packets in qos-group 0; packets that
no class matches go to ``class-default`` (qos-group 0 unless it sets one).
The queuing and network-qos actions are read by :mod:`.queuing`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.platforms.nxos.classes import KINDS, ClassMap, split_header
from rocetune.platforms.nxos.lines import Issues, Node
from rocetune.platforms.nxos.values import DSCP_NAMES, parse_int, parse_list


@dataclass(slots=True)
class PolicyClass:
    """One ``class`` section of a policy-map: its name and action lines."""

    name: str
    line: int
    actions: list[Node] = field(default_factory=list)


@dataclass(slots=True)
class RawPolicy:
    """A policy-map before its actions are read."""

    kind: str
    name: str
    line: int
    classes: list[PolicyClass] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class QosClass:
    """One class of a type-qos policy, resolved against its class-map."""

    name: str
    line: int
    dscp: frozenset[int] | None
    """DSCPs matched (every DSCP for class-default); None = no DSCP criterion."""
    cos: frozenset[int] | None
    qos_group: int | None
    qos_group_line: int | None


@dataclass(slots=True)
class QosPolicy:
    """A type-qos policy: classes in evaluation order."""

    name: str
    line: int
    classes: list[QosClass] = field(default_factory=list)


def read_policy_map(node: Node, issues: Issues, known: dict[tuple[str, str], RawPolicy]) -> None:
    """Read one policy-map block into ``known`` (keyed by type and name)."""
    kind, rest = split_header(node.words)
    if kind not in KINDS.values():
        return
    if len(rest) != 1:
        issues.block(node, "policy-map header not understood (expected one policy name)")
        return
    policy = known.setdefault((kind, rest[0]), RawPolicy(kind, rest[0], node.line))
    current: PolicyClass | None = None
    for child in node.walk():
        words = child.words
        if words[0] == "class":
            current = _class_line(child, kind, issues)
            if current is not None:
                policy.classes.append(current)
        elif current is not None:
            current.actions.append(child)
        elif words[0] != "description":
            issues.node(child, f"not a policy-map {kind} command rocetune reads")


def _class_line(node: Node, kind: str, issues: Issues) -> PolicyClass | None:
    ckind, rest = split_header(node.words, default=kind)
    if ckind != kind or len(rest) != 1:
        issues.block(node, f"class line not understood in a policy-map of type {kind}")
        return None
    return PolicyClass(name=rest[0], line=node.line)


def read_qos_policy(
    raw: RawPolicy, class_maps: dict[tuple[str, str], ClassMap], issues: Issues
) -> tuple[QosPolicy, dict[str, str]]:
    """Resolve a type-qos policy; also return its remarks as facts."""
    policy = QosPolicy(raw.name, raw.line)
    remarks: dict[str, str] = {}
    for pclass in raw.classes:
        group: tuple[int, int] | None = None
        for action in pclass.actions:
            got = _qos_action(action, issues)
            if isinstance(got, int):
                group = (got, action.line)
            elif got:
                key = f"nxos.remark.{raw.name}.{pclass.name}"
                remarks[key] = f"{remarks[key]}; {got}" if key in remarks else got
        match = _match(pclass, class_maps, issues)
        if match is None:
            continue
        policy.classes.append(
            QosClass(
                name=pclass.name,
                line=pclass.line,
                dscp=match[0],
                cos=match[1],
                qos_group=group[0] if group else None,
                qos_group_line=group[1] if group else None,
            )
        )
    return policy, remarks


def _match(
    pclass: PolicyClass, class_maps: dict[tuple[str, str], ClassMap], issues: Issues
) -> tuple[frozenset[int] | None, frozenset[int] | None] | None:
    if pclass.name == "class-default":
        return frozenset(range(64)), None
    cmap = class_maps.get(("qos", pclass.name))
    if cmap is None:
        issues.add(
            f"class {pclass.name}",
            "class-map type qos not defined in this config; the class matches nothing here",
            pclass.line,
        )
        return None
    return cmap.dscps(), cmap.coses()


def _qos_action(node: Node, issues: Issues) -> int | str | None:
    """qos-group number, remark text, or None (ignored or reported)."""
    words = node.words
    if words[0] == "description":
        return None
    if words[0] != "set" or len(words) != 3:
        issues.node(node, "type qos action not modelled (rocetune reads set qos-group)")
        return None
    what, value = words[1], words[2]
    if what == "qos-group":
        group = parse_int(value, 0, 7)
        if group is None:
            issues.node(node, "invalid qos-group (expected 0-7)")
        return group
    valid = {
        "cos": parse_list([value], 7),
        "dscp": parse_list([value], 63, DSCP_NAMES),
        "precedence": parse_list([value], 7),
    }
    if what not in valid or valid[what] is None or "," in value or "-" in value:
        issues.node(node, "type qos action not understood")
        return None
    return f"set {what} {value}"
