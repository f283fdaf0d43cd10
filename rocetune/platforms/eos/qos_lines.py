"""QoS statements shared by ``qos profile`` blocks and interfaces (S18 syntax, AVD molecule).

Read into :class:`~rocetune.platforms.eos.shape.QosConf`:

- ``qos trust dscp|cos`` (cos -> ``pcp``), ``no qos trust`` (untrusted -> ``port``);
  ``default qos trust`` clears the setting;
- ``service-profile NAME``;
- ``priority-flow-control on|off`` and ``priority-flow-control mode on|off``;
  ``no priority-flow-control`` (off); ``priority-flow-control priority N no-drop|drop``;
  ``no priority-flow-control priority N``;
- ``[no] priority-flow-control pause watchdog``; ``... pause watchdog port action
  drop|errdisable|notify-only|no-drop`` (``no ... port action`` clears it); ``... pause watchdog
  port timer timeout T polling-interval P|auto recovery-time R [forced]`` (seconds; ``no ...
  port timer`` clears it);
- ``tx-queue N`` / ``uc-tx-queue N`` blocks: ``priority strict`` / ``no priority``,
  ``bandwidth percent X``, ``bandwidth guaranteed percent X``, ``random-detect ecn
  minimum-threshold A <unit> maximum-threshold B <unit> [max-mark-probability P] [weight W]``,
  ``random-detect drop [drop-precedence D] minimum-threshold ... drop-probability P [weight
  W]`` and their ``no`` forms.

Read but not modelled (they do not change the lossless chain of RoCE traffic that is
classified by DSCP): ``qos cos N`` / ``qos dscp N`` (the port default for untrusted traffic),
``shape rate``, ``mc-tx-queue`` blocks (multicast queues), ``random-detect ecn count``,
``dcbx mode``, ``service-policy type pdp`` (control plane) and ``type pbr`` (policy-based
routing: next hops, no QoS). ``service-policy [type qos] input
NAME`` attaches a class-based policy-map that can set the traffic class and is reported as
Unparsed (RT001), as is every other line that is not understood.
"""

from __future__ import annotations

from rocetune.model import Trust
from rocetune.platforms.eos import values
from rocetune.platforms.eos.blocks import Issues, Node
from rocetune.platforms.eos.shape import At, PortTimer, QosConf, QueueConf, Red

_TRUST: dict[str, Trust] = {"dscp": "dscp", "cos": "pcp"}
_ACTIONS = {
    "drop": "drop",
    "errdisable": "errdisable",
    "notify-only": "alert",
    "no-drop": "forward",
}
_IGNORED_FIRST = frozenset({"shape", "dcbx"})
_QUEUE_WORDS = {"tx-queue": True, "uc-tx-queue": True, "mc-tx-queue": False}
_MAX_QUEUE = 15
POLICY_MAP = (
    "QoS policy-maps can set the traffic class per flow; class-based policies are not modelled"
)


def read_qos(node: Node, conf: QosConf, issues: Issues) -> bool:
    """Apply one QoS statement to ``conf``; False when the line is not a QoS statement.

    Lines that are QoS statements but unreadable are recorded as Unparsed and count as read.
    """
    words = node.words
    neg = words[0] in ("no", "default")
    body = words[1:] if neg else words
    if not body:
        return False
    head = body[0]
    if head == "qos":
        return _qos(node, body, words[0] if neg else "", conf, issues)
    if head == "priority-flow-control":
        _pfc(node, body[1:], neg, conf, issues)
        return True
    if head in _QUEUE_WORDS:
        _queue(node, body, neg, conf, issues)
        return True
    if head == "service-profile":
        if neg:
            conf.profile = None
        elif len(body) == 2:
            conf.profile = At(body[1], node.line)
        else:
            issues.node(node, "unreadable service-profile")
        return True
    if head == "service-policy":
        if not neg and "pdp" not in body and "pbr" not in body:
            issues.node(node, POLICY_MAP, features=("trust", "dscp_map"))
        return True
    return head in _IGNORED_FIRST


def _qos(node: Node, body: list[str], neg: str, conf: QosConf, issues: Issues) -> bool:
    if len(body) < 2:
        issues.node(node, "unreadable qos statement")
        return True
    if body[1] in ("cos", "dscp"):
        return True  # the port default for untrusted traffic: not modelled
    if body[1] != "trust":
        issues.node(node, "QoS statement not understood")
        return True
    if neg == "default":
        conf.trust = None
    elif neg == "no":
        conf.trust = At("port", node.line)
    elif len(body) == 3 and body[2] in _TRUST:
        conf.trust = At(_TRUST[body[2]], node.line)
    else:
        issues.node(node, "unknown qos trust mode")
    return True


def _pfc(node: Node, rest: list[str], neg: bool, conf: QosConf, issues: Issues) -> None:
    if rest[:1] == ["mode"]:
        rest = rest[1:]
    if not rest:
        if neg:
            conf.pfc_on = At(False, node.line)
        else:
            issues.node(node, "unreadable priority-flow-control statement")
        return
    if rest in (["on"], ["off"]) and not neg:
        conf.pfc_on = At(rest[0] == "on", node.line)
    elif rest[0] == "priority":
        _pfc_priority(node, rest[1:], neg, conf, issues)
    elif rest[:2] == ["pause", "watchdog"]:
        _watchdog(node, rest[2:], neg, conf, issues)
    else:
        issues.node(node, "priority-flow-control statement not understood")


def _pfc_priority(node: Node, rest: list[str], neg: bool, conf: QosConf, issues: Issues) -> None:
    prio = values.as_int(rest[0], 0, 7) if rest else None
    if prio is None:
        issues.node(node, "unreadable PFC priority (expected 0-7)")
    elif neg:
        conf.pfc_priorities[prio] = At(False, node.line)
    elif rest[1:] in (["no-drop"], ["drop"]):
        conf.pfc_priorities[prio] = At(rest[1] == "no-drop", node.line)
    else:
        issues.node(node, "unreadable PFC priority mode (expected no-drop or drop)")


def _watchdog(node: Node, rest: list[str], neg: bool, conf: QosConf, issues: Issues) -> None:
    if not rest:
        conf.watchdog = At(not neg, node.line)
    elif rest[:2] == ["port", "action"]:
        action = _ACTIONS.get(rest[2]) if len(rest) == 3 else None
        if neg:
            conf.watchdog_action = At(None, node.line)
        elif action is None:
            issues.node(node, "unknown PFC watchdog port action")
        else:
            conf.watchdog_action = At(action, node.line)
    elif rest[:2] == ["port", "timer"]:
        timer = None if neg else port_timer(rest[2:])
        if timer is None and not neg:
            issues.node(node, "unreadable PFC watchdog port timer")
        else:
            conf.watchdog_timer = At(timer, node.line)
    else:
        issues.node(node, "PFC watchdog statement not understood")


def port_timer(words: list[str]) -> PortTimer | None:
    """Read ``timeout T polling-interval P|auto recovery-time R [forced]`` (any order)."""
    forced = words[-1:] == ["forced"]
    pairs = words[:-1] if forced else words
    if len(pairs) % 2:
        return None
    got = dict(zip(pairs[::2], pairs[1::2], strict=True))
    if set(got) != {"timeout", "polling-interval", "recovery-time"}:
        return None
    timeout = values.seconds_to_ms(got["timeout"])
    recovery = values.seconds_to_ms(got["recovery-time"])
    auto = got["polling-interval"] == "auto"
    poll = None if auto else values.seconds_to_ms(got["polling-interval"])
    if timeout is None or recovery is None or (poll is None and not auto):
        return None
    return PortTimer(timeout_ms=timeout, recovery_ms=recovery, poll_ms=poll, forced=forced)


def _queue(node: Node, body: list[str], neg: bool, conf: QosConf, issues: Issues) -> None:
    unicast = _QUEUE_WORDS[body[0]]
    number = values.as_int(body[1], 0, _MAX_QUEUE) if len(body) == 2 else None
    if number is None:
        issues.node(node, "unreadable tx-queue number")
        return
    if not unicast or neg:
        return  # multicast queues are not modelled; `no tx-queue` has no children
    queue = conf.queues.setdefault(number, QueueConf(line=node.line))
    for child in node.children:
        read_queue_line(child, queue, issues)


def read_queue_line(node: Node, queue: QueueConf, issues: Issues) -> None:
    """Apply one line of a ``tx-queue`` block."""
    words = node.words
    neg = words[0] == "no"
    body = words[1:] if neg else words
    line = node.line
    if (body == ["priority", "strict"] and not neg) or (body == ["priority"] and neg):
        queue.strict = At(not neg, line)
    elif body[:2] == ["bandwidth", "percent"] or body[:3] == ["bandwidth", "guaranteed", "percent"]:
        _bandwidth(node, body, neg, queue, issues)
    elif body[:2] == ["bandwidth", "guaranteed"] and neg:
        queue.guaranteed = At(None, line)
    elif body[:1] == ["shape"] or body[:3] == ["random-detect", "ecn", "count"]:
        return
    elif body[:2] in (["random-detect", "ecn"], ["random-detect", "drop"]):
        _red(node, body[1:], neg, queue, issues)
    else:
        issues.node(node, "tx-queue statement not understood")


def _bandwidth(node: Node, body: list[str], neg: bool, queue: QueueConf, issues: Issues) -> None:
    guaranteed = body[1] == "guaranteed"
    rest = body[3:] if guaranteed else body[2:]
    value = None
    if not neg:
        value = values.as_number(rest[0]) if len(rest) == 1 else None
        if value is None or value > 100:
            issues.node(node, "unreadable bandwidth percent (expected 0-100)")
            return
    setting = At(value, node.line)
    if guaranteed:
        queue.guaranteed = setting
    else:
        queue.bandwidth = setting


def _red(node: Node, body: list[str], neg: bool, queue: QueueConf, issues: Issues) -> None:
    kind, rest = body[0], body[1:]
    if neg:
        cleared: At[Red | None] = At(None, node.line)
        if kind == "ecn":
            queue.ecn = cleared
        else:
            queue.drop = cleared
        return
    colour = rest[:1] == ["drop-precedence"]
    red = red_thresholds(rest[2:] if colour else rest, node.text)
    if red is None:
        issues.node(node, f"unreadable random-detect {kind} thresholds")
    elif kind == "ecn":
        queue.ecn = At(red, node.line)
    elif not colour or queue.drop is None:
        queue.drop = At(red, node.line)


def red_thresholds(words: list[str], text: str = "") -> Red | None:
    """Read ``minimum-threshold A U maximum-threshold B U [max-mark-probability|drop-probability
    P] [weight W]``; None when unreadable."""
    if len(words) < 6 or words[0] != "minimum-threshold" or words[3] != "maximum-threshold":
        return None
    low = values.threshold(words[1], words[2])
    high = values.threshold(words[4], words[5])
    rest = words[6:]
    if low is None or high is None or len(rest) % 2:
        return None
    probability: float | None = None
    for key, word in zip(rest[::2], rest[1::2], strict=True):
        number = values.as_number(word)
        if number is None:
            return None
        if key in ("max-mark-probability", "drop-probability"):
            if not 0 < number <= 100:
                return None
            probability = number
        elif key != "weight":
            return None
    return Red(low=low, high=high, probability=probability, text=text)
