"""Shape a device target into SONiC CONFIG_DB entries for ``templates/sonic/``.

Two outputs: the full QoS tables of the device's ports (``<device>.config_db.json``, the
traditional buffer model, readable by the SONiC parser and ``rocetune lint``) and a JSON
Patch (RFC 6902) list for ``config apply-patch`` (``apply/<device>.apply-patch.json``).
JSON has no comments, so the reasons go to ``reasons/<device>.reasons.txt``.

Entries (names follow SONiC's buffer/QoS templates): one ``ROCETUNE`` map of each kind, a
``pg_lossless_<speed>_<cable>m_profile`` per port speed and cable length (the traditional
model's naming), one ``ROCETUNE_ECN_<speed>`` WRED profile per speed (ecn_all, all colours),
three schedulers (lossless DWRR share, lossy DWRR share, strict for CNP), ``PFC_WD`` per port.
Pool sizes are ASIC facts: the device's own ``BUFFER_POOL`` entries are kept as they are, and
a device whose snapshot has none cannot be rendered (capability check).

Patch granularity: an entry owned by rocetune (maps, profiles, PORT_QOS_MAP, QUEUE, BUFFER_PG
...) is added whole (``add`` replaces an existing entry); shared entries (PORT, CABLE_LENGTH,
PFC_WD GLOBAL, DEVICE_METADATA) get one ``add`` per field so their other fields stay. The
patch assumes the tables exist on the switch; ``rocetune plan`` diffs against the running
config.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rocetune.platforms.spec import Output, RenderSpec
from rocetune.tune.target import DeviceTarget, PortTarget

MAP = "ROCETUNE"
POOLS = ("ingress_lossless_pool", "egress_lossless_pool", "egress_lossy_pool")
DETECTION_MS = (100, 5000)
RESTORATION_MS = (100, 60000)
POLL_MS = (100, 1000)
"""PFC watchdog ranges (sonic-pfcwd.yang / pfcwd CLI; the same as RT206's)."""
LOSSLESS_DYNAMIC_TH = "0"
"""alpha 1 for the lossless PG, as SONiC's Mellanox buffer templates set it."""
SCHED = {"lossless": "rocetune.lossless", "lossy": "rocetune.lossy", "strict": "rocetune.strict"}

# table -> the feature section it is printed in (the order of the full file)
TABLE_SECTION: dict[str, str] = {
    "PORT": "link",
    "DSCP_TO_TC_MAP": "classification",
    "TC_TO_PRIORITY_GROUP_MAP": "classification",
    "TC_TO_QUEUE_MAP": "classification",
    "PORT_QOS_MAP": "classification",
    "MAP_PFC_PRIORITY_TO_QUEUE": "pfc",
    "DEVICE_METADATA": "buffers",
    "CABLE_LENGTH": "buffers",
    "BUFFER_POOL": "buffers",
    "BUFFER_PROFILE": "buffers",
    "BUFFER_PG": "buffers",
    "BUFFER_QUEUE": "buffers",
    "SCHEDULER": "scheduling",
    "QUEUE": "scheduling",
    "WRED_PROFILE": "ecn",
    "PFC_WD": "watchdog",
}
SECTIONS = ("link", "classification", "pfc", "buffers", "scheduling", "ecn", "watchdog")


@dataclass
class Entry:
    """One CONFIG_DB entry, the features that need it, and how it is patched."""

    table: str
    key: str
    fields: dict[str, str]
    features: frozenset[str]
    per_field: bool = False
    """Patch field by field (shared entries) instead of adding the whole entry."""
    patch: bool = True
    """False for entries copied from the device (pools): never patched."""


def _ints(values: tuple[int, ...] | list[int]) -> str:
    return ",".join(str(v) for v in values)


def _map_entries(t: DeviceTarget) -> list[Entry]:
    c = t.classes
    cls = frozenset({"classification"})
    as_str = {str(k): str(v) for k, v in sorted(c.dscp_to_priority.items())}
    return [
        Entry("DSCP_TO_TC_MAP", MAP, as_str, cls),
        Entry("TC_TO_PRIORITY_GROUP_MAP", MAP, _str_map(c.tc_to_pg), cls),
        Entry("TC_TO_QUEUE_MAP", MAP, _str_map(c.tc_to_queue), cls),
        Entry("MAP_PFC_PRIORITY_TO_QUEUE", MAP, _str_map(c.tc_to_queue), frozenset({"pfc"})),
    ]


def _str_map(table: dict[int, int]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(table.items())}


def pg_profile_name(port: PortTarget) -> str:
    """``pg_lossless_400000_30m_profile``."""
    return f"pg_lossless_{port.speed_mbps}_{port.cable_m:g}m_profile"


def wred_name(speed_mbps: int) -> str:
    """``ROCETUNE_ECN_400000``."""
    return f"ROCETUNE_ECN_{speed_mbps}"


def _port_entries(t: DeviceTarget, port: PortTarget) -> list[Entry]:
    c, p = t.classes, port.name
    lossless = _ints(c.lossless)
    qos = {
        "dscp_to_tc_map": MAP,
        "tc_to_pg_map": MAP,
        "tc_to_queue_map": MAP,
        "pfc_to_queue_map": MAP,
        "pfc_enable": lossless,
        "pfcwd_sw_enable": lossless,
    }
    used_queues = sorted(c.schedulers)
    out = [
        Entry(
            "PORT",
            p,
            {"mtu": str(port.mtu), "speed": str(port.speed_mbps)},
            frozenset({"link"}),
            per_field=True,
        ),
        Entry("PORT_QOS_MAP", p, qos, frozenset({"classification", "pfc", "watchdog"})),
        Entry(
            "CABLE_LENGTH",
            "AZURE",
            {p: f"{port.cable_m:g}m"},
            frozenset({"buffers"}),
            per_field=True,
        ),
        Entry("PFC_WD", p, _watchdog_fields(t), frozenset({"watchdog"})),
    ]
    for pg in sorted(set(c.tc_to_pg.values())):
        profile = pg_profile_name(port) if pg in c.lossless else "ingress_lossy_profile"
        out.append(Entry("BUFFER_PG", f"{p}|{pg}", {"profile": profile}, frozenset({"buffers"})))
    for q in used_queues:
        profile = "egress_lossless_profile" if q in c.lossless else "egress_lossy_profile"
        out.append(Entry("BUFFER_QUEUE", f"{p}|{q}", {"profile": profile}, frozenset({"buffers"})))
        out.append(_queue_entry(t, port, q))
    return out


def _queue_entry(t: DeviceTarget, port: PortTarget, queue: int) -> Entry:
    sched = t.classes.schedulers[queue]
    if sched.kind == "strict":
        fields = {"scheduler": SCHED["strict"]}
    elif queue in t.classes.lossless:
        fields = {"scheduler": SCHED["lossless"], "wred_profile": wred_name(port.speed_mbps)}
    else:
        fields = {"scheduler": SCHED["lossy"]}
    features = {"scheduling"} | ({"ecn"} if "wred_profile" in fields else set())
    return Entry("QUEUE", f"{port.name}|{queue}", fields, frozenset(features))


def _watchdog_fields(t: DeviceTarget) -> dict[str, str]:
    wd = t.watchdog
    return {
        "action": wd.action,
        "detection_time": f"{wd.detection_ms:g}",
        "restoration_time": f"{wd.restoration_ms:g}",
    }


def _profiles(t: DeviceTarget) -> list[Entry]:
    buf = frozenset({"buffers"})
    out = [
        Entry(
            "DEVICE_METADATA",
            "localhost",
            {"hostname": t.hostname or t.name},
            buf,
            per_field=True,
            patch=False,
        ),
        Entry("DEVICE_METADATA", "localhost", {"buffer_model": "traditional"}, buf, per_field=True),
        Entry(
            "BUFFER_PROFILE",
            "ingress_lossy_profile",
            {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
            buf,
        ),
        Entry(
            "BUFFER_PROFILE",
            "egress_lossless_profile",
            {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"},
            buf,
        ),
        Entry(
            "BUFFER_PROFILE",
            "egress_lossy_profile",
            {"pool": "egress_lossy_pool", "size": str(_max_mtu(t)), "dynamic_th": "7"},
            buf,
        ),
        Entry(
            "PFC_WD",
            "GLOBAL",
            {"POLL_INTERVAL": f"{t.watchdog.poll_ms:g}"},
            frozenset({"watchdog"}),
            per_field=True,
        ),
    ]
    for name, pool in sorted((t.buffer_pools or {}).items()):
        if name in POOLS:
            fields: dict[str, str] = {"type": pool.direction or "", "mode": pool.mode or "dynamic"}
            if pool.size_bytes is not None:
                fields["size"] = str(pool.size_bytes)
            out.append(Entry("BUFFER_POOL", name, fields, buf, patch=False))
    seen: set[str] = set()
    for port in t.ports.values():
        hr, name = port.headroom, pg_profile_name(port)
        if name not in seen:
            seen.add(name)
            profile: dict[str, str] = {
                "pool": "ingress_lossless_pool",
                "xoff": str(hr.xoff),
                "xon": str(hr.xon),
                "size": str(hr.size),
                "dynamic_th": LOSSLESS_DYNAMIC_TH,
            }
            out.append(Entry("BUFFER_PROFILE", name, profile, buf))
    return out


def _max_mtu(t: DeviceTarget) -> int:
    return max((p.mtu for p in t.ports.values()), default=9216)


def _schedulers_and_wred(t: DeviceTarget) -> list[Entry]:
    out: list[Entry] = []
    scheds = t.classes.schedulers
    weights = {
        "lossless": next(s.weight_pct for q, s in scheds.items() if q in t.classes.lossless),
        "lossy": scheds[0].weight_pct,
    }
    sched = frozenset({"scheduling"})
    for kind in ("lossless", "lossy"):
        out.append(
            Entry("SCHEDULER", SCHED[kind], {"type": "DWRR", "weight": str(weights[kind])}, sched)
        )
    out.append(Entry("SCHEDULER", SCHED["strict"], {"type": "STRICT"}, sched))
    for speed in sorted({p.speed_mbps for p in t.ports.values()}):
        ecn = next(p.ecn for p in t.ports.values() if p.speed_mbps == speed)
        fields = {"ecn": "ecn_all"}
        for colour in ("green", "yellow", "red"):
            fields[f"wred_{colour}_enable"] = "true"
            fields[f"{colour}_min_threshold"] = str(ecn.kmin_bytes)
            fields[f"{colour}_max_threshold"] = str(ecn.kmax_bytes)
            fields[f"{colour}_drop_probability"] = str(ecn.probability_pct)
        out.append(Entry("WRED_PROFILE", wred_name(speed), fields, frozenset({"ecn"})))
    return out


def entries(t: DeviceTarget) -> list[Entry]:
    """Every entry of the device, in section order."""
    out = [*_map_entries(t), *_profiles(t), *_schedulers_and_wred(t)]
    for port in t.ports.values():
        out.extend(_port_entries(t, port))
    order = {name: i for i, name in enumerate(SECTIONS)}
    tables = list(TABLE_SECTION)
    return sorted(out, key=lambda e: (order[TABLE_SECTION[e.table]], tables.index(e.table)))


def _pointer(*parts: str) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def _tables(chosen: list[Entry]) -> dict[str, dict[str, dict[str, str]]]:
    tables: dict[str, dict[str, dict[str, str]]] = {}
    for e in chosen:
        tables.setdefault(e.table, {}).setdefault(e.key, {}).update(e.fields)
    return tables


def _sections(tables: dict[str, dict[str, dict[str, str]]]) -> list[dict[str, Any]]:
    """[{feature, tables: [{name, entries, comma}]}]: JSON commas decided here, not in Jinja."""
    out: list[dict[str, Any]] = []
    names = [n for n in TABLE_SECTION if n in tables]
    for section in SECTIONS:
        rows = [
            {"name": n, "entries": tables[n], "comma": n != names[-1]}
            for n in names
            if TABLE_SECTION[n] == section
        ]
        if rows:
            out.append({"feature": section, "tables": rows})
    return out


def _ops(chosen: list[Entry]) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    merged: dict[tuple[str, str], dict[str, str]] = {}
    for e in chosen:
        if e.patch and not e.per_field:
            merged.setdefault((e.table, e.key), {}).update(e.fields)
    done: set[tuple[str, str]] = set()
    for e in chosen:
        if not e.patch:
            continue
        if e.per_field:
            ops.extend(
                {"op": "add", "path": _pointer(e.table, e.key, f), "value": v}
                for f, v in e.fields.items()
            )
        elif (e.table, e.key) not in done:
            done.add((e.table, e.key))
            value = merged[(e.table, e.key)]
            ops.append({"op": "add", "path": _pointer(e.table, e.key), "value": value})
    return [{**op, "comma": i < len(ops) - 1} for i, op in enumerate(ops)]


def build_context(t: DeviceTarget, features: frozenset[str], full: bool) -> dict[str, Any]:
    """The context of ``config_db.json.j2`` and ``apply_patch.json.j2``."""
    every = entries(t)
    chosen = [e for e in every if e.features & features]
    return {
        "device": t.name,
        "sections": _sections(_tables(every if full else chosen)),
        "ops": _ops(chosen),
    }


def capability_problems(t: DeviceTarget) -> list[str]:
    """Why SONiC (traditional buffer model) cannot express ``t``; empty when it can."""
    problems: list[str] = []
    wd = t.watchdog
    for what, value, (low, high) in (
        ("detection time", wd.detection_ms, DETECTION_MS),
        ("restoration time", wd.restoration_ms, RESTORATION_MS),
        ("poll interval", wd.poll_ms, POLL_MS),
    ):
        if not low <= value <= high:
            problems.append(f"PFC watchdog {what} {value:g} ms is outside {low}-{high} ms")
    if wd.action not in ("drop", "forward", "alert"):
        problems.append(f"PFC watchdog action {wd.action!r} is not drop, forward or alert")
    have = set(t.buffer_pools or {})
    missing = [p for p in POOLS if p not in have]
    if missing and t.ports:
        problems.append(
            f"the snapshot has no BUFFER_POOL {', '.join(missing)}: pool sizes are ASIC facts "
            "that rocetune keeps from the device and cannot invent"
        )
    return problems


RENDER = RenderSpec(
    platform="sonic",
    outputs=(
        Output("sonic/config_db.json.j2", "{device}.config_db.json", full_only=True, lintable=True),
        Output("sonic/apply_patch.json.j2", "apply/{device}.apply-patch.json"),
    ),
    max_lossless_priorities=2,
    capability=capability_problems,
    build=build_context,
)
"""SONiC keeps at most two lossless PGs per port in its buffer templates (PG 3-4)."""
