"""Class-maps: ``class-map [type qos|queuing|network-qos] [match-any|match-all] NAME``.

A class-map without ``type`` is a type-qos class-map (NX-OS default). Criteria read:
``match dscp <list>`` (numbers, ranges, names such as ``af31``/``cs3``/``ef``), ``match
precedence <list>`` (IP precedence p = DSCP 8p..8p+7), ``match cos <list>``, ``match
qos-group <list>``. ``match-any`` (the NX-OS default) is the union of the criteria,
``match-all`` the intersection; a match-all that combines DSCP with another criterion (CoS,
an ACL) only matches some packets of those DSCPs: rocetune keeps the DSCP set and reports the
class-map (RT001). Criteria rocetune cannot evaluate (``match access-group``, ``match
protocol``, ``match class-map``, ``match not ...``) are reported; the class then matches no
DSCP in the model. Control-plane, PBR, inspect and subscriber class-maps are not QoS data
paths and are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.platforms.nxos.lines import Issues, Node
from rocetune.platforms.nxos.values import DSCP_NAMES, parse_list, precedence_dscps

KINDS = {"qos": "qos", "queuing": "queuing", "queueing": "queuing", "network-qos": "network-qos"}
"""Class/policy-map types rocetune reads (``queueing`` is accepted as in batfish's grammar)."""
_MODES = ("match-any", "match-all", "match-first", "match-none")


@dataclass(slots=True)
class ClassMap:
    """One class-map and its criteria."""

    kind: str
    name: str
    line: int
    match_all: bool = False
    dscp: list[frozenset[int]] = field(default_factory=list)
    cos: list[frozenset[int]] = field(default_factory=list)
    qos_group: list[frozenset[int]] = field(default_factory=list)
    opaque: bool = False
    """A criterion rocetune cannot evaluate is present."""

    def dscps(self) -> frozenset[int] | None:
        """DSCPs the class matches; None when it has no DSCP criterion."""
        return _combine(self.dscp, self.match_all)

    def coses(self) -> frozenset[int] | None:
        """CoS values the class matches; None when it has no CoS criterion."""
        return _combine(self.cos, self.match_all)

    def groups(self) -> frozenset[int] | None:
        """qos-groups the class matches; None when it has no qos-group criterion."""
        return _combine(self.qos_group, self.match_all)


def _combine(sets: list[frozenset[int]], match_all: bool) -> frozenset[int] | None:
    if not sets:
        return None
    if match_all:
        return frozenset.intersection(*sets)
    return frozenset().union(*sets)


def split_header(words: list[str], default: str = "qos") -> tuple[str, list[str]]:
    """``class-map type queuing match-any X`` -> (``queuing``, [``match-any``, ``X``]).

    The type is returned as written when it is not one rocetune reads (``control-plane``).
    """
    rest = words[1:]
    if len(rest) >= 2 and rest[0] == "type":
        return KINDS.get(rest[1], rest[1]), rest[2:]
    return default, rest


def read_class_map(node: Node, issues: Issues, known: dict[tuple[str, str], ClassMap]) -> None:
    """Read one class-map block into ``known`` (a repeated class-map adds criteria)."""
    kind, rest = split_header(node.words)
    if kind not in KINDS.values():
        return
    mode = rest[0] if rest and rest[0] in _MODES else "match-any"
    names = rest[1:] if rest and rest[0] in _MODES else rest
    if len(names) != 1:
        issues.block(node, "class-map header not understood (expected one class name)")
        return
    cmap = known.setdefault((kind, names[0]), ClassMap(kind=kind, name=names[0], line=node.line))
    cmap.match_all = mode == "match-all"
    if mode in ("match-first", "match-none"):
        issues.node(node, f"class-map mode {mode} is not modelled")
        cmap.opaque = True
    for child in node.walk():
        _criterion(child, cmap, issues)
    _check_match_all(node, cmap, issues)


def _criterion(node: Node, cmap: ClassMap, issues: Issues) -> None:
    words = node.words
    if words[0] == "description":
        return
    if words[0] != "match" or len(words) < 3:
        issues.node(node, f"not a class-map {cmap.kind} criterion rocetune reads")
        return
    what, args = words[1], words[2:]
    if what == "dscp":
        _add(node, cmap.dscp, parse_list(args, 63, DSCP_NAMES), "DSCP values 0-63", issues)
    elif what == "precedence":
        prec = parse_list(args, 7)
        _add(node, cmap.dscp, precedence_dscps(prec) if prec else None, "precedence 0-7", issues)
    elif what == "cos":
        _add(node, cmap.cos, parse_list(args, 7), "CoS values 0-7", issues)
    elif what == "qos-group":
        _add(node, cmap.qos_group, parse_list(args, 7), "qos-group 0-7", issues)
    else:
        cmap.opaque = True
        issues.node(node, f"match {what} cannot be evaluated; the class matches no DSCP here")


def _add(
    node: Node, target: list[frozenset[int]], values: list[int] | None, want: str, issues: Issues
) -> None:
    if values is None:
        issues.node(node, f"invalid value list (expected {want})")
        return
    target.append(frozenset(values))


def _check_match_all(node: Node, cmap: ClassMap, issues: Issues) -> None:
    kinds = sum(bool(x) for x in (cmap.dscp, cmap.cos, cmap.qos_group)) + int(cmap.opaque)
    if cmap.match_all and cmap.dscp and kinds > 1:
        issues.node(
            node,
            "match-all combines DSCP with another criterion; rocetune maps the DSCPs as if"
            " every packet met the other criteria",
        )
