"""Step 3 (ports configured alike): build each kind of port once, then only its lines.

The ports of a switch are nearly all configured alike: the same PORT_QOS_MAP fields, the
same QUEUE, BUFFER_PG and BUFFER_QUEUE bindings and PFC_WD timers, written on other lines.
:func:`~.build_port.port_values` reads a port's own data only from the tables of
:mod:`.shape` keyed by its name (its *own data*, :func:`own_data`); everything else it reads
(maps, profiles, schedulers, DEVICE_METADATA) is the device's. So two ports whose own data
hold the same values, lines aside, get the same values but their name, alias and lane
count, and record the same provenance leaves, each line read from the entry or field at
the same place of their own data.

:class:`PortMemo` builds the first port of each kind with ``port_values`` while the
:class:`~.resolve.Ctx` traces what each leaf's line was read from, and every later port of
that kind from that template: the template's values with its own name, alias and lanes;
each leaf's line from its own entry or field at the traced place (or the device's line);
the same map tables. What it records and returns is what ``port_values`` would: the
values are made of the same objects (the builder's memo hands equal values out as one
object), the provenance calls are the same, and the unparsed items a later port would
report (a reference to a map that is not there) repeat its template's, which the
collector keeps once, with the first line. A port whose own data has an entry or field
without a line, or the same object twice, is always built by ``port_values``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Any

from rocetune.model import Port
from rocetune.model.provenance import SourceRef
from rocetune.platforms.common.construct import construct
from rocetune.platforms.sonic.build_port import WatchdogDefault, port_values
from rocetune.platforms.sonic.resolve import Ctx, Lined
from rocetune.platforms.sonic.shape import SonicConfig
from rocetune.platforms.sonic.values import At

PORT_FIELDS = ("speed", "mtu", "admin_up", "pfc_asym", "fec")
"""PortCfg fields a port's kind holds (their values; their lines are the port's)."""
PORT_OWN = ("alias", "lanes")
"""PortCfg fields that are values of the port alone (read again for each port)."""
WATCHDOG_FIELDS = ("action", "detection", "restoration")
"""WatchdogCfg fields a port's kind holds (tests/platforms/sonic/test_alike.py checks these
lists against :mod:`.shape`)."""

_NONE: dict[int, Any] = {}
_ABSENT = object()
"""A field that is not in the entry (apart from one that is, unread: ``At(None)``)."""
_LINE = attrgetter("line")
_port_fields = attrgetter(*PORT_FIELDS)
_watchdog_fields = attrgetter(*WATCHDOG_FIELDS)
_OWN_DEVICE = -1
"""A leaf read from the device (a table's line, DEVICE_METADATA): the template's line."""


def own_data(cfg: SonicConfig, name: str) -> tuple[Hashable, list[Lined | None]] | None:
    """(kind, sources) of a port: the values of its own data, lines aside, and the entries
    and fields they were read from, in an order the kind fixes (None where a kind has
    none); None when an entry or field has no line (the port is then built on its own).

    A field that is not in its entry is :data:`_ABSENT` in the kind, one that is but could
    not be read is None (the second records a line, the first does not). That choice is
    spelled out inline for each field (``_ABSENT if f is None else f.value``): a function
    call per field of every port, ~20 a port, was a tenth of this function's time."""
    src: list[Lined | None] = []
    port = cfg.ports.get(name)
    port_kind: tuple[Any, ...] | None = None
    if port is None:
        if cfg.port_refs.get(name, ("", None))[1] is None:
            return None
    else:
        fields: tuple[At[Any] | None, ...] = _port_fields(port)
        port_kind = tuple([_ABSENT if f is None else f.value for f in fields])
        src.append(port)
        src += fields
    qos = cfg.port_qos.get(name)
    qos_kind: tuple[Any, ...] | None = None
    if qos is not None:
        maps, pfc, wd_pfc = qos.maps, qos.pfc_enable, qos.pfcwd_sw_enable
        qos_kind = (
            tuple([(f, ref.value) for f, ref in maps.items()]),
            _ABSENT if pfc is None else pfc.value,
            _ABSENT if wd_pfc is None else wd_pfc.value,
        )
        src.append(qos)
        src += maps.values()
        src += (pfc, wd_pfc)
    queues = cfg.queues.get(name, _NONE)
    pgs = cfg.pg_bindings.get(name, _NONE)
    qbs = cfg.queue_bindings.get(name, _NONE)
    src += queues.values()
    src += pgs.values()
    src += qbs.values()
    wd = cfg.watchdogs.get(name)
    wd_kind: tuple[Any, ...] | None = None
    if wd is not None:
        wd_fields: tuple[At[Any] | None, ...] = _watchdog_fields(wd)
        wd_kind = tuple([_ABSENT if f is None else f.value for f in wd_fields])
        src.append(wd)
    cable = cfg.cable.get(name)
    src.append(cable)
    if None in map(_LINE, filter(None, src)):
        return None
    kind = (
        port_kind,
        qos_kind,
        tuple(
            [
                (
                    q,
                    _ABSENT if c.scheduler is None else c.scheduler.value,
                    _ABSENT if c.wred_profile is None else c.wred_profile.value,
                )
                for q, c in queues.items()
            ]
        ),
        tuple([(i, _ABSENT if b.profile is None else b.profile.value) for i, b in pgs.items()]),
        tuple([(i, _ABSENT if b.profile is None else b.profile.value) for i, b in qbs.items()]),
        wd_kind,
        _ABSENT if cable is None else cable.value,
    )
    return kind, src


@dataclass(frozen=True)
class _Template:
    """A port built with ``port_values``, as the ports of its kind are built again."""

    values: dict[str, Any]
    leaves: tuple[str, ...]
    pick: Callable[[tuple[Lined | None, ...]], tuple[Lined, ...]]
    """The source of each leaf from the port's own data and then :attr:`device`."""
    device: tuple[At[None], ...]
    """Per leaf read from the device: its line (as a source: ``At(None, line)``)."""
    maps: tuple[tuple[str, dict[str, SourceRef]], ...]
    """The map tables recorded, by path below the port (``dscp_to_priority``)."""


class PortMemo:
    """Builds the ports of one namespace, each kind of port once (see the module)."""

    def __init__(self, ctx: Ctx, default: WatchdogDefault) -> None:
        self.ctx = ctx
        self.default = default
        self._templates: dict[Hashable, _Template | None] = {}
        """Kind -> its template; None: the ports of that kind are built on their own."""

    def port(self, name: str) -> Port:
        """The model Port ``name`` (its provenance recorded)."""
        own = own_data(self.ctx.cfg, name)
        if own is None:
            return construct(Port, port_values(self.ctx, name, self.default))
        kind, src = own
        try:
            template = self._templates.get(kind, _ABSENT)
        except TypeError:  # a value that cannot be a key
            return construct(Port, port_values(self.ctx, name, self.default))
        if template is _ABSENT:
            values = self._traced(name, kind, src)
        elif template is None:
            values = port_values(self.ctx, name, self.default)
        else:
            assert isinstance(template, _Template)
            values = self._again(template, name, src)
        return construct(Port, values)

    def _traced(self, name: str, kind: Hashable, src: list[Lined | None]) -> dict[str, Any]:
        """``port_values`` of the first port of a kind, kept as the kind's template."""
        ctx = self.ctx
        ctx.trace, ctx.traced_maps, ctx.traced_leaves = [], [], []
        try:
            values = port_values(ctx, name, self.default)
            self._templates[kind] = _template(values, name, src, ctx)
        finally:
            ctx.trace, ctx.traced_maps, ctx.traced_leaves = None, [], []
        return values

    def _again(self, template: _Template, name: str, src: list[Lined | None]) -> dict[str, Any]:
        """What ``port_values`` gives (and records) for a port of ``template``'s kind."""
        ctx, cfg = self.ctx, self.ctx.cfg
        port = cfg.ports.get(name)
        parent = f"ports.{name}"
        ctx.port_ref(name, port.line if port else cfg.port_refs.get(name, ("", None))[1])
        prov = ctx.prov
        for path, table in template.maps:
            prov.add_map(f"{parent}.{path}", table)
        if template.leaves:
            lines = list(map(_LINE, template.pick((*src, *template.device))))
            prov.add_leaves(parent + ".", ctx.file, template.leaves, lines)
        values = template.values.copy()
        values["name"] = name
        if port is not None:
            values["alias"] = port.alias.value if port.alias else None
            values["lanes"] = port.lanes.value if port.lanes else None
        return values


def _template(
    values: dict[str, Any], name: str, src: list[Lined | None], ctx: Ctx
) -> _Template | None:
    """The template of a traced port; None when a leaf's source cannot be placed."""
    held = [s for s in src if s is not None]
    index = {id(s): i for i, s in enumerate(src) if s is not None}
    trace, leaves = ctx.trace, ctx.traced_leaves
    if trace is None or len(index) != len(held) or len(trace) != len(leaves):
        return None  # the same object twice: which one a leaf was read from is not known
    places: list[int] = []
    device: list[At[None]] = []
    for (_, line), source in zip(leaves, trace, strict=True):
        place = _OWN_DEVICE if source is None else index.get(id(source), _OWN_DEVICE)
        if place == _OWN_DEVICE:
            place = len(src) + len(device)
            device.append(At(None, line))
        places.append(place)
    prefix = f"ports.{name}."
    maps = tuple((path.removeprefix(prefix), table) for path, table in ctx.traced_maps)
    if not all(path.startswith(prefix) for path, _ in ctx.traced_maps):
        return None
    pick = itemgetter(*places) if len(places) > 1 else lambda got: tuple(got[i] for i in places)
    return _Template(
        values=values,
        leaves=tuple(leaf for leaf, _ in leaves),
        pick=pick,
        device=tuple(device),
        maps=maps,
    )
