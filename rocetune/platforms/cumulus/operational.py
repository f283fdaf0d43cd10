"""Optional operational outputs: ``nv show interface -o json`` and ``nv show qos roce -o json``.

``nv show interface -o json`` is an object keyed by interface name, each with ``type`` and a
``link`` object holding ``speed`` (``"100G"``), ``mtu``, ``admin-status`` and
``oper-status`` (shape as used by the napalm-cumulus driver and public NVUE fixtures). The
parser uses it only where the applied configuration is silent: the operational link speed
(NVUE leaves ``link speed`` at auto unless set), the MTU and the admin state. Ports that exist
only here (never mentioned in the configuration) are still ports of the switch.

``nv show qos roce -o json``: no public sample of the JSON form was found (the text form is
in S1). Its scalar values are recorded verbatim in ``Device.facts`` under
``nv_show_qos_roce.<path>`` and are not used to fill the model: operational values are shown
rounded (``146.48 KB`` for 150000 B, S1 note), and the comparison of operational with
applied state belongs to a later rule (RT208).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rocetune.platforms.common.jsonpos import parse_json
from rocetune.platforms.cumulus import values
from rocetune.platforms.cumulus.tree import Issues

SWP = re.compile(r"swp\d+(?:s\d+)?")
_FACT_PREFIX = "nv_show_qos_roce"
_MAX_FACTS = 200


@dataclass(frozen=True)
class OperLink:
    """Operational link facts of one swp port."""

    mtu: int | None
    speed_mbps: int | None
    admin_up: bool | None
    line: int | None


def read_interfaces(text: str, file: str, issues: Issues) -> dict[str, OperLink]:
    """Read ``nv show interface -o json``; raise ParseError when it is not JSON."""
    doc = parse_json(text, file)
    if not isinstance(doc.value, dict):
        issues.add("(document)", "expected a JSON object keyed by interface name", 1)
        return {}
    out: dict[str, OperLink] = {}
    for name, node in doc.value.items():
        if not SWP.fullmatch(name):
            continue
        line = doc.line(name)
        link = node.get("link") if isinstance(node, dict) else None
        if not isinstance(link, dict):
            issues.invalid((name, "link"), link, "an object", line)
            continue
        out[name] = OperLink(
            mtu=_read(issues, (name, "link", "mtu"), link.get("mtu"), values.as_int, line),
            speed_mbps=_speed(issues, name, link.get("speed"), line),
            admin_up=_read(
                issues,
                (name, "link", "admin-status"),
                link.get("admin-status"),
                values.as_switch,
                line,
            ),
            line=line,
        )
    return out


def _read(issues: Issues, path: tuple[str, ...], raw: Any, reader: Any, line: int | None) -> Any:
    if raw is None:
        return None
    value = reader(raw)
    if value is None:
        issues.invalid(path, raw, "a link value", line)
    return value


def _speed(issues: Issues, name: str, raw: Any, line: int | None) -> int | None:
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("auto", "", "unknown")):
        return None
    return _read(issues, (name, "link", "speed"), raw, values.as_speed_mbps, line)  # type: ignore[no-any-return]


def read_roce_facts(text: str, file: str, issues: Issues) -> dict[str, str]:
    """Read ``nv show qos roce -o json`` into flat facts; raise ParseError when not JSON."""
    doc = parse_json(text, file)
    if not isinstance(doc.value, dict):
        issues.add("(document)", "expected a JSON object (`nv show qos roce -o json`)", 1)
        return {}
    facts: dict[str, str] = {}
    _flatten(doc.value, _FACT_PREFIX, facts)
    return facts


def _flatten(node: Any, prefix: str, facts: dict[str, str]) -> None:
    if len(facts) >= _MAX_FACTS:
        return
    if isinstance(node, dict):
        for key, child in node.items():
            _flatten(child, f"{prefix}.{key}", facts)
    elif isinstance(node, list):
        for index, child in enumerate(node):
            _flatten(child, f"{prefix}.{index}", facts)
    elif node is not None:
        facts[prefix] = str(node)
