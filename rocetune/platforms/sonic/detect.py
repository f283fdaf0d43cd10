"""Recognise a saved SONiC CONFIG_DB file (``config_db.json``, a ``show runningconfiguration
all`` capture, a redis dump, a configlet patch list).

A file is CONFIG_DB when it is JSON whose keys (or, for the flat form, the part before the
first ``|``) include a known CONFIG_DB table with an object value; the multi-ASIC form is
looked into. ``platform_qos.json`` (QOS_CAPABILITY_TABLE only), ``pg_profile_lookup.ini``,
CLI outputs and YAML are not. A file that is meant to be CONFIG_DB but is not valid JSON is
still claimed when a known table key appears in it, so the parser can report the JSON error
with its line instead of the file being skipped. Detection never raises.

A file claimed as CONFIG_DB is usually parsed next: the document its sniff decoded is handed
over to that parse (:func:`handed_over`), which then does not decode the same text again.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocetune.platforms.sonic.tables import FACT_TABLES, MODELLED

SONIC_TABLES: frozenset[str] = (
    MODELLED
    | FACT_TABLES
    | frozenset(
        {
            "ACL_RULE",
            "ACL_TABLE",
            "BGP_NEIGHBOR",
            "BGP_PEER_RANGE",
            "BREAKOUT_CFG",
            "BUFFER_PORT_EGRESS_PROFILE_LIST",
            "BUFFER_PORT_INGRESS_PROFILE_LIST",
            "CRM",
            "DEVICE_NEIGHBOR",
            "DEVICE_NEIGHBOR_METADATA",
            "DSCP_TO_FC_MAP",
            "EXP_TO_FC_MAP",
            "FEATURE",
            "FLEX_COUNTER_TABLE",
            "INTERFACE",
            "LOOPBACK_INTERFACE",
            "MGMT_INTERFACE",
            "MGMT_PORT",
            "MPLS_TC_TO_TC_MAP",
            "NTP_SERVER",
            "PORTCHANNEL",
            "PORTCHANNEL_INTERFACE",
            "PORTCHANNEL_MEMBER",
            "SYSLOG_SERVER",
            "TC_TO_DOT1P_MAP",
            "TC_TO_DSCP_MAP",
            "VLAN",
            "VLAN_INTERFACE",
            "VLAN_MEMBER",
        }
    )
)
"""Table names that identify a CONFIG_DB file."""

_KEY = re.compile(r'"(' + "|".join(sorted(SONIC_TABLES)) + r')(?:\|[^"\n]*)?"\s*:')
_NAMESPACE = re.compile(r"localhost|asic\d+")
_PROMPT = re.compile(
    r"^\s*(?:[\w.-]+@[\w.-]+(?::[^$#\s]*)?\s*[$#]|[$#]|[\w.-]+[#>])\s*(?P<rest>.*)$"
)
"""A shell prompt (``admin@sonic:~$``, ``root@sw:~#``, a bare ``$`` or ``#``)."""
_CAPTURE = re.compile(
    r"^(?:sudo\s+)?(?:show\s+runningconfiguration\b|sonic-cfggen\b|redis-dump\b|cat\b"
    r"|sonic-db-dump\b|config\s+save\b|ip\s+netns\s+exec\b|docker\s+exec\b|jq\b)"
)
"""Commands that print CONFIG_DB JSON (the command line of a pasted capture)."""
_SCAN_LIMIT = 4_000_000
_HANDED: dict[str, tuple[str, Any]] = {}
"""The document the last claiming sniff decoded, as (text, value): taken by the parse that
reads that text (``dict.pop``: by one parse only, even across threads, since the tables
hold the document's own dicts), replaced by the next claim; at most one document."""


def _has_table(obj: dict[object, object]) -> bool:
    return any(
        isinstance(k, str) and k.split("|", 1)[0] in SONIC_TABLES and isinstance(v, dict)
        for k, v in obj.items()
    )


def _is_config_db(value: object) -> bool:
    if isinstance(value, list):
        return (
            bool(value)
            and all(isinstance(e, dict) for e in value)
            and any(_has_table(e) for e in value)
        )
    if not isinstance(value, dict):
        return False
    if "localhost" in value and all(_NAMESPACE.fullmatch(str(k)) for k in value):
        return any(isinstance(v, dict) and _has_table(v) for v in value.values())
    return _has_table(value)


def _frame_line(line: str) -> bool:
    """True for a blank line, a prompt (with or without a command) or a capture command."""
    stripped = line.strip()
    if not stripped:
        return True
    m = _PROMPT.match(stripped)
    rest = m.group("rest") if m else stripped
    return not rest or bool(_CAPTURE.match(rest))


def json_body(text: str) -> str:
    """``text`` with the prompt and command lines of a pasted capture blanked out.

    ``admin@sonic:~$ show runningconfiguration all`` before the JSON and a bare prompt after
    it are replaced by empty lines, so JSON line numbers stay those of the file. Text whose
    lines around the JSON are anything else is returned unchanged (and then fails to parse
    as JSON, with its line).
    """
    body = text.lstrip("\ufeff")
    bare = body.strip()
    if bare[:1] in ("{", "[") and bare[-1:] in ("}", "]"):
        return body  # nothing but blanks around the JSON: no capture frame to blank out
    lines = body.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(("{", "["))), None)
    end = next(
        (i for i in range(len(lines) - 1, -1, -1) if lines[i].rstrip().endswith(("}", "]"))),
        None,
    )
    if start is None or end is None or end < start:
        return body
    head, tail = lines[:start], lines[end + 1 :]
    if not (any(ln.strip() for ln in head) or any(ln.strip() for ln in tail)):
        return body
    if not all(_frame_line(ln) for ln in (*head, *tail)):
        return body
    return "\n".join(["" for _ in head] + lines[start : end + 1] + ["" for _ in tail])


def looks_like_config_db(text: str) -> bool:
    """True when ``text`` is (or is meant to be) a SONiC CONFIG_DB JSON document."""
    body = json_body(text).lstrip("\ufeff \t\r\n")
    if not body.startswith(("{", "[")):
        return False
    constants: list[str] = []
    try:
        value = json.loads(body, parse_constant=lambda word: _constant(word, constants))
    except (ValueError, RecursionError):
        return _KEY.search(body, 0, _SCAN_LIMIT) is not None
    claimed = _is_config_db(value)
    if claimed and not constants:  # the parse rejects NaN/Infinity (with their line)
        _HANDED["last"] = (body, value)
    return claimed


def _constant(word: str, seen: list[str]) -> float:
    """``NaN``, ``Infinity``, ``-Infinity`` as :func:`json.loads` reads them, remembered."""
    seen.append(word)
    return float(word)


def handed_over(text: str) -> Any:
    """What :func:`json.loads` gives for ``text`` when the last claiming sniff decoded the
    same document (JSON white space before it aside) and no parse took it yet, else
    :data:`NOT_HANDED`; taken once."""
    got = _HANDED.pop("last", None)
    if got is None:
        return NOT_HANDED
    body, value = got
    if text is body or text.lstrip(" \t\n\r") == body:
        return value
    return NOT_HANDED


NOT_HANDED: Any = object()
"""No document handed over (:func:`handed_over`)."""
