"""What to collect from an Enterprise SONiC switch (sonic-cli), and which saved file is one.

Collected: ``show running-configuration`` (required; the Klish view of CONFIG_DB). The
``show qos ...`` outputs repeat what the running configuration holds (maps, policies) and
are not collected.

:func:`sniff` is cheap and never raises. A text is a sonic-cli configuration when it is not
JSON (community SONiC ``config_db.json``) and carries at least two Klish-only statements:
``qos map dscp-tc|tc-queue|tc-pg|pfc-priority-queue|pfc-priority-pg|dot1p-tc NAME``,
``qos wred-policy NAME``, ``qos scheduler-policy NAME``, interface ``qos-map <kind> NAME``,
``queue N wred-policy NAME``, ``interface-naming standard``, ``roce enable``, ``buffer init
lossless``, ``priority-flow-control watchdog on detect-time``, Klish prompts
(``sonic(conf-if-Ethernet0)#``) or an ``interface Eth1/1`` line; or one of them plus
``interface EthernetN`` blocks. NX-OS (``feature``, ``system qos``) and EOS (``qos map dscp
... to traffic-class``) markers exclude it.
"""

from __future__ import annotations

import re

from rocetune.platforms.base import never_raises
from rocetune.snapshot import Command

RUNNING_CONFIG = Command(id="running_config", command="show running-configuration")
COMMANDS: tuple[Command, ...] = (RUNNING_CONFIG,)

_LIMIT = 2_000_000
_KLISH = re.compile(
    r"^\s*(?:\$\s+)?(?:\S*\(conf[\w\-./@*]*\)[#$]\s*)?"
    r"(?:qos map (?:dscp-tc|dot1p-tc|tc-queue|tc-pg|tc-dscp|tc-dot1p|pfc-priority-queue"
    r"|pfc-priority-pg) \S+\s*$|qos (?:wred-policy|scheduler-policy) \S+\s*$"
    r"|qos-map (?:dscp-tc|dot1p-tc|tc-queue|tc-pg|pfc-priority-queue|pfc-priority-pg) \S+\s*$"
    r"|queue \d+ wred-policy \S+|interface-naming standard|roce enable\b"
    r"|(?:qos )?buffer init lossless|priority-flow-control watchdog on detect-time"
    r"|(?:qos )?buffer (?:profile \S+ \S+ \d+|pool \S+ shared-headroom-size \d+)"
    r"|interface (?:range )?Eth ?\d+/\d+)",
    re.MULTILINE,
)
_PROMPT = re.compile(r"^\s*\S*\((?:conf-(?:if|dscp|tc|wred|sched|pfc|dot1p)[^)]*)\)#", re.M)
_ETHERNET = re.compile(r"^\s*interface Ethernet ?\d+\s*$", re.MULTILINE)
_FOREIGN = re.compile(
    r"^(?:feature \S+$|system qos$|policy-map type network-qos|!Command:"
    r"|qos map dscp [\d ,-]+ to traffic-class|nv set |\s*\"[A-Z_]+(?:\|[^\"]*)?\"\s*:)",
    re.MULTILINE,
)


@never_raises
def sniff(text: str) -> Command | None:
    """Return the command a saved sonic-cli file stands for, or None; never raises."""
    return _sniff(text[:_LIMIT])


def _sniff(text: str) -> Command | None:
    body = text.lstrip("\ufeff").strip()
    if not body or body[0] in "{[" or _FOREIGN.search(body):
        return None
    hits = {m.group(0).strip() for m in _KLISH.finditer(body)}
    prompts = len(_PROMPT.findall(body))
    if len(hits) >= 2 or (hits and (prompts or _ETHERNET.search(body))):
        return RUNNING_CONFIG
    return None
