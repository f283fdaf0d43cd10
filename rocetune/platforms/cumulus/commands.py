"""What to collect from a Cumulus Linux 5.x switch, and which saved file stands for what.

Collected (in order): ``nv config show -o yaml`` (required; the applied NVUE configuration),
``nv show qos roce -o json`` and ``nv show interface -o json`` (optional operational data),
``sudo lldpctl -f json`` (optional LLDP neighbours).

:func:`sniff` recognises saved files without raising:

- NVUE YAML (a revision list starting ``- header:``/``- set:``, or a mapping whose top-level
  keys are NVUE objects including ``qos``, ``interface`` or ``system``), the same as JSON, and
  ``nv set``/``nv unset`` command lists (``nv config show -o commands``, pasted sessions with
  prompts): all stand for ``nv config show -o yaml``;
- the JSON of ``nv show qos roce -o json`` and ``nv show interface -o json``;
- other Cumulus text (``nv show`` tables, qos_features.conf / qos_infra.conf, 3.x
  traffic.conf / datapath.conf, NCLU ``net add`` lists): the :data:`UNSUPPORTED` pseudo
  command, which parses to Unparsed items asking for the NVUE YAML.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocetune.platforms.base import never_raises
from rocetune.platforms.cumulus import unsupported
from rocetune.platforms.cumulus.commands_text import is_commands_text
from rocetune.snapshot import Command

NV_CONFIG = Command(id="nv_config", command="nv config show -o yaml", encoding="yaml")
NV_QOS_ROCE = Command(
    id="nv_qos_roce", command="nv show qos roce -o json", encoding="json", required=False
)
NV_INTERFACE = Command(
    id="nv_interface", command="nv show interface -o json", encoding="json", required=False
)
LLDP = Command(id="lldp", command="sudo lldpctl -f json", encoding="json", required=False)
"""LLDP neighbours from lldpd (optional). NVUE shows neighbours only per interface (``nv show
interface <if> lldp neighbor``, CL 5.1+); CumulusNetworks/docs "Link Layer Discovery Protocol"
queries lldpd with ``sudo lldpcli show neighbors`` (``lldpctl`` is the same query), and
Cumulus advertises ``ifname`` port IDs."""
UNSUPPORTED = Command(
    id="unsupported_text", command="cumulus unsupported text", encoding="text", required=False
)
"""Pseudo command for recognised but unsupported Cumulus text; never collected."""

COMMANDS: tuple[Command, ...] = (NV_CONFIG, NV_QOS_ROCE, NV_INTERFACE, LLDP)

NVUE_TOP_KEYS = frozenset(
    {
        "acl",
        "bridge",
        "evpn",
        "interface",
        "mlag",
        "nve",
        "platform",
        "qos",
        "router",
        "service",
        "system",
        "vrf",
    }
)
_ANCHOR_KEYS = frozenset({"qos", "interface", "system"})
_REVISIONS = frozenset({"header", "set", "unset"})
_ROCE_SHOW_KEYS = frozenset(
    {"enable", "state", "mode", "pfc", "congestion-control", "trust", "lldp-app-tlv"}
)
_REVISION = re.compile(r"-\s+(header|set|unset)\s*:")
_TOP_KEY = re.compile(r"([a-z][a-z0-9-]*)\s*:")
_IFNAME = re.compile(r"(swp\d|eth\d|lo$|bond|vlan\d|peerlink)")


@never_raises
def sniff(text: str) -> Command | None:
    """Return the command a saved Cumulus file stands for, or None; never raises."""
    body = text.lstrip("\ufeff").strip()
    if not body:
        return None
    if body[0] in "{[":
        try:
            return _sniff_json(json.loads(body))
        except ValueError:
            pass
    if looks_like_nvue_yaml(body) or is_commands_text(body):
        return NV_CONFIG
    if unsupported.classify(body) is not None:
        return UNSUPPORTED
    return None


def looks_like_nvue_yaml(text: str) -> bool:
    """True for an NVUE revision list or a mapping of NVUE top-level objects."""
    keys: set[str] = set()
    for raw in text.splitlines()[:20_000]:
        if not raw.strip() or raw.lstrip().startswith("#") or raw.strip() in ("---", "..."):
            continue
        if raw[0] in " \t":
            continue
        if _REVISION.match(raw):
            return True
        match = _TOP_KEY.match(raw)
        if match is None:
            return False
        keys.add(match.group(1))
    return bool(keys) and keys <= NVUE_TOP_KEYS and bool(keys & _ANCHOR_KEYS)


def _sniff_json(data: Any) -> Command | None:
    if isinstance(data, list):
        revision = all(isinstance(i, dict) and len(i) == 1 and set(i) <= _REVISIONS for i in data)
        return NV_CONFIG if revision and any("set" in i for i in data) else None
    if not isinstance(data, dict) or not data:
        return None
    keys = set(data)
    if isinstance(data.get("set"), dict):
        return NV_CONFIG
    if keys <= NVUE_TOP_KEYS and keys & _ANCHOR_KEYS:
        return NV_CONFIG
    if len(keys & _ROCE_SHOW_KEYS) >= 2:  # e.g. mode and pfc
        return NV_QOS_ROCE
    named = any(_IFNAME.match(str(k)) for k in keys)
    if named and any(
        isinstance(v, dict) and isinstance(v.get("link"), dict) for v in data.values()
    ):
        return NV_INTERFACE
    return None
