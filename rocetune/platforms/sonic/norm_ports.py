"""Step 2 (ports and device): PORT, DEVICE_METADATA, PFC_WD, CABLE_LENGTH and fact tables.

Decisions:

* ``PORT`` fields rocetune models: ``speed`` (Mb/s already), ``mtu``, ``admin_status``
  (``up``/``down``; absent: see :func:`.build_port.build_port`), ``pfc_asym``
  (``on``/``off``), ``fec`` (``rs``/``fc``/``none``/``auto``) and ``alias``
  (the name lldpmgrd advertises as the LLDP port ID), ``lanes`` (counted: buffermgrd
  passes the number of comma-separated lanes to the headroom computation, which doubles the
  pipeline latency of an 8-lane port). Other PORT fields are ignored unless
  their name looks QoS-related (pfc, pause, flow control, buffer, ...), which is reported.
* ``DEVICE_METADATA|localhost`` is kept as text; the builder picks hostname, platform,
  hwsku, buffer_model and default_pfcwd_status.
* ``PFC_WD|GLOBAL`` holds ``POLL_INTERVAL`` (ms) and ``BIG_RED_SWITCH``; a big red switch
  set to ``enable`` forces every lossless queue into drop mode, which rocetune does not
  model, so it is reported. Other ``PFC_WD`` keys are ports with ``action``,
  ``detection_time`` and ``restoration_time`` (ms).
* ``CABLE_LENGTH|<name>`` maps port -> ``"<n>m"``. buffermgrd looks the string up in
  ``pg_profile_lookup.ini``, whose rows are written with the ``m`` suffix, so a value
  without it is reported rather than guessed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rocetune.platforms.sonic.shape import PortCfg, SonicConfig, WatchdogCfg
from rocetune.platforms.sonic.tables import Entry, RawDb
from rocetune.platforms.sonic.values import (
    At,
    Problems,
    as_text,
    read_choice,
    read_int,
    read_text,
)

_UP_DOWN = {"up": True, "down": False}
_ON_OFF = {"on": True, "off": False}
_ENABLE = {"enable": "enable", "disable": "disable"}
_FEC = {"rs": "rs", "fc": "fc", "none": "none", "auto": "auto"}
_WD_ACTIONS = {"drop": "drop", "forward": "forward", "alert": "alert"}
_CABLE = re.compile(r"(\d+(?:\.\d+)?)m")
_PORT_QOS_WORDS = ("pfc", "pause", "flow", "qos", "buffer", "ecn", "wred", "queue", "dscp")
_PORT_KNOWN = frozenset({"speed", "mtu", "admin_status", "pfc_asym", "fec", "alias", "lanes"})
_WD_IGNORED = frozenset({"pfc_stat_history"})
_WD_KNOWN = frozenset({"action", "detection_time", "restoration_time"}) | _WD_IGNORED
_MAX_SPEED_MBPS = 10_000_000


def normalise_ports(db: RawDb, cfg: SonicConfig, pr: Problems) -> None:
    """Fill ports, metadata, watchdogs, cable lengths and facts of ``cfg``."""
    for key, entry in db.table("PORT").items():
        cfg.ports[key] = _port(entry, pr)
    _metadata(db, cfg)
    for key, entry in db.table("PFC_WD").items():
        if key == "GLOBAL":
            _wd_global(entry, cfg, pr)
        else:
            cfg.watchdogs[key] = _watchdog(entry, pr)
            cfg.note_port(key, "PFC_WD", entry.line)
    for entry in db.table("CABLE_LENGTH").values():
        _cable(entry, cfg, pr)
    _facts(db, cfg)


def _port(entry: Entry, pr: Problems) -> PortCfg:
    port = PortCfg(name=entry.key, line=entry.line)
    port.speed = read_int(entry, "speed", pr, lo=1, hi=_MAX_SPEED_MBPS)
    port.mtu = read_int(entry, "mtu", pr, lo=1, hi=65535)
    port.admin_up = read_choice(entry, "admin_status", pr, _UP_DOWN)
    port.pfc_asym = read_choice(entry, "pfc_asym", pr, _ON_OFF)
    port.fec = read_choice(entry, "fec", pr, _FEC)
    port.alias = read_text(entry, "alias", pr)
    port.lanes = _lanes(entry, pr)
    for name in entry.fields:
        if name not in _PORT_KNOWN and _qos_looking(name):
            pr.unknown_field(entry, name)
    return port


@lru_cache(maxsize=1024)
def _qos_looking(name: str) -> bool:
    """A PORT field whose name looks QoS-related (cached: every port has the same fields)."""
    lowered = name.lower()
    return any(w in lowered for w in _PORT_QOS_WORDS)


def _lanes(entry: Entry, pr: Problems) -> At[int | None] | None:
    """The lane count of ``PORT.lanes`` (``"0,1,2,3"`` -> 4), as buffermgrd counts it."""
    text = read_text(entry, "lanes", pr)
    if text is None or text.value is None:
        return None
    count = _lane_count(text.value)
    if count is None:
        pr.add(
            f"{entry.item} lanes={text.value}", "expected lane numbers such as 0,1,2,3", text.line
        )
        return None
    return At(count, text.line)


@lru_cache(maxsize=8192)
def _lane_count(text: str) -> int | None:
    """The comma-separated lane numbers of ``text``; None when one is not a number (cached:
    the switches of a fabric list the same lanes)."""
    items = [item.strip() for item in text.split(",")]
    return len(items) if all(item.isdigit() for item in items) else None


def _metadata(db: RawDb, cfg: SonicConfig) -> None:
    entry = db.table("DEVICE_METADATA").get("localhost")
    if entry is None:
        return
    for name, value in entry.fields.items():
        cfg.metadata[name] = At(as_text(value), entry.line_of(name))


def _wd_global(entry: Entry, cfg: SonicConfig, pr: Problems) -> None:
    cfg.poll_interval = read_int(entry, "POLL_INTERVAL", pr, lo=1)
    brs = read_choice(entry, "BIG_RED_SWITCH", pr, _ENABLE)
    if brs is not None and brs.value == "enable":
        pr.add(
            f"{entry.item} BIG_RED_SWITCH=enable",
            "big red switch forces all lossless queues into drop mode; not modelled",
            brs.line,
        )
    for name in entry.fields:
        if name not in {"POLL_INTERVAL", "BIG_RED_SWITCH"}:
            pr.unknown_field(entry, name)


def _watchdog(entry: Entry, pr: Problems) -> WatchdogCfg:
    wd = WatchdogCfg(line=entry.line)
    wd.action = read_choice(entry, "action", pr, _WD_ACTIONS)
    wd.detection = read_int(entry, "detection_time", pr, lo=0)
    wd.restoration = read_int(entry, "restoration_time", pr, lo=0)
    for name in entry.fields:
        if name not in _WD_KNOWN:
            pr.unknown_field(entry, name)
    return wd


def _cable(entry: Entry, cfg: SonicConfig, pr: Problems) -> None:
    for port in entry.fields:
        text = read_text(entry, port, pr)
        if text is None:
            continue
        cfg.note_port(port, "CABLE_LENGTH", text.line)
        m = _CABLE.fullmatch(text.value or "")
        if text.value is not None and m is None:
            pr.add(
                f"{entry.item} {port}={text.value}",
                'expected a length in metres such as "40m"',
                text.line,
            )
        cfg.cable[port] = At(float(m.group(1)) if m else None, text.line)


def _facts(db: RawDb, cfg: SonicConfig) -> None:
    for table, prefix in (
        ("LOSSLESS_TRAFFIC_PATTERN", "lossless_traffic_pattern"),
        ("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "default_lossless_buffer_parameter"),
    ):
        for entry in db.table(table).values():
            for name, value in entry.fields.items():
                text = as_text(value)
                if text is not None:
                    cfg.facts[f"{prefix}.{name}"] = text
    version = db.table("VERSIONS").get("DATABASE")
    if version is not None:
        text = as_text(version.fields.get("VERSION"))
        if text is not None:
            cfg.facts["config_db_version"] = text
