"""Type queuing (egress scheduling, WRED/ECN) and type network-qos (no-drop, MTU) policies.

Queues: the system classes ``c-out-8q-q<N>`` / ``c-out-8q-q-default`` (8-queue templates)
and ``c-out-q<N>`` / ``c-out-q-default`` (4-queue templates) select egress queue N / 0; each
matches ``qos-group N`` (as ``show running-config all`` prints them, e.g. batfish's
``nxos_class_map`` test config), so qos-group N is queue N. A ``class-map type queuing``
with one ``match qos-group N`` is read the same way. Ingress classes ``c-in-q*`` are not
modelled (their actions are reported).

Queuing actions: ``bandwidth remaining percent X`` and ``bandwidth percent X`` ->
``Scheduler(kind="dwrr", weight=X)``; ``priority [level N]`` -> ``strict``;
``random-detect minimum-threshold A <unit> maximum-threshold B <unit> drop-probability P
weight W [ecn]`` -> ``EcnProfile`` (without ``ecn``: WRED drops, ``red_drop`` True; with
``ecn``: marks ECN-capable packets, and what it does to packets that are not ECN-capable is
not stated by any Cisco page rocetune has read, so ``red_drop`` is None (RT303 says it could
not verify) unless ``forward-nonecn`` applies, see below);
``random-detect threshold burst-optimized|mesh-optimized [ecn]`` -> an ECN profile whose
thresholds the switch chooses (None) and a fact; ``random-detect non-ecn threshold ...``
only moves the drop point of non-ECT packets (accepted). ``shape``, ``queue-limit`` and
anything else are reported.

Network-qos classes: ``c-8q-nq<N>`` / ``c-8q-nq-default`` / ``c-nq<N>`` / ``c-nq-default``
/ ``class-default`` select qos-group N (0), or a ``class-map type network-qos`` with ``match
qos-group N``. ``pause pfc-cos <list>`` makes the class no-drop and names the CoS values
used in PFC frames (S20); ``pause no-drop`` and a bare ``pause`` (Nexus 5000 style) take the
CoS from ``pfc-cos`` or from the class-map's ``match cos``; ``pause buffer-size B
pause-threshold P resume-threshold R pfc-cos <list>`` (the Nexus 9000 network-qos form) is
read for its ``pfc-cos`` and, like the same keywords in an ingress queuing policy, as the
no-drop class's ingress buffer on every port that no input queuing policy sizes
(:mod:`.ports`); ``no pause`` is lossy; ``mtu N`` is the class MTU.
``congestion-control random-detect forward-nonecn`` makes the WRED-ECN queue of the class
forward packets that are not ECN-capable instead of early-dropping them (the Nexus 9000 QoS
guide's "forward non-ECN traffic" option, NX-OS 9.3 and later) **[command placement from the
guide as remembered; not re-checked against a stored copy]**: the queue's ECN profile then
has ``red_drop=False`` (see :mod:`.ports`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocetune.model import EcnProfile, Scheduler
from rocetune.platforms.nxos.classes import ClassMap
from rocetune.platforms.nxos.lines import Issues, Node
from rocetune.platforms.nxos.policies import PolicyClass, RawPolicy
from rocetune.platforms.nxos.values import parse_int, parse_list, parse_size

_OUT_QUEUE = re.compile(r"c-out-(?:8q-)?q(\d|-default)")
_NQ_CLASS = re.compile(r"c-(?:8q-)?nq(\d|-default)")
_ACCEPTED_NQ = ("congestion-control tail-drop", "no congestion-control random-detect")


@dataclass(slots=True)
class QueueEntry:
    """What one egress queue of a queuing policy does, with the lines that say so."""

    queue: int
    scheduler: Scheduler | None = None
    scheduler_line: int | None = None
    ecn: EcnProfile | None = None
    ecn_line: int | None = None
    class_line: int | None = None
    pause: tuple[int, int, int] | None = None
    """Ingress ``pause buffer-size B pause-threshold P resume-threshold R`` (bytes)."""
    pause_line: int | None = None


@dataclass(slots=True)
class QueuingPolicy:
    """A type-queuing policy: egress queue -> entry."""

    name: str
    line: int
    queues: dict[int, QueueEntry] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class NqClass:
    """One network-qos class: no-drop state, PFC CoS values and MTU."""

    qos_group: int
    line: int
    no_drop: bool | None = None
    pfc_cos: tuple[int, ...] | None = None
    pause_line: int | None = None
    mtu: int | None = None
    mtu_line: int | None = None
    forward_nonecn: int | None = None
    """Line of ``congestion-control random-detect forward-nonecn`` in this class."""
    pause_buffer: tuple[int, int, int] | None = None
    """``pause buffer-size B pause-threshold P resume-threshold R pfc-cos ...`` (bytes): the
    no-drop class's ingress buffer on every port (the Nexus 9000 network-qos form)."""
    bare_no_drop: bool = False
    """``pause no-drop`` without ``pfc-cos`` and without a CoS in the class-map: the PFC
    CoS comes from the type-qos classification (:mod:`.plan`)."""


@dataclass(slots=True)
class NetworkPolicy:
    """A type network-qos policy: qos-group -> class."""

    name: str
    line: int
    classes: dict[int, NqClass] = field(default_factory=dict)


def queue_of(name: str, class_maps: dict[tuple[str, str], ClassMap]) -> int | None:
    """The egress queue a queuing class name selects; None when unknown."""
    cmap = class_maps.get(("queuing", name))
    groups = cmap.groups() if cmap is not None else None
    if groups is not None and len(groups) == 1:
        return next(iter(groups))
    if name == "class-default":
        return 0  # the default queuing class (Nexus 3000/5000 style) serves qos-group 0
    match = _OUT_QUEUE.fullmatch(name)
    if match is None:
        return None
    return 0 if match.group(1) == "-default" else int(match.group(1))


def read_queuing(
    raw: RawPolicy, class_maps: dict[tuple[str, str], ClassMap], issues: Issues
) -> QueuingPolicy:
    """Resolve a type-queuing policy."""
    policy = QueuingPolicy(raw.name, raw.line)
    for pclass in raw.classes:
        queue = queue_of(pclass.name, class_maps)
        if queue is None and pclass.name.startswith("c-in-"):
            for action in pclass.actions:
                issues.node(action, "ingress queuing is not modelled")
            continue
        if queue is None:
            reason = f"queuing class {pclass.name} is not an egress queue rocetune knows"
            _unknown_class(pclass, "queuing", reason, issues)
            continue
        entry = policy.queues.setdefault(queue, QueueEntry(queue, class_line=pclass.line))
        for action in pclass.actions:
            _queuing_action(action, entry, policy, issues)
    return policy


_PAUSE_KEYS = ("buffer-size", "pause-threshold", "resume-threshold")


def _pause_values(words: list[str], node: Node, issues: Issues) -> tuple[int, int, int] | None:
    """``buffer-size B pause-threshold P resume-threshold R`` (bytes, after ``pause``): the
    no-drop class's ingress buffer B, sending pause when it fills to P and resuming below R;
    B - P is the headroom for what arrives after pause. Read in that exact form (their order
    is RT502's to judge); any other form is reported."""
    pairs = dict(zip(words[0::2], words[1::2], strict=False))
    if len(words) != 6 or set(pairs) != set(_PAUSE_KEYS):
        issues.node(node, "pause buffer form not understood", features=("pfc", "buffers"))
        return None
    values = [parse_int(pairs[k], 0, 1 << 30) for k in _PAUSE_KEYS]
    if any(v is None for v in values):
        issues.node(node, "invalid pause buffer value (bytes expected)", features=("buffers",))
        return None
    size, pause, resume = (int(v or 0) for v in values)
    return size, pause, resume


def _pause_buffer(node: Node, entry: QueueEntry, issues: Issues) -> None:
    """``pause buffer-size ...`` in the class of an ingress queuing policy."""
    got = _pause_values(node.words[1:], node, issues)
    if got is not None:
        entry.pause, entry.pause_line = got, node.line


def _unknown_class(pclass: PolicyClass, kind: str, reason: str, issues: Issues) -> None:
    issues.add(f"class type {kind} {pclass.name}", reason, pclass.line)
    for action in pclass.actions:
        issues.node(action, reason)


def _queuing_action(node: Node, entry: QueueEntry, policy: QueuingPolicy, issues: Issues) -> None:
    words = node.words
    if words[0] == "description":
        return
    if words[0] == "random-detect":
        _random_detect(node, entry, policy, issues)
        return
    if words[0] == "pause" and "buffer-size" in words:
        _pause_buffer(node, entry, issues)
        return
    level = len(words) == 3 and words[1] == "level" and parse_int(words[2], 1, 8) is not None
    if words[0] == "priority" and (len(words) == 1 or level):
        weight = entry.scheduler.weight if entry.scheduler else None
        entry.scheduler = Scheduler(name=policy.name, kind="strict", weight=weight)
        entry.scheduler_line = node.line
        return
    percent = _bandwidth(words)
    if percent is None:
        issues.node(node, "queuing action not modelled")
        return
    strict = entry.scheduler is not None and entry.scheduler.kind == "strict"
    entry.scheduler = Scheduler(
        name=policy.name, kind="strict" if strict else "dwrr", weight=float(percent)
    )
    entry.scheduler_line = entry.scheduler_line if strict else node.line


def _bandwidth(words: list[str]) -> int | None:
    if words[:3] == ["bandwidth", "remaining", "percent"] and len(words) == 4:
        return parse_int(words[3], 0, 100)
    if words[:2] == ["bandwidth", "percent"] and len(words) == 3:
        return parse_int(words[2], 0, 100)
    return None


def _random_detect(node: Node, entry: QueueEntry, policy: QueuingPolicy, issues: Issues) -> None:
    words = node.words
    ecn = words[-1] == "ecn"
    if words[1:2] == ["non-ecn"]:
        return
    if words[1:2] == ["threshold"] and len(words) in (3, 4) and words[2].endswith("-optimized"):
        entry.ecn = EcnProfile(name=policy.name, ecn_mark=ecn, red_drop=_early_drop(ecn))
        entry.ecn_line = node.line
        policy.facts[f"nxos.wred.{policy.name}.q{entry.queue}"] = words[2]
        return
    if "minimum-threshold" not in words or "maximum-threshold" not in words:
        issues.node(node, "random-detect form not understood")
        return
    low = _threshold(words, "minimum-threshold")
    high = _threshold(words, "maximum-threshold")
    prob = parse_int(_after(words, "drop-probability") or "", 0, 100)
    if low is None or high is None or prob is None:
        issues.node(node, "random-detect thresholds not in bytes/kbytes/mbytes, or invalid")
    entry.ecn = EcnProfile(
        name=policy.name,
        ecn_mark=ecn,
        red_drop=_early_drop(ecn),
        min_threshold_bytes=low,
        max_threshold_bytes=high,
        max_probability_pct=None if prob is None else float(prob),
    )
    entry.ecn_line = node.line


def _early_drop(ecn: bool) -> bool | None:
    """``red_drop`` of a ``random-detect`` line: a WRED line without ``ecn`` drops early.

    With ``ecn`` the Nexus 9000 QoS guide says only that ECN "marks packets instead of
    dropping them"; whether packets that are not ECN-capable are still dropped early is not
    stated in a Cisco source rocetune has (Cisco's data models do offer a separate "forward
    non-ECN" switch, which hints that they are, but that is an inference): unknown (None).
    """
    return None if ecn else True


def _after(words: list[str], key: str, skip: int = 1) -> str | None:
    if key not in words:
        return None
    pos = words.index(key) + skip
    return words[pos] if pos < len(words) else None


def _threshold(words: list[str], key: str) -> int | None:
    return parse_size(_after(words, key) or "", _after(words, key, 2) or "")


def nq_group(name: str, class_maps: dict[tuple[str, str], ClassMap]) -> int | None:
    """The qos-group a network-qos class name selects; None when unknown."""
    if name == "class-default":
        return 0
    cmap = class_maps.get(("network-qos", name))
    groups = cmap.groups() if cmap is not None else None
    if groups is not None and len(groups) == 1:
        return next(iter(groups))
    match = _NQ_CLASS.fullmatch(name)
    if match is None:
        return None
    return 0 if match.group(1) == "-default" else int(match.group(1))


def read_network_qos(
    raw: RawPolicy, class_maps: dict[tuple[str, str], ClassMap], issues: Issues
) -> NetworkPolicy:
    """Resolve a type network-qos policy."""
    policy = NetworkPolicy(raw.name, raw.line)
    for pclass in raw.classes:
        group = nq_group(pclass.name, class_maps)
        if group is None:
            reason = (
                "network-qos class not known (no system class and no class-map with one"
                " match qos-group in this config)"
            )
            _unknown_class(pclass, "network-qos", reason, issues)
            continue
        nq = policy.classes.setdefault(group, NqClass(qos_group=group, line=pclass.line))
        cmap = class_maps.get(("network-qos", pclass.name))
        for action in pclass.actions:
            _nq_action(action, nq, cmap, issues)
    return policy


def _nq_action(node: Node, nq: NqClass, cmap: ClassMap | None, issues: Issues) -> None:
    words = node.words
    if words[0] == "description" or node.text in _ACCEPTED_NQ:
        return
    if words == ["congestion-control", "random-detect", "forward-nonecn"]:
        nq.forward_nonecn = node.line
        return
    if words[0] == "mtu" and len(words) == 2:
        mtu = parse_int(words[1], 576, 9216)
        if mtu is None:
            issues.node(node, "invalid MTU (expected 576-9216)")
            return
        nq.mtu, nq.mtu_line = mtu, node.line
        return
    if words == ["no", "pause"]:
        nq.no_drop, nq.pfc_cos, nq.pause_line = False, (), node.line
        return
    if words[0] != "pause":
        issues.node(node, "network-qos action not modelled")
        return
    nq.no_drop, nq.pause_line = True, node.line
    nq.pfc_cos = _pause_cos(node, cmap, issues)
    nq.bare_no_drop = nq.pfc_cos is None and words == ["pause", "no-drop"]
    if "buffer-size" in words:
        end = words.index("pfc-cos") if "pfc-cos" in words else len(words)
        nq.pause_buffer = _pause_values(words[1:end], node, issues)


def _pause_cos(node: Node, cmap: ClassMap | None, issues: Issues) -> tuple[int, ...] | None:
    words = node.words
    if "pfc-cos" in words:
        values = parse_list(words[words.index("pfc-cos") + 1 :], 7)
        if values is None:
            issues.node(node, "invalid pfc-cos list (expected CoS values 0-7)")
            return None
        return tuple(values)
    cos = cmap.coses() if cmap is not None else None
    if cos:
        return tuple(sorted(cos))
    if len(words) > 2 or (len(words) == 2 and words[1] != "no-drop"):
        issues.node(node, "pause form not understood")
    # A bare `pause no-drop`: the PFC CoS comes from the type-qos classes that map this
    # qos-group purely by CoS (the plan derives it, and reports the line when it cannot).
    return None
