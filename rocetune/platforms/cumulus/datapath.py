"""Read the Linux datapath QoS files of Cumulus Linux into ports.

Files: ``/etc/cumulus/datapath/traffic.conf`` (Cumulus Linux 3.x/4.x) and its 5.x successor
``/etc/cumulus/datapath/qos/qos_features.conf``; one ``key = value`` per line, ``#``
comments, values ``[a, b]`` lists, ``true``/``false``, numbers and port sets
(``swp1-swp4,swp6,swp50s0-swp50s3`` or ``allports``). Sources: CumulusNetworks/docs
"Buffer and Queue Management" (3.7, 4.x) and "Quality of Service" (5.x), which describe each
key; the files in the tests are copies from those pages.

What is read (everything else that looks like a setting is reported, with its line):

* ``traffic.packet_priority_source_set`` -> trust (``[dscp]`` dscp, ``[802.1p]`` pcp, both
  -> both, ``[]`` port); ``traffic.cos_<n>.priority_source.dscp`` -> DSCP -> switch priority
  (the internal cos); ``...priority_source.8021p`` -> PCP -> cos for PCP trust. The egress
  queue of cos n is queue n (``tc_to_queue`` and ``priority_to_tc`` identity on 0-7).
* ``pfc.<group>.*``: ``cos_list``, ``port_set``, ``rx_enable``, ``tx_enable``,
  ``cable_length`` -> the ports' PFC priorities (rx/tx) and cable length;
  ``port_buffer_bytes``, ``xoff_size``, ``xon_delta`` are accepted but not turned into a
  buffer profile (the switch derives its PG from them; rocetune does not assert a headroom it
  did not compute). Ports in no PFC group have no PFC.
* ``link_pause.<group>.*``: rx/tx on the group's ports -> link_pause.
* ``ecn_red.<group>.*`` (3.x/4.x, per port set) and ``default_ecn_red_conf.*`` (5.x, every
  port): ``cos_list``/``egress_queue_list``, ``ecn_enable``, ``red_enable``,
  ``min_threshold_bytes``, ``max_threshold_bytes``, ``probability`` -> per-queue ECN.
* ``priority_group.<name>.cos_list`` + ``.weight`` (3.x/4.x: weight 0 = strict, else DWRR
  weight) and ``default_egress_sched.egr_queue_<n>.bw_percent`` (5.x: 0 = strict, else DWRR
  percent) -> schedulers.
* ``pfc_watchdog.<group>.port_set`` -> watchdog enabled on those ports (timers unknown).

Ports are the swp ports the port sets name; ``allports`` applies to each of them. A group
whose name is missing from its ``port_group_list`` (or the reverse) is read and reported,
because the documentation examples are not consistent about it. MTU, speed and admin state
are not in these files: unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rocetune.model import EcnProfile, Port, Scheduler, Trust, Unparsed, Watchdog
from rocetune.model.device import Feature
from rocetune.model.share import built
from rocetune.platforms.cumulus import values
from rocetune.platforms.cumulus.scope import keyword_features

_LINE = re.compile(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*=\s*(.*?)\s*$")
_COS = re.compile(r"traffic\.cos_(\d)\.priority_source\.(dscp|8021p)")
_SWP = re.compile(r"swp\d+(?:s\d+)?")
_GROUPED = ("pfc", "link_pause", "ecn_red", "pfc_watchdog")
_GROUP_KEYS: dict[str, frozenset[str]] = {
    "pfc": frozenset(
        {
            "cos_list",
            "port_set",
            "rx_enable",
            "tx_enable",
            "cable_length",
            "port_buffer_bytes",
            "xoff_size",
            "xon_delta",
        }
    ),
    "link_pause": frozenset(
        {
            "port_set",
            "rx_enable",
            "tx_enable",
            "cable_length",
            "port_buffer_bytes",
            "xoff_size",
            "xon_delta",
        }
    ),
    "ecn_red": frozenset(
        {
            "cos_list",
            "port_set",
            "ecn_enable",
            "red_enable",
            "min_threshold_bytes",
            "max_threshold_bytes",
            "probability",
        }
    ),
    "pfc_watchdog": frozenset({"port_set"}),
}
_DEFAULT_ECN = frozenset(
    {
        "egress_queue_list",
        "ecn_enable",
        "red_enable",
        "min_threshold_bytes",
        "max_threshold_bytes",
        "probability",
    }
)
_ACCEPTED = frozenset(
    {
        "traffic.priority_group_list",
        "scheduling.algorithm",
        "traffic.packet_priority_remark_set",
        "dos_enable",
    }
)
"""Keys read as they are: scheduling group names, the only algorithm (dwrr), an empty
remark set (a non-empty one is reported), and DoS protection (not QoS)."""
_TRUST: dict[frozenset[str], Trust] = {
    frozenset({"dscp"}): "dscp",
    frozenset({"802.1p"}): "pcp",
    frozenset({"802.1p", "dscp"}): "both",
    frozenset(): "port",
}
_REASON = "datapath QoS setting not read by rocetune"


@dataclass
class Datapath:
    """The result: ports, unparsed items and facts."""

    ports: dict[str, Port] = field(default_factory=dict)
    port_lines: dict[str, int] = field(default_factory=dict)
    unparsed: list[Unparsed] = field(default_factory=list)
    skipped: int = 0


@dataclass
class _Raw:
    settings: dict[str, tuple[str, int]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def get(self, key: str) -> str | None:
        found = self.settings.get(key)
        if found is None:
            return None
        self.used.add(key)
        return found[0]

    def line(self, key: str) -> int | None:
        found = self.settings.get(key)
        return found[1] if found else None


def _list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None
    return [t.strip() for t in body[1:-1].split(",") if t.strip()]


def _ints(text: str | None, high: int) -> list[int] | None:
    items = _list(text)
    if items is None:
        return None
    out: list[int] = []
    for item in items:
        number = values.as_int(item)
        if number is None or number > high:
            return None
        out.append(number)
    return out


def _flag(text: str | None) -> bool | None:
    return {"true": True, "false": False}.get((text or "").strip().lower())


def _ports(text: str | None) -> list[str] | None:
    """Port names of a port set; [] for ``allports``; None when unreadable."""
    if text is None:
        return None
    if text.strip().lower() == "allports":
        return []
    names = values.expand_names(text.replace(" ", ""))
    if names is None:
        return None
    return [n for n in names if _SWP.fullmatch(n)]


def read_datapath(text: str, file: str) -> Datapath:
    """Parse a traffic.conf / qos_features.conf text."""
    raw = _Raw()
    out = Datapath()
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        m = _LINE.match(stripped)
        if m is None:
            out.skipped += 1
            continue
        raw.settings[m.group(1)] = (m.group(2), number)
    groups = _groups(raw, out, file)
    ports: dict[str, _Port] = {}
    for key, (value, number) in raw.settings.items():
        if key.endswith(".port_set"):
            for name in _ports(value) or ():
                ports.setdefault(name, _Port(line=number))
    ports = dict(sorted(ports.items(), key=lambda kv: _natural(kv[0])))
    _classification(raw, ports)
    _pfc(raw, groups.get("pfc", []), ports)
    _link_pause(raw, groups.get("link_pause", []), ports)
    _ecn(raw, groups.get("ecn_red", []), ports)
    _schedulers(raw, ports)
    _watchdog(groups.get("pfc_watchdog", []), ports)
    remark = _list(raw.settings.get("traffic.packet_priority_remark_set", ("[]", 0))[0])
    for key, (value, number) in raw.settings.items():
        accepted = key in _ACCEPTED and not (key.endswith("remark_set") and remark)
        if key not in raw.used and not accepted:
            out.unparsed.append(
                Unparsed(
                    item=f"{key} = {value}"[:200],
                    reason=_REASON,
                    file=file,
                    line=number,
                    ports=None,
                    features=keyword_features(key) or _features_of_head(key),
                )
            )
    for name, port in ports.items():
        out.ports[name] = port.model(name)
        out.port_lines[name] = port.line or 1
    return out


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", text) if t)


def _features_of_head(key: str) -> tuple[Feature, ...]:
    return ("buffers",) if key.split(".", 1)[0] in {"port", "flow_control"} else ()


@dataclass
class _Port:
    fields: dict[str, Any] = field(default_factory=dict)
    line: int | None = None

    def model(self, name: str) -> Port:
        return built(Port(name=name, **self.fields))


Group = tuple[str, list[str] | None]


def _groups(raw: _Raw, out: Datapath, file: str) -> dict[str, list[Group]]:
    """Per section, (group name, its ports) for every group that has keys."""
    found: dict[str, list[Group]] = {}
    for section in _GROUPED:
        list_key = f"{section}.port_group_list"
        listed = _list(raw.get(list_key)) or []
        named = sorted(
            {
                k.split(".")[1]
                for k in raw.settings
                if k.startswith(section + ".") and k.count(".") >= 2
            }
        )
        unlisted = sorted(set(named) - set(listed))
        empty = sorted(set(listed) - set(named))
        if unlisted or empty:
            parts = [f"group {n!r} has settings but is not listed" for n in unlisted]
            parts += [f"group {n!r} is listed but has no settings" for n in empty]
            out.unparsed.append(
                Unparsed(
                    item=f"{list_key} = {raw.settings.get(list_key, ('(absent)', 0))[0]}",
                    reason="; ".join(parts) + ": the groups with settings are read as applied",
                    file=file,
                    line=raw.line(list_key),
                    features=keyword_features(section) or ("pfc",),
                )
            )
        for name in named:
            prefix = f"{section}.{name}."
            for key in [k for k in raw.settings if k.startswith(prefix)]:
                if key[len(prefix) :] in _GROUP_KEYS[section]:
                    raw.used.add(key)
            port_set = raw.settings.get(prefix + "port_set")
            found.setdefault(section, []).append((name, _ports(port_set[0] if port_set else None)))
    return found


def _members(group: Group, ports: dict[str, _Port]) -> list[_Port]:
    names = group[1]
    if names == []:
        return list(ports.values())
    return [ports[n] for n in names or () if n in ports]


def _classification(raw: _Raw, ports: dict[str, _Port]) -> None:
    source = _list(raw.get("traffic.packet_priority_source_set"))
    trust = None if source is None else _TRUST.get(frozenset(s.lower() for s in source))
    dscp: dict[int, int] = {}
    pcp: dict[int, int] = {}
    seen = False
    for key in list(raw.settings):
        m = _COS.fullmatch(key)
        if m is None:
            continue
        seen = True
        codes = _ints(raw.get(key), 63 if m.group(2) == "dscp" else 7)
        for code in codes or ():
            (dscp if m.group(2) == "dscp" else pcp)[code] = int(m.group(1))
    identity = {i: i for i in range(8)}
    for port in ports.values():
        port.fields["trust"] = trust
        port.fields["tc_to_queue"] = dict(identity)
        if not seen:
            continue
        if trust == "pcp":
            port.fields["dscp_to_priority"] = {}
            port.fields["priority_to_tc"] = dict(pcp)
        else:
            port.fields["dscp_to_priority"] = dict(dscp)
            port.fields["priority_to_tc"] = dict(identity)


def _pfc(raw: _Raw, groups: list[Group], ports: dict[str, _Port]) -> None:
    for port in ports.values():
        port.fields.update(pfc_rx=(), pfc_tx=(), pfc_priority_to_queue={})
    for group in groups:
        prefix = f"pfc.{group[0]}."
        cos = tuple(sorted(set(_ints(raw.settings.get(prefix + "cos_list", ("", 0))[0], 7) or ())))
        rx = _flag(raw.settings.get(prefix + "rx_enable", ("true", 0))[0])
        tx = _flag(raw.settings.get(prefix + "tx_enable", ("true", 0))[0])
        cable = values.as_number(raw.settings.get(prefix + "cable_length", ("", 0))[0])
        for port in _members(group, ports):
            port.fields["pfc_rx"] = tuple(sorted({*port.fields["pfc_rx"], *(cos if rx else ())}))
            port.fields["pfc_tx"] = tuple(sorted({*port.fields["pfc_tx"], *(cos if tx else ())}))
            port.fields["pfc_priority_to_queue"] = {c: c for c in port.fields["pfc_rx"]} | {
                c: c for c in port.fields["pfc_tx"]
            }
            if cable is not None:
                port.fields["cable_length_m"] = cable


def _link_pause(raw: _Raw, groups: list[Group], ports: dict[str, _Port]) -> None:
    for port in ports.values():
        port.fields["link_pause"] = False
    for group in groups:
        prefix = f"link_pause.{group[0]}."
        rx = _flag(raw.settings.get(prefix + "rx_enable", ("false", 0))[0])
        tx = _flag(raw.settings.get(prefix + "tx_enable", ("false", 0))[0])
        for port in _members(group, ports):
            port.fields["link_pause"] = bool(rx or tx)


def _profile(raw: _Raw, prefix: str, name: str) -> EcnProfile:
    def num(key: str) -> int | None:
        return values.as_int(raw.settings.get(prefix + key, ("", 0))[0])

    prob = values.as_number(raw.settings.get(prefix + "probability", ("", 0))[0])
    return EcnProfile(
        name=name,
        ecn_mark=_flag(raw.settings.get(prefix + "ecn_enable", ("false", 0))[0]),
        red_drop=_flag(raw.settings.get(prefix + "red_enable", ("false", 0))[0]),
        min_threshold_bytes=num("min_threshold_bytes"),
        max_threshold_bytes=num("max_threshold_bytes"),
        max_probability_pct=prob,
    )


def _ecn(raw: _Raw, groups: list[Group], ports: dict[str, _Port]) -> None:
    for port in ports.values():
        port.fields["ecn"] = {}
    if any(k.startswith("default_ecn_red_conf.") for k in raw.settings):
        prefix = "default_ecn_red_conf."
        for key in raw.settings:
            if key.startswith(prefix) and key[len(prefix) :] in _DEFAULT_ECN:
                raw.used.add(key)
        queues = _ints(raw.settings.get(prefix + "egress_queue_list", ("", 0))[0], 7) or []
        profile = _profile(raw, prefix, "default_ecn_red_conf")
        for port in ports.values():
            port.fields["ecn"].update(dict.fromkeys(queues, profile))
    for group in groups:
        prefix = f"ecn_red.{group[0]}."
        queues = _ints(raw.settings.get(prefix + "cos_list", ("", 0))[0], 7) or []
        profile = _profile(raw, prefix, group[0])
        for port in _members(group, ports):
            port.fields["ecn"].update(dict.fromkeys(queues, profile))


def _schedulers(raw: _Raw, ports: dict[str, _Port]) -> None:
    out: dict[int, Scheduler] = {}
    for key in list(raw.settings):
        parts = key.split(".")
        if len(parts) == 3 and parts[0] == "priority_group" and parts[2] == "cos_list":
            weight = values.as_int(raw.get(f"priority_group.{parts[1]}.weight"))
            raw.used.add(key)
            for cos in _ints(raw.settings[key][0], 7) or ():
                if weight is None:
                    continue
                kind = "strict" if weight == 0 else "dwrr"
                out[cos] = Scheduler(
                    name=parts[1],
                    kind=kind,
                    weight=None if weight == 0 else float(weight),
                    weight_is_percent=False,
                )
        m = re.fullmatch(r"default_egress_sched\.egr_queue_(\d)\.bw_percent", key)
        if m is not None:
            pct = values.as_number(raw.get(key))
            if pct is not None:
                queue = int(m.group(1))
                out[queue] = Scheduler(
                    name="default_egress_sched",
                    kind="strict" if pct == 0 else "dwrr",
                    weight=None if pct == 0 else pct,
                )
    for port in ports.values():
        port.fields["schedulers"] = dict(out) if out else None


def _watchdog(groups: list[Group], ports: dict[str, _Port]) -> None:
    for port in ports.values():
        port.fields["watchdog"] = Watchdog(enabled=False)
    for group in groups:
        for port in _members(group, ports):
            port.fields["watchdog"] = Watchdog(enabled=True, action="drop")
