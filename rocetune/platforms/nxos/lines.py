"""The vendor shape, step 1: running-config text -> a tree of lines, plus the RT001 collector.

The tree is built by :mod:`rocetune.platforms.common.cli_tree` (indentation, or the CLI
modes for unindented scripts and transcripts; prompts, banners and exec commands removed)
with the NX-OS modes below. ``!`` lines are comments. A line starting with ``#`` is not
NX-OS syntax (the switch rejects it): it is dropped from the tree, so it cannot break the
nesting of the lines around it, and reported as Unparsed.

Modes (what a column-0 line of a pasted script belongs to): ``interface`` (every command
except the global ones in :data:`TOP_WORDS`; ``ip``/``ipv6``/``lldp``/``priority-flow-control``
/``service-policy``/``spanning-tree``/``mac``/``vrf`` stay interface commands), ``policy-map``
with its ``class`` sub-mode (class actions: :data:`CLASS_WORDS`), ``class-map``, ``system
qos`` and the non-QoS blocks (``router``, ``vrf context``, ``vlan``, ``line`` ...). The NX-OS
CLI itself falls back to the global mode for a global command typed in a sub-mode.

Readers of a block use :meth:`Node.walk` (every line below it in file order), so an action
indented one column off still belongs to its class.
"""

from __future__ import annotations

from rocetune.platforms.common.cli_tree import Grammar, Issues, Node, word_set
from rocetune.platforms.common.cli_tree import build_tree as _build

__all__ = ["OTHER_BLOCKS", "TOP_WORDS", "Issues", "Node", "build_tree"]

TOP_WORDS = word_set(
    "interface policy-map class-map system hostname switchname feature vlan vrf router line"
    " ip ipv6 username ntp logging snmp-server spanning-tree boot banner version hardware"
    " priority-flow-control qos control-plane route-map vpc track object-group aaa"
    " tacacs-server radius-server nv evpn service clock cli power license rmon errdisable"
    " lacp lldp copp ssh telnet fex mac port-channel role key install event monitor"
    " callhome fabric system-mac cfs password rate-limit policy-map udld cdp port-profile"
    " no default ptp sflow ntp-server vdc userpassphrase crypto bfd mpls segment-routing"
    " tcam hardware-telemetry telemetry nxapi http-server macsec rmon alias kernel"
    " mls ecn wred table-map"
)
"""First words that are global commands: a column-0 line starting so leaves any mode."""
_IFACE_TOO = word_set(
    "ip ipv6 lldp priority-flow-control service-policy spanning-tree mac vrf vpc qos"
    " bfd udld cdp hardware mls ecn wred flowcontrol"
)
"""Global words that are interface commands as well (they stay in interface mode)."""
CLASS_WORDS = word_set(
    "set bandwidth priority random-detect pause mtu congestion-control police shape"
    " queue-limit description afd dpp no"
)
OTHER_BLOCKS = word_set(
    "router vlan line role route-map vpc key track object-group monitor event"
    " port-profile vdc crypto"
)
"""Non-QoS blocks: consumed whole."""


def _head(words: list[str]) -> str:
    if words[0] in ("no", "default") and len(words) > 1:
        return words[1]
    return words[0]


def _opens(words: list[str], parent: str | None) -> str | None:
    head = words[0]
    if head == "interface" and words[1:2] != ["breakout"] and len(words) > 1:
        return "interface"
    if head == "policy-map":
        return "policy"
    if head == "class-map":
        return "class-map"
    if words[:2] == ["system", "qos"]:
        return "system"
    if head == "class" and parent in ("policy", "class"):
        return "class"
    if head in OTHER_BLOCKS or words[:2] in (["vrf", "context"], ["ip", "access-list"]):
        return "other"
    return None


def _accepts(mode: str, words: list[str]) -> bool:
    head = _head(words)
    if mode == "class":
        return head in CLASS_WORDS
    if mode == "interface" and head in _IFACE_TOO:
        return True
    if mode == "policy" and head == "class":
        return True
    return head not in TOP_WORDS


def _submode(mode: str, words: list[str]) -> bool:
    return mode == "policy" and words[0] == "class"


def _comment(text: str) -> str | None:
    if text.startswith("#"):
        return "not NX-OS syntax ('!' starts a comment); the switch rejects this line"
    return None


GRAMMAR = Grammar(opens=_opens, accepts=_accepts, submode=_submode, comment=_comment)


def build_tree(text: str, issues: Issues) -> list[Node]:
    """Return the top-level lines of ``text`` with the lines of their modes as children."""
    return _build(text, GRAMMAR, issues)
