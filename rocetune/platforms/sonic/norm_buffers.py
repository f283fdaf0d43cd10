"""Step 2 (buffers): BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG and BUFFER_QUEUE.

Decisions:

* Sizes and thresholds are bytes in CONFIG_DB and stay bytes. ``dynamic_th`` is the
  exponent n of alpha = 2^n; ``static_th`` is a byte limit.
* ``BUFFER_PROFILE`` fields ``headroom_type`` (static/dynamic: who generated the profile)
  and ``packet_discard_action`` (drop/trim, lossy queues only) are understood and do not
  change the model. ``mode`` (static/dynamic, older CONFIG_DBs such as sonic-utilities'
  3.0.1 dbmigrator input) names the shared-threshold mode, which SONiC takes from the
  threshold field the profile sets (``dynamic_th`` or ``static_th``): it is read and
  reported only when it contradicts that field or is not one of the two words. Any other
  unknown field is reported.
* ``BUFFER_PG``/``BUFFER_QUEUE`` keys are ``<ports>|<index or range>``; the profile
  ``NULL`` (dynamic buffer model: buffermgrd computes the headroom) is kept as ``"NULL"``.
  Overlapping keys are reported.
"""

from __future__ import annotations

from rocetune.platforms.sonic.shape import BindingCfg, PoolCfg, ProfileCfg, SonicConfig
from rocetune.platforms.sonic.tables import Entry, RawDb
from rocetune.platforms.sonic.values import (
    Problems,
    port_index_key,
    read_choice,
    read_float,
    read_int,
    read_ref,
)

_DIRECTIONS = {"ingress": "ingress", "egress": "egress", "both": "both"}
"""``both``: one pool for ingress and egress accounting (valid in SONiC's YANG model)."""
_MODES = {"static": "static", "dynamic": "dynamic"}
_POOL_FIELDS = frozenset({"type", "mode", "size", "xoff", "percentage"})
_PROFILE_FIELDS = frozenset(
    {"pool", "size", "xon", "xoff", "xon_offset", "dynamic_th", "static_th"}
)
_PROFILE_IGNORED = frozenset({"headroom_type", "packet_discard_action"})
_DYNAMIC_TH_RANGE = 20


def normalise_buffers(db: RawDb, cfg: SonicConfig, pr: Problems) -> None:
    """Fill pools, profiles and PG/queue bindings of ``cfg``."""
    for key, entry in db.table("BUFFER_POOL").items():
        cfg.pools[key] = _pool(entry, pr)
    for key, entry in db.table("BUFFER_PROFILE").items():
        cfg.profiles[key] = _profile(entry, pr)
    for entry in db.table("BUFFER_PG").values():
        _binding(entry, cfg.pg_bindings, cfg, pr)
    for entry in db.table("BUFFER_QUEUE").values():
        _binding(entry, cfg.queue_bindings, cfg, pr)


def _pool(entry: Entry, pr: Problems) -> PoolCfg:
    pool = PoolCfg(name=entry.key, line=entry.line)
    pool.direction = read_choice(entry, "type", pr, _DIRECTIONS)
    pool.mode = read_choice(entry, "mode", pr, _MODES)
    pool.size = read_int(entry, "size", pr, lo=0)
    pool.xoff = read_int(entry, "xoff", pr, lo=0)
    pool.percentage = read_float(entry, "percentage", pr)
    for name in entry.fields:
        if name not in _POOL_FIELDS:
            pr.unknown_field(entry, name)
    return pool


def _profile(entry: Entry, pr: Problems) -> ProfileCfg:
    prof = ProfileCfg(name=entry.key, line=entry.line)
    prof.pool = read_ref(entry, "pool", "BUFFER_POOL", pr)
    prof.size = read_int(entry, "size", pr, lo=0)
    prof.xon = read_int(entry, "xon", pr, lo=0)
    prof.xoff = read_int(entry, "xoff", pr, lo=0)
    prof.xon_offset = read_int(entry, "xon_offset", pr, lo=0)
    prof.dynamic_th = read_int(entry, "dynamic_th", pr, lo=-_DYNAMIC_TH_RANGE, hi=_DYNAMIC_TH_RANGE)
    prof.static_th = read_int(entry, "static_th", pr, lo=0)
    _threshold_mode(entry, prof, pr)
    for name in entry.fields:
        if name not in _PROFILE_FIELDS and name not in _PROFILE_IGNORED and name != "mode":
            pr.unknown_field(entry, name)
    return prof


def _threshold_mode(entry: Entry, prof: ProfileCfg, pr: Problems) -> None:
    """``mode``: must name the threshold field the profile sets (dynamic_th / static_th)."""
    mode = read_choice(entry, "mode", pr, _MODES)
    if mode is None or mode.value is None:
        return
    has = {"dynamic": prof.dynamic_th is not None, "static": prof.static_th is not None}
    if has[mode.value] or not any(has.values()):
        return
    other = "static_th" if mode.value == "dynamic" else "dynamic_th"
    pr.add(
        f"{entry.item} mode",
        f"mode {mode.value} contradicts the profile's {other} (the threshold field decides)",
        mode.line,
    )


def _binding(
    entry: Entry, into: dict[str, dict[int, BindingCfg]], cfg: SonicConfig, pr: Problems
) -> None:
    where = port_index_key(entry.key)
    if where is None:
        pr.add(entry.item, "expected a key <ports>|<index or range>", entry.line)
        return
    profile = read_ref(entry, "profile", "BUFFER_PROFILE", pr)
    if profile is None:
        pr.add(entry.item, "no profile field", entry.line)
    if profile is None or len(entry.fields) > 1:  # (only a profile, as a rule: no loop)
        for name in entry.fields:
            if name != "profile":
                pr.unknown_field(entry, name)
    ports, indexes = where
    line = entry.line
    for port in ports:
        cfg.note_port(port, entry.table, line)
        per_port = into.setdefault(port, {})
        for i in indexes:
            if i in per_port:
                pr.add(entry.item, f"index {i} of {port} is also set by another key", line)
            per_port[i] = BindingCfg(line, profile)
