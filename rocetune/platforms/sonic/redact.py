"""Secret redaction for SONiC outputs (CONFIG_DB JSON as ``show runningconfiguration all``).

Redacted before anything is written: the string value of every member whose key names a
secret (``TACPLUS``/``RADIUS`` ``passkey``, ``SNMP_USER_AUTH_PASSWORD``,
``SNMP_USER_ENCRYPTION_PASSWORD``, BGP ``password`` ...); the SNMP community names, which
are the *keys* of ``SNMP_COMMUNITY`` (nested form) or the ``SNMP_COMMUNITY|<name>`` keys
(flat redis-dump form), replaced by numbered placeholders so keys stay distinct; and the
FRR configuration text embedded as a string (``bgpraw``: ``neighbor X password Y``), with
the Cisco-like rules. Private keys anywhere.
"""

from __future__ import annotations

import json
from typing import Any

from rocetune.platforms.common.redact import (
    CISCO_LIKE,
    redact_generic,
    redact_json_embedded,
    redact_json_members,
    redact_json_tokens,
    redact_rules,
)
from rocetune.snapshot import Command

_COMMUNITY = "SNMP_COMMUNITY"
_NTP_KEY = "NTP_KEY"
"""NTP authentication keys: the secret is the ``value`` field (sonic-ntp.yang)."""


def _frr(text: str) -> str:
    return redact_rules(text, CISCO_LIKE)


def snmp_communities(text: str) -> set[str]:
    """SNMP community names and NTP key values in a CONFIG_DB JSON text (nested, flat or
    multi-ASIC): secrets that are keys, or values of a non-secret-looking field."""
    try:
        data = json.loads(text)
    except ValueError:
        return set()
    found: set[str] = set()
    _walk(data, found, depth=0)
    return found


def _walk(node: Any, found: set[str], depth: int) -> None:
    if not isinstance(node, dict) or depth > 2:
        return
    for key, value in node.items():
        if key == _NTP_KEY and isinstance(value, dict):
            found.update(_ntp_values(value.values()))
        elif isinstance(key, str) and key.startswith(_NTP_KEY + "|"):
            found.update(_ntp_values([value]))
        elif key == _COMMUNITY and isinstance(value, dict):
            found.update(str(k) for k in value)
        elif isinstance(key, str) and key.startswith(_COMMUNITY + "|"):
            found.add(key.partition("|")[2])
        elif isinstance(value, dict):
            _walk(value, found, depth + 1)


def _ntp_values(entries: Any) -> set[str]:
    return {
        str(e["value"])
        for e in entries
        if isinstance(e, dict) and isinstance(e.get("value"), str | int) and str(e["value"])
    }


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    if command.encoding == "json":
        text = redact_json_members(text)
        text = redact_json_tokens(text, snmp_communities(text))
        text = redact_json_embedded(text, _frr)
    else:
        text = _frr(text)
    return redact_generic(text)
