"""Optional operational outputs: ``nv show interface -o json`` and ``nv show qos roce -o json``.

``nv show interface -o json`` is an object keyed by interface name, each with ``type`` and a
``link`` object holding ``speed`` (``"100G"``), ``mtu``, ``admin-status`` and
``oper-status`` (shape as used by the napalm-cumulus driver and public NVUE fixtures). The
parser uses it only where the applied configuration is silent: the operational link speed
(NVUE leaves ``link speed`` at auto unless set), the MTU and the admin state. Ports that exist
only here (never mentioned in the configuration) are still ports of the switch.

``nv show qos roce -o json``: no public sample of the JSON form was found (the text form is
in S1). Its scalar values are recorded verbatim in ``Device.facts`` under
``nv_show_qos_roce.<path>``; operational thresholds are shown rounded (``146.48 KB`` for
150000 B, S1 note) and are not used. Two parts fill the model (:func:`read_roce_oper`), with
the key names of the S1 text form: ``pfc`` -> the runtime PFC priorities of the global RoCE
PFC profile (``pfc-priority``; none when ``tx-enabled`` is disabled) for RT208, and
``lldp-app-tlv`` (``priority``, ``protocol-id``, ``selector``) -> the advertised application
TLV for RT709. A part that is absent stays unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from rocetune.model.device import AppTlv
from rocetune.platforms.common.jsonpos import JsonDoc, parse_json
from rocetune.platforms.cumulus import values
from rocetune.platforms.cumulus.tree import Issues

Selector = Literal["ethertype", "tcp", "udp", "tcp_udp", "dscp"]

SWP = re.compile(r"swp\d+(?:s\d+)?")
_FACT_PREFIX = "nv_show_qos_roce"
_MAX_FACTS = 200
_SELECTORS: dict[str, Selector] = {
    "udp": "udp",
    "tcp": "tcp",
    "ethertype": "ethertype",
    "dscp": "dscp",
    "tcp-udp": "tcp_udp",
    "tcp_udp": "tcp_udp",
}
_TLV_KEYS = ("selector", "protocol-id", "priority")


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


@dataclass(frozen=True)
class RoceOper:
    """What ``nv show qos roce -o json`` says about the global RoCE profile at runtime."""

    file: str = ""
    pfc: tuple[int, ...] | None = None
    pfc_line: int | None = None
    app_tlvs: tuple[AppTlv, ...] | None = None
    tlv_line: int | None = None


def read_roce_oper(text: str, file: str, issues: Issues) -> RoceOper:
    """Read the PFC and LLDP application TLV parts; raise ParseError when not JSON."""
    doc = parse_json(text, file)
    if not isinstance(doc.value, dict):
        return RoceOper(file=file)
    return RoceOper(
        file=file,
        pfc=_pfc_oper(doc, issues),
        pfc_line=doc.line("pfc"),
        app_tlvs=_app_tlvs(doc, issues),
        tlv_line=doc.line("lldp-app-tlv"),
    )


def _pfc_oper(doc: JsonDoc, issues: Issues) -> tuple[int, ...] | None:
    node = doc.value.get("pfc")
    if node is None:
        return None
    if not isinstance(node, dict):
        issues.invalid(("pfc",), node, "an object", doc.line("pfc"))
        return None
    if values.as_switch(node.get("tx-enabled")) is False:
        return ()
    raw = node.get("pfc-priority")
    if raw is None or raw in ("", []):
        return ()
    items = raw if isinstance(raw, list) else [raw]
    found: set[int] = set()
    for item in items:
        ids = values.expand_ids(item, 0, 7)
        if ids is None:
            where = ("pfc", "pfc-priority")
            issues.invalid(where, raw, "priorities 0..7", doc.line(*where))
            return None
        found.update(ids)
    return tuple(sorted(found))


def _app_tlvs(doc: JsonDoc, issues: Issues) -> tuple[AppTlv, ...] | None:
    node = doc.value.get("lldp-app-tlv")
    if node is None:
        return None
    if isinstance(node, dict) and not any(k in node for k in _TLV_KEYS):
        entries: list[Any] = list(node.values())  # a collection keyed by id
    else:
        entries = node if isinstance(node, list) else [node]
    out: list[AppTlv] = []
    for entry in entries:
        tlv = _app_tlv(entry)
        if tlv is None:
            where = ("lldp-app-tlv",)
            issues.invalid(where, entry, "selector, protocol-id, priority", doc.line(*where))
            return None
        out.append(tlv)
    return tuple(out)


def _app_tlv(entry: Any) -> AppTlv | None:
    if not isinstance(entry, dict):
        return None
    selector = _SELECTORS.get(str(entry.get("selector", "")).strip().lower())
    protocol = values.as_int(entry.get("protocol-id"))
    priority = values.as_int(entry.get("priority"))
    if selector is None or protocol is None or priority is None or priority > 7:
        return None
    return AppTlv(selector=selector, protocol=protocol, priority=priority)
