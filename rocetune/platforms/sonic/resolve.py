"""Step 3 helpers: resolve SONiC references and convert referenced objects to the model.

Decisions:

* A reference to a name that is not defined is reported once per ``TABLE|name`` (with the
  line of its first use), whether the table is missing from the file (a fragment) or has
  no such entry (a dangling reference). A QoS map that cannot be resolved leaves the port
  field None (unknown); a profile/scheduler that cannot be resolved becomes an object that
  carries only its name (its values unknown).
* WRED -> EcnProfile: ``ecn`` in ecn_green, ecn_green_yellow, ecn_green_red, ecn_all marks
  green traffic (``ecn_mark=True``); a missing ``ecn`` field is ``ecn_none`` (the SAI
  default). When green is marked, SAI marks ECN-capable packets instead of dropping them
  and WRED drop only applies to non-ECT packets, which RoCE v2 never sends, so
  ``red_drop=False``; otherwise ``red_drop`` is ``wred_green_enable`` (absent = false, the
  SAI default). Thresholds (bytes) and probability (%) are the green ones.
* SCHEDULER -> Scheduler: ``type`` STRICT/DWRR/WRR -> strict/dwrr/wrr; ``weight`` is a
  relative weight, not a percentage (``weight_is_percent=False``).
* BUFFER_PROFILE -> BufferProfile: bytes as they are, ``alpha = 2 ** dynamic_th``. The
  profile ``NULL`` of the dynamic buffer model -> ``BufferProfile(computed_at_runtime=True)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from rocetune.model import BufferProfile, EcnProfile, Scheduler
from rocetune.model.device import SchedulerKind
from rocetune.platforms.base import Provenance, SourceRef
from rocetune.platforms.common.construct import Same
from rocetune.platforms.sonic.norm_qos import MAP_TABLES
from rocetune.platforms.sonic.shape import SonicConfig
from rocetune.platforms.sonic.values import At, Problems

_KINDS: dict[str, SchedulerKind] = {"strict": "strict", "dwrr": "dwrr", "wrr": "wrr"}
_MARKS_GREEN = frozenset({"ecn_green", "ecn_green_yellow", "ecn_green_red", "ecn_all"})


class Lined(Protocol):
    """What a port's field was read from: anything with the line it was written on (an
    :class:`~.values.At`, a ``*Cfg`` of :mod:`.shape`)."""

    @property
    def line(self) -> int | None:
        """The line (None: not known)."""
        ...


@dataclass(frozen=True)
class Bound:
    """A PORT_QOS_MAP map binding as seen by one port."""

    bound: bool
    values: dict[int, int] | None = None
    """The map contents; None when bound to a map that cannot be read."""
    src: Lined | None = None
    """What the binding was read from (its line is the binding's)."""
    lines: dict[int, int | None] = field(default_factory=dict)


def value_of(item: At[int | None] | At[float | None] | None) -> float | None:
    """The number of a tri-state field as a float (None when absent or invalid)."""
    if item is None or item.value is None:
        return None
    return float(item.value)


def int_of(item: At[int | None] | None) -> int | None:
    """The number of a tri-state integer field."""
    return None if item is None else item.value


@dataclass
class Ctx:
    """Shared state of one model build: config, problems, provenance, caches."""

    cfg: SonicConfig
    pr: Problems
    prov: Provenance
    file: str
    pool_prefix: str = ""
    """Prefix of pool names (``asic0:``) when a multi-ASIC output is merged."""
    _ecn: dict[str, EcnProfile] = field(default_factory=dict)
    _sched: dict[str, Scheduler] = field(default_factory=dict)
    _buf: dict[str, BufferProfile] = field(default_factory=dict)
    _tables: dict[int, dict[str, SourceRef]] = field(default_factory=dict)
    _keep: list[object] = field(default_factory=list)
    _leaves: list[tuple[str, int | None]] = field(default_factory=list)
    trace: list[Lined | None] | None = None
    """While a port is traced (:mod:`.alike`): what each kept leaf's line was read from
    (None: a line of the device, :meth:`leaf_at`), in the order of the leaves."""
    traced_maps: list[tuple[str, dict[str, SourceRef]]] = field(default_factory=list)
    """While a port is traced: the map tables :meth:`ref_map` recorded, by path."""
    traced_leaves: list[tuple[str, int | None]] = field(default_factory=list)
    """The leaves :meth:`port_done` recorded last (while a port is traced)."""
    same: Same = field(default_factory=Same)
    """One object per distinct value handed to ports (built with
    :func:`~rocetune.platforms.common.construct.construct`: the run's sharer finds them by
    identity)."""

    def ref(self, path: str, line: int | None) -> None:
        """Record the line of a model path (first record wins)."""
        if line is not None:
            self.prov.add(path, self.file, line)

    def port_ref(self, name: str, line: int | None) -> None:
        """:meth:`ref` of the port ``name`` itself (``ports.<name>``): its provenance node is
        keyed by ``name``, the model's own string (no path of each port made and split
        again, no string per port held: :meth:`Provenance.add_member`)."""
        if line is not None:
            self.prov.add_member("ports.", name, self.file, line)

    def leaf(self, leaf: str, src: Lined | None) -> None:
        """Record the line of a field of the port being built (``ports.NAME.`` + ``leaf``),
        read from ``src`` (the port's own entry or field, or one of the device): kept until
        :meth:`port_done` records them all at once (first record wins)."""
        if src is not None:
            line = src.line
            if line is not None:
                self._leaves.append((leaf, line))
                if self.trace is not None:
                    self.trace.append(src)

    def leaf_at(self, leaf: str, line: int | None) -> None:
        """:meth:`leaf` for a line of the device (a table's, DEVICE_METADATA's): the same
        line whichever port is built."""
        if line is not None:
            self._leaves.append((leaf, line))
            if self.trace is not None:
                self.trace.append(None)

    def port_done(self, name: str) -> None:
        """Record the lines of the port's fields :meth:`leaf` kept, in their order."""
        if self._leaves:
            self.prov.add_many(f"ports.{name}.", self.file, self._leaves)
            if self.trace is not None:
                self.traced_leaves = self._leaves
            self._leaves = []

    def ref_map(self, path: str, lines: dict[int, int | None]) -> None:
        """Record the lines of a bound map's entries: one table per map, shared by ports."""
        table = self._tables.get(id(lines))
        if table is None:
            table = self._tables[id(lines)] = self.prov.table(self.file, lines)
            self._keep.append(lines)  # keeps id(lines) unique while the table is cached
        self.prov.add_map(path, table)
        if self.trace is not None:
            self.traced_maps.append((path, table))

    def missing(self, table: str, name: str, line: int | None) -> None:
        """Report a reference to an entry that is not in the file."""
        why = (
            f"{table} has no entry {name!r}"
            if table in self.cfg.present
            else f"referenced, but {table} is not in this file"
        )
        self.pr.add(f"{table}|{name}", why, line)

    def qos_map(self, port: str, field_name: str) -> Bound:
        """Resolve a PORT_QOS_MAP map field for a port (global dscp_to_tc_map as fallback)."""
        qos = self.cfg.port_qos.get(port)
        ref = qos.maps.get(field_name) if qos is not None else None
        if ref is None and field_name == "dscp_to_tc_map":
            ref = self.cfg.global_dscp
        if ref is None:
            return Bound(False, src=qos)
        if ref.value is None:
            return Bound(True, src=ref)
        table = MAP_TABLES[field_name]
        found = self.cfg.maps.get(table, {}).get(ref.value)
        if found is None:
            self.missing(table, ref.value, ref.line)
            return Bound(True, src=ref)
        return Bound(True, found.values, ref, found.lines)  # read only: the Port copies it

    def ecn_profile(self, ref: At[str | None]) -> EcnProfile:
        """The EcnProfile a QUEUE wred_profile names."""
        if ref.value is None:
            return EcnProfile()
        name = ref.value
        if name not in self._ecn:
            wred = self.cfg.wred.get(name)
            if wred is None:
                self.missing("WRED_PROFILE", name, ref.line)
                self._ecn[name] = EcnProfile(name=name)
            else:
                mode = "ecn_none" if wred.ecn is None else wred.ecn.value
                mark = None if mode is None else mode in _MARKS_GREEN
                drop_on = False if wred.green_enable is None else wred.green_enable.value
                self._ecn[name] = EcnProfile(
                    name=name,
                    ecn_mark=mark,
                    red_drop=None if mark is None else (False if mark else drop_on),
                    min_threshold_bytes=int_of(wred.green_min),
                    max_threshold_bytes=int_of(wred.green_max),
                    max_probability_pct=value_of(wred.green_probability),
                )
        return self._ecn[name]

    def scheduler(self, ref: At[str | None]) -> Scheduler:
        """The Scheduler a QUEUE scheduler names."""
        if ref.value is None:
            return Scheduler(weight_is_percent=False)
        name = ref.value
        if name not in self._sched:
            cfg = self.cfg.schedulers.get(name)
            if cfg is None:
                self.missing("SCHEDULER", name, ref.line)
                self._sched[name] = Scheduler(name=name, weight_is_percent=False)
            else:
                kind = None if cfg.kind is None or cfg.kind.value is None else cfg.kind.value
                self._sched[name] = Scheduler(
                    name=name,
                    kind=_KINDS.get(kind) if kind is not None else None,
                    weight=value_of(cfg.weight),
                    weight_is_percent=False,
                )
        return self._sched[name]

    def buffer_profile(self, ref: At[str | None] | None) -> BufferProfile:
        """The BufferProfile a BUFFER_PG/BUFFER_QUEUE entry names."""
        if ref is None or ref.value is None:
            return BufferProfile()
        name = ref.value
        if name == "NULL":
            return BufferProfile(computed_at_runtime=True)
        if name not in self._buf:
            prof = self.cfg.profiles.get(name)
            if prof is None:
                self.missing("BUFFER_PROFILE", name, ref.line)
                self._buf[name] = BufferProfile(name=name)
            else:
                th = int_of(prof.dynamic_th)
                self._buf[name] = BufferProfile(
                    name=name,
                    pool=_prefixed(self.pool_prefix, prof.pool),
                    size_bytes=int_of(prof.size),
                    xon_bytes=int_of(prof.xon),
                    xoff_bytes=int_of(prof.xoff),
                    xon_offset_bytes=int_of(prof.xon_offset),
                    dynamic_th=th,
                    alpha=None if th is None else 2.0**th,
                    static_th_bytes=int_of(prof.static_th),
                )
        return self._buf[name]


def _prefixed(prefix: str, ref: At[str | None] | None) -> str | None:
    if ref is None or ref.value is None:
        return None
    return prefix + ref.value
