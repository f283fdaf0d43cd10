"""Cumulus inputs rocetune recognises but does not parse: report them, never pass silently.

Recognised: ``nv show ...`` text tables (operational/applied columns), the Linux datapath QoS
files behind NVUE (``/etc/cumulus/datapath/qos/qos_features.conf``,
``/etc/mlx/datapath/qos/qos_infra.conf``) and their Cumulus 3.x/4.x predecessors
(``traffic.conf``, ``datapath.conf``), and NCLU ``net add`` command lists. The driver maps
them to one pseudo command. The datapath files are read (:mod:`.datapath`); for the others the
parser returns a device without ports and one Unparsed item per QoS-relevant line, with its
line number, asking for ``nv config show -o yaml``.
"""

from __future__ import annotations

import re

from rocetune.model import Unparsed
from rocetune.model.device import QOS_FEATURES, Feature
from rocetune.platforms.cumulus.commands_text import PROMPT
from rocetune.platforms.cumulus.scope import keyword_features, line_ports

NV_SHOW = "`nv show` text output"
DATAPATH = "datapath QoS file (qos_features.conf, qos_infra.conf, traffic.conf, datapath.conf)"
NCLU = "NCLU `net` command list"

_CONF_KEY = re.compile(
    r"\s*(traffic|pfc|ecn_red|link_pause|pfc_watchdog|default_ecn_red_conf|default_egress_sched"
    r"|egress_sched|priority_group|ingress_service_pool|egress_service_pool|flow_control"
    r"|port\.service_pool|port\.egress_buffer|cos_egr_queue|scheduling|source|remark|shaping"
    r"|egress_buffer|management)\.[\w.\-\[\]]+\s*=\s*\S"
)
_NCLU = re.compile(r"net\s+(add|del|commit|pending|abort)\b")
_NV_SHOW = re.compile(r"nv\s+show\b")
_HEADER = re.compile(r"\boperational\b.*\bapplied\b")
_SEPARATOR = re.compile(r"[\s=\-]+")
_NCLU_QOS = re.compile(
    r"\b(mtu|pfc|ecn|qos|dscp|cos|pause|roce|buffer|link-speed|speed|storage-optimized|lossless"
    r"|lossy|breakout)\b",
    re.IGNORECASE,
)
_MAX_LINES = 20_000
_ALL_FEATURES: tuple[Feature, ...] = (*QOS_FEATURES, "mtu")
_MAX_ITEM = 200


def classify(text: str) -> str | None:
    """Return the label of an unsupported Cumulus format, or None when it is none of them."""
    lines = [PROMPT.sub("", raw.strip(), count=1).strip() for raw in text.splitlines()[:2000]]
    meaningful = [ln for ln in lines if ln and not ln.startswith("#")]
    if not meaningful:
        return None
    if sum(bool(_NCLU.match(ln)) for ln in meaningful) * 2 > len(meaningful):
        return NCLU
    if any(_CONF_KEY.match(ln) for ln in meaningful):
        return DATAPATH
    if any(_NV_SHOW.match(ln) or _HEADER.search(ln) for ln in meaningful):
        return NV_SHOW
    return None


def unparsed_items(text: str, file: str, label: str) -> tuple[Unparsed, ...]:
    """One Unparsed item per QoS-relevant line (at least one for the whole file)."""
    reason = f"Cumulus {label} is not supported; collect `nv config show -o yaml`"
    lines = text.splitlines()[:_MAX_LINES]
    if label == NCLU:
        picked = [n for n, ln in enumerate(lines, 1) if _NCLU_QOS.search(ln)]
    elif label == DATAPATH:
        picked = [n for n, ln in enumerate(lines, 1) if _conf_line(ln)]
    else:
        picked = _show_lines(lines)
    items = [
        Unparsed(
            item=lines[n - 1].strip()[:_MAX_ITEM],
            reason=reason,
            file=file,
            line=n,
            ports=line_ports(lines[n - 1]) if label == NCLU else None,
            features=keyword_features(lines[n - 1]),
        )
        for n in picked
    ]
    if not items:
        items.append(
            Unparsed(item="(file)", reason=reason, file=file, line=1, features=_ALL_FEATURES)
        )
    return tuple(items)


def _conf_line(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#") and "=" in stripped


def _show_lines(lines: list[str]) -> list[int]:
    """Data lines of `nv show` tables: not blank, not separators, not titles or headers."""
    picked: list[int] = []
    for index, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped or _SEPARATOR.fullmatch(stripped) or PROMPT.match(stripped):
            continue
        following = next((ln.strip() for ln in lines[index + 1 :] if ln.strip()), "")
        if _SEPARATOR.fullmatch(following) or _HEADER.search(stripped):
            continue
        picked.append(index + 1)
    return picked
