"""The vendor shape, step 2: the top-level commands of a running-config.

Read: ``hostname`` / ``switchname``, ``version``, ``class-map`` (:mod:`.classes`),
``policy-map`` (:mod:`.policies`), ``system qos`` with ``service-policy type network-qos P``,
``service-policy type queuing input|output P`` and ``service-policy type qos input P``,
``interface`` blocks and ``interface breakout`` lines (:mod:`.interfaces`), and the global
PFC watchdog: ``priority-flow-control watch-dog-interval on|off``, ``priority-flow-control
watch-dog interval <ms>``, ``priority-flow-control watch-dog shutdown-multiplier <n>``,
``priority-flow-control auto-restore|fixed-restore multiplier <n>`` (S20 names the interval,
the shutdown multiplier and the auto/fixed restore multipliers; the command spellings follow
the Nexus 9000 QoS guides and the NX-API reference **[partly unverified]**).

Any other top-level line that looks QoS-related (``priority-flow-control ...``, ``qos ...``,
``mls qos ...``, ``ecn ...``, ``hardware qos ...``, ``table-map``, a ``class`` line outside a
policy-map) is reported (RT001); the rest of the configuration is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.platforms.common.cli_tree import word_set
from rocetune.platforms.common.unparsed import features_of
from rocetune.platforms.nxos.classes import ClassMap, read_class_map
from rocetune.platforms.nxos.interfaces import (
    Breakout,
    IfaceConfig,
    Setting,
    read_breakout,
    read_interface,
)
from rocetune.platforms.nxos.lines import Issues, Node
from rocetune.platforms.nxos.policies import RawPolicy, read_policy_map
from rocetune.platforms.nxos.values import parse_int

GLOBAL_QOS_WORDS = (
    "priority-flow-control",
    "qos",
    "mls",
    "ecn",
    "wred",
    "random-detect",
    "pfc",
    "buffer",
    "queue",
    "table-map",
    "flowcontrol",
    "link-level-flow-control",
    "dcbx",
    "congestion-control",
    "service-policy",
)
NOT_QOS_TOP = word_set(
    "feature vlan vrf router line ip ipv6 username ntp logging snmp-server spanning-tree boot"
    " aaa tacacs-server radius-server nv evpn service clock cli power license rmon errdisable"
    " lacp lldp copp ssh telnet fex mac role key install event monitor callhome fabric system"
    " track object-group route-map vpc port-channel cfs password rate-limit udld cdp ptp sflow"
    " vdc crypto bfd mpls segment-routing telemetry nxapi http-server macsec alias kernel"
    " control-plane hostname switchname version userpassphrase ntp-server port-profile"
    " hardware-telemetry tcam system-mac ip-sla bgp ospf interface-vlan dhcp guestshell"
    " platform spanning vpc-domain icam onep epbr sla hsrp vrrp ngoam tunnel-profile hardware"
    " errdisable diagnostic terminal end xml switching-mode"
)
"""Global commands known to change no QoS fact rocetune models (consumed, not reported)."""
_SYSTEM_KEYS = {
    ("network-qos",): "network-qos",
    ("queuing", "output"): "queuing-out",
    ("queuing", "input"): "queuing-in",
    ("qos", "input"): "qos",
}
_WD_NUMBERS = {
    ("watch-dog", "interval"): ("interval_ms", 100, 1000),
    ("watch-dog", "shutdown-multiplier"): ("shutdown_multiplier", 1, 10),
    ("auto-restore", "multiplier"): ("auto_restore", 0, 100),
    ("fixed-restore", "multiplier"): ("fixed_restore", 0, 100),
    ("watch-dog", "internal-interface-multiplier"): ("internal_multiplier", 0, 10),
}


@dataclass(slots=True)
class GlobalWatchdog:
    """Global PFC watchdog settings (values and lines); None = not in the config."""

    enabled: Setting[bool] | None = None
    numbers: dict[str, Setting[int]] = field(default_factory=dict)
    """``interval_ms``, ``shutdown_multiplier``, ``auto_restore``, ``fixed_restore``."""


@dataclass(slots=True)
class NxosConfig:
    """Everything read from one running-config."""

    hostname: Setting[str] | None = None
    version: str | None = None
    class_maps: dict[tuple[str, str], ClassMap] = field(default_factory=dict)
    policies: dict[tuple[str, str], RawPolicy] = field(default_factory=dict)
    system: dict[str, Setting[str]] = field(default_factory=dict)
    """``network-qos``, ``queuing-out``, ``queuing-in``, ``qos`` -> policy name."""
    watchdog: GlobalWatchdog = field(default_factory=GlobalWatchdog)
    interfaces: dict[str, IfaceConfig] = field(default_factory=dict)
    breakouts: list[Breakout] = field(default_factory=list)
    forward_nonecn: Setting[bool] | None = None
    """``congestion-control random-detect forward-nonecn`` (global or in a network-qos class):
    WRED-ECN queues forward non-ECN-capable packets instead of early-dropping them."""


def read_config(roots: list[Node], issues: Issues) -> NxosConfig:
    """Read the top-level lines of a running-config. ``roots`` is consumed (emptied as it
    is read: a block is freed once read, so the tree and the configuration it becomes are
    not both whole at once)."""
    cfg = NxosConfig()
    roots.reverse()
    while roots:
        _top(roots.pop(), cfg, issues)
    return cfg


def _top(node: Node, cfg: NxosConfig, issues: Issues) -> None:
    words = node.words
    head = words[0]
    if head in ("hostname", "switchname") and len(words) == 2:
        cfg.hostname = (words[1], node.line)
    elif head == "version" and len(words) >= 2:
        cfg.version = words[1]
    elif head == "class-map":
        read_class_map(node, issues, cfg.class_maps)
    elif head == "policy-map":
        read_policy_map(node, issues, cfg.policies)
    elif words == ["system", "qos"]:
        _system_qos(node, cfg, issues)
    elif head == "interface" and words[1:2] == ["breakout"]:
        found = read_breakout(node, issues)
        if found is not None:
            cfg.breakouts.append(found)
    elif head == "interface" and len(words) > 1:
        read_interface(node, issues, cfg.interfaces)
    elif head == "priority-flow-control" or words[:2] == ["no", "priority-flow-control"]:
        _global_pfc(node, cfg.watchdog, issues)
    elif head == "class":
        issues.block(
            node,
            "class line outside any policy-map in this file (pasted into the CLI it may"
            " attach to the policy-map above)",
        )
    elif words[:3] == ["congestion-control", "random-detect", "forward-nonecn"]:
        cfg.forward_nonecn = (True, node.line)
    elif head in GLOBAL_QOS_WORDS or words[:2] == ["hardware", "qos"]:
        issues.block(node, "global QoS command not modelled")
    elif head == "hardware" and features_of(node.text):
        issues.block(node, "hardware QoS/buffer profile not modelled")
    elif _skipped(words):
        issues.suspects(node, "QoS-looking line inside a block rocetune does not read")
    else:
        issues.block(node, "command not understood (not a global NX-OS command rocetune knows)")


def _skipped(words: list[str]) -> bool:
    """Known global commands that change no QoS fact (routing, management, VLANs ...)."""
    head = words[1] if words[0] in ("no", "default") and len(words) > 1 else words[0]
    return head in NOT_QOS_TOP and head not in GLOBAL_QOS_WORDS


def _system_qos(node: Node, cfg: NxosConfig, issues: Issues) -> None:
    for child in node.walk():
        words = child.words
        key = None
        if len(words) in (4, 5) and words[:2] == ["service-policy", "type"]:
            key = _SYSTEM_KEYS.get(tuple(words[2:-1]))
        if key is None:
            issues.node(child, "system qos command not modelled")
        else:
            cfg.system[key] = (words[-1], child.line)


def _global_pfc(node: Node, wd: GlobalWatchdog, issues: Issues) -> None:
    words = node.words
    if words[0] == "no" and words[1:] in (["priority-flow-control", "watch-dog-interval"],):
        wd.enabled = (False, node.line)
        return
    if len(words) == 3 and words[1] == "watch-dog-interval" and words[2] in ("on", "off"):
        wd.enabled = (words[2] == "on", node.line)
        return
    spec = _WD_NUMBERS.get((words[1], words[2])) if len(words) == 4 else None
    value = parse_int(words[3], spec[1], spec[2]) if spec else None
    if spec is None or value is None:
        issues.block(node, "global priority-flow-control command not modelled")
        return
    wd.numbers[spec[0]] = (value, node.line)
