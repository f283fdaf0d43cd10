"""Rule API: metadata, options, the context rules run in, and what they yield.

Rules see only model objects (never rocetune.platforms). A rule yields :class:`Issue` for
a finding and :class:`Missing` when it lacks data; the engine turns ``Missing`` into one
RT000 finding per device and rule.

Unread is not absent: every rule declares in :attr:`RuleMeta.features` the facts its verdict
depends on, and whether its findings assert absence (no PFC, no ECN, the port default, the
default MTU) rather than a value that was read and is wrong. When an absence finding lands on
a port (or device) where an :class:`~rocetune.model.Unparsed` item touches one of those
features, the engine reports RT000 "could not verify" instead (see rocetune.engine).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal, TypeVar, cast

from rocetune.checks.memo import base_of, is_base, per_device
from rocetune.checks.scope import RoceScope, roce_scope
from rocetune.model import (
    Device,
    Fabric,
    Feature,
    Intent,
    Link,
    LinkEnd,
    Model,
    NicPort,
    Port,
    Severity,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

_T = TypeVar("_T")
_R = TypeVar("_R")
_QUIET = object()
"""Marks the keys of :meth:`CheckContext.quiet` in the run's memo (apart from ``memo``'s)."""
Scope = Literal["port", "device", "link", "fabric", "counters", "verify"]


@dataclass(frozen=True)
class RuleMeta:
    """A rule's identity: code, kebab name, default severity, scope, one-line summary."""

    code: str
    name: str
    severity: Severity
    scope: Scope
    summary: str
    tags: tuple[str, ...] = ()
    since: str = "0.1.0"
    features: tuple[Feature, ...] = ()
    """The facts this rule's verdicts depend on (``Unparsed.features`` vocabulary)."""
    asserts_absence: bool = False
    """True when the rule's findings say something is missing or left at its default (no
    PFC, no ECN profile, port-default trust, default MTU): such a finding is downgraded to
    RT000 "could not verify" where an unparsed item touches one of :attr:`features`.
    False for rules that judge values read (a profile with Kmin > Kmax, an extra PFC
    priority). An :class:`Issue` may override it per finding."""


class RuleOptions(Model):
    """Base for each rule's typed options (unknown keys are rejected)."""


@dataclass(frozen=True)
class Issue:
    """A finding as a rule reports it; the engine adds code, name and severity."""

    message: str
    device: str | None = None
    port: str | None = None
    link: str | None = None
    observed: object = None
    expected: object = None
    path: str | None = None
    severity: Severity | None = None
    """Override of the rule's default severity for this one finding."""
    asserts_absence: bool | None = None
    """Override of :attr:`RuleMeta.asserts_absence` for this one finding (None: the rule's)."""


@dataclass(frozen=True)
class Missing:
    """The rule could not run for ``device`` because ``item`` is not in the snapshot."""

    device: str
    item: str
    path: str | None = None


Result = Issue | Missing


@dataclass
class CheckContext:
    """What a rule run sees: the fabric, its intent, and the rule's own options."""

    fabric: Fabric
    options: RuleOptions
    only: frozenset[str] | None = None
    """Check only these devices (port and device rules) and the links with an end on one of
    them (link rules); None = every device. Rules that look at the whole fabric still do.
    ``rocetune plan`` re-checks a changed device and its link neighbours this way: a port,
    device or link rule reads the device it checks and the devices linked to it, nothing
    further, so what the change does to the findings is the same as over the whole fabric."""
    focus: frozenset[str] | None = None
    """Report only on these devices (rules with :attr:`Rule.focused`; others ignore it):
    such a rule still reads the whole fabric but yields only its results on these devices
    and its fabric-level ones (no device), and calls :meth:`sign` with what its verdicts on
    every other device depend on. ``rocetune plan``'s re-check of one replaced device
    (:func:`rocetune.engine.recheck`) runs them so: when the signs of the fabric before and
    after the change are equal, the results on the devices outside ``focus`` are the same."""
    signs: list[object] | None = field(default=None, repr=False)
    """Where :meth:`sign` puts its values (None: nowhere)."""
    _links_by_device: dict[str, list[Link]] = field(default_factory=dict, repr=False)
    _scopes: dict[str, RoceScope] = field(default_factory=dict, repr=False)
    _memo: dict[tuple[object, ...], tuple[tuple[object, ...], object]] = field(
        default_factory=dict, repr=False
    )
    intent: Intent = field(init=False, repr=False)
    """The fabric's intent: a plain attribute set once, not a property (rules read it on
    every port, well over a million times in a 1,000-switch audit; the fabric is frozen)."""

    def __post_init__(self) -> None:
        self.intent = self.fabric.intent
        if not self._links_by_device:
            self._links_by_device = _links_index(self.fabric.links)

    def in_focus(self, device: str | None) -> bool:
        """Whether a result on ``device`` is reported (:attr:`focus`; None: fabric-level)."""
        return device is None or self.focus is None or device in self.focus

    def sign(self, what: tuple[object, ...], state: str, value: object = None) -> None:
        """Record what the verdicts on unfocused devices depend on (:attr:`focus`): for
        ``what`` (one comparison), its ``state`` and ``value``. States the engine knows:
        ``"uniform"`` (``value``: the one value) and ``"tie"`` (no device is reported
        against a reference; a tie's finding is fabric-level), ``"majority"`` (devices
        differing from ``value`` are reported); any other state must simply be equal
        before and after."""
        if self.signs is not None:
            self.signs.append((what, state, value))

    def subjects(self) -> Iterator[Device]:
        """The devices port and device rules check (:attr:`only`)."""
        if self.only is None:
            yield from self.fabric.devices.values()
            return
        yield from _only_devices(self.fabric.devices, self.only)

    def subject_links(self) -> Iterator[Link]:
        """The links link rules check (:attr:`only`), in fabric order."""
        only = self.only
        links = self.fabric.links
        if only is None:
            yield from links
            return
        if len(only) * _FEW_DEVICES < len(links):  # a plan's re-check: through the index
            spots = _link_spots(links)
            at: set[int] = set()
            for name in only:
                at.update(spots.get(name, ()))
            for i in sorted(at):
                yield links[i]
            return
        for link in links:
            if link.a.device in only or link.b.device in only:
                yield link

    def links_of(self, device: str) -> list[Link]:
        """Links with an end on ``device``."""
        return self._links_by_device.get(device, _NO_LINKS)

    def scope(self, device: Device) -> RoceScope:
        """Which ports of ``device`` carry RoCE, and why (see rocetune.checks.scope)."""
        found = self._scopes.get(device.name)
        if found is None:
            links = self.links_of(device.name)
            found = per_device(("scope",), (device, links), lambda: roce_scope(device, links))
            self._scopes[device.name] = found
        return found

    def memo(self, name: Hashable, inputs: tuple[object, ...], compute: Callable[[], _T]) -> _T:
        """``compute()`` once per run for the same ``inputs`` (compared by identity: ports
        hold equal maps as one shared object, :mod:`rocetune.model.share`). ``name`` tells
        the computations apart (compared by value: it may carry small values the result
        depends on besides ``inputs``); the value is shared, so callers must not change it."""
        key = (name, *map(id, inputs))
        hit = self._memo.get(key)
        if hit is not None:
            # The entry holds its inputs: while it exists no other object can have their
            # ids, so the same ids are the same objects (no comparison needed; this runs for
            # every port of several rules).
            return cast(_T, hit[1])
        value = compute()
        self._memo[key] = (inputs, value)  # holding the inputs keeps their ids unique
        return value

    def quiet(
        self, name: Hashable, inputs: tuple[object, ...], results: Callable[[], Iterable[_R]]
    ) -> Iterable[_R]:
        """``results()``, or nothing without calling it when a call with the same ``name``
        and ``inputs`` (compared as in :meth:`memo`) gave nothing in this run.

        For a check of one port whose verdict, whether it yields anything, depends on
        ``inputs`` alone (and on the values in ``name``): the port and its device only
        name what it yields. The ports of a fabric hold a handful of distinct tables and
        most of them are clean, so such a check runs once per distinct table instead of
        once per port; a port with anything to say runs it every time."""
        key = (_QUIET, name, *map(id, inputs))
        if key in self._memo:
            return ()
        got = list(results())
        if not got:
            self._memo[key] = (inputs, None)  # holding the inputs keeps their ids unique
        return got

    def roce_ports(self, device: Device) -> list[Port]:
        """Switch ports that carry RoCE (admin-down ports never do).

        The inventory's ``roce_ports`` when declared; else the ends of the device's links;
        else (a lone config) the ports with lossless evidence (PFC, DSCP trust, an ECN
        profile or a lossless buffer) or whose lossless state is unknown.
        """
        return list(self.scope(device).roce)

    def roce_nics(self, device: Device) -> list[NicPort]:
        """NIC ports of a host (all of them: hosts list only their RoCE NICs)."""
        return list(device.nics.values())

    def end(self, end: LinkEnd) -> Port | NicPort | None:
        """The model port at a link end, or None when it is not in the model."""
        dev = self.fabric.devices.get(end.device)
        if dev is None:
            return None
        return dev.ports.get(end.port) or dev.nics.get(end.port)


_last_only: list[tuple[dict[str, Device], frozenset[str], list[Device]]] = []
"""The devices of the last (devices, only) pair: every rule of one re-check asks for the same
few devices, so the fabric is scanned once per re-check instead of once per rule."""


def _only_devices(devices: dict[str, Device], only: frozenset[str]) -> list[Device]:
    last = _last_only[0] if _last_only else None  # one read: another thread may replace it
    if last is not None and last[0] is devices and last[1] is only:
        return last[2]
    at = _positions(devices)
    mine = [devices[n] for n in only if n in devices]
    if at is not None and all(d.name in at for d in mine):
        got = sorted(mine, key=lambda d: at[d.name])
    else:
        got = [dev for dev in devices.values() if dev.name in only]
    _last_only[:] = [(devices, only, got)]
    return got


def _positions(devices: dict[str, Device]) -> dict[str, int] | None:
    """Device name -> its place in ``devices``, kept for the plan's re-checks
    (:mod:`rocetune.checks.memo`): a replayed fabric has its base's order (its replaced
    devices in their places), so a re-check puts its few devices in order without a pass
    over the fabric. None outside a plan."""
    got = base_of(devices)
    base = got[0] if got is not None else devices if is_base(devices) else None
    if base is None:
        return None
    return per_device(("positions",), (base,), lambda: {n: i for i, n in enumerate(base)})


_NO_LINKS: list[Link] = []
"""The links of a device without any (one object: a per-device result keyed by it is reused)."""

_FEW_DEVICES = 8
"""``only`` names few devices when this many times as many links would be scanned."""
_Indexed = tuple[tuple[Link, ...], dict[str, list[Link]], dict[str, list[int]]]
_last_links: list[_Indexed] = []
"""The last links tuple, device -> its links, and device -> their positions in the tuple
(one run's rules, and the plan's re-checks of one fabric, share its links: indexing them
per rule and per re-check cost rules x links each; a re-check's link rules ask for the
links of a few devices, in fabric order)."""


def _indexed(links: tuple[Link, ...]) -> _Indexed:
    last = _last_links[0] if _last_links else None  # one read: another thread may replace it
    if last is not None and last[0] is links:
        return last
    index: dict[str, list[Link]] = {}
    spots: dict[str, list[int]] = {}
    for i, link in enumerate(links):
        a, b = link.a.device, link.b.device
        for end in (a,) if a == b else (a, b):
            index.setdefault(end, []).append(link)
            spots.setdefault(end, []).append(i)
    got = (links, index, spots)
    _last_links[:] = [got]
    return got


def _links_index(links: tuple[Link, ...]) -> dict[str, list[Link]]:
    return _indexed(links)[1]


def _link_spots(links: tuple[Link, ...]) -> dict[str, list[int]]:
    return _indexed(links)[2]


class Rule(ABC):
    """A rule. Subclass one of the scope bases below, not this class."""

    meta: ClassVar[RuleMeta]
    options_model: ClassVar[type[RuleOptions]] = RuleOptions
    focused: ClassVar[bool] = False
    """The rule honours :attr:`CheckContext.focus` and signs its fabric-wide verdicts."""

    @abstractmethod
    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Yield issues and missing-data notes for the whole fabric."""


class PortRule(Rule):
    """A rule checked on every RoCE switch port and every host NIC port."""

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Call :meth:`check_port` and :meth:`check_nic` on every RoCE port."""
        for dev in ctx.subjects():
            yield from self.run_device(dev, ctx)

    def run_device(self, dev: Device, ctx: CheckContext) -> Iterator[Result]:
        """What :meth:`run` yields for one device (the engine may run devices one by one).

        A rule that keeps the default (empty) :meth:`check_port` or :meth:`check_nic` is
        not called on each port of that kind: half the port rules check only one kind, and
        those calls were ~380,000 of them in a 1,000-switch audit. The missing-ports note
        stays (it is the rule's result on a device without ports, whatever it checks)."""
        cls = type(self)
        if dev.kind == "switch":
            if not dev.ports:
                yield Missing(device=dev.name, item="no switch ports in the snapshot")
            if cls.check_port is not PortRule.check_port:
                for port in ctx.roce_ports(dev):
                    yield from self.check_port(dev, port, ctx)
        else:
            if not dev.nics:
                yield Missing(device=dev.name, item="no NIC ports in the snapshot")
            if cls.check_nic is not PortRule.check_nic:
                for nic in ctx.roce_nics(dev):
                    yield from self.check_nic(dev, nic, ctx)

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Check one switch port (default: nothing)."""
        return ()

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterable[Result]:
        """Check one host NIC port (default: nothing)."""
        return ()


class DeviceRule(Rule):
    """A rule checked once per device."""

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Call :meth:`check_device` on every device."""
        for dev in ctx.subjects():
            yield from self.run_device(dev, ctx)

    def run_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """What :meth:`run` yields for one device (the engine may run devices one by one)."""
        return self.check_device(dev, ctx)

    @abstractmethod
    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Check one device."""


class LinkRule(Rule):
    """A rule checked on both ends of every link whose two ends are in the model."""

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Call :meth:`check_link` for every link."""
        for link in ctx.subject_links():
            yield from self.check_link(link, ctx)

    @abstractmethod
    def check_link(self, link: Link, ctx: CheckContext) -> Iterable[Result]:
        """Check one link."""


def port_path(port: Port | NicPort, field_name: str | None = None) -> str:
    """Model path of a port (or one of its fields) for provenance lookups."""
    base = ("ports." if isinstance(port, Port) else "nics.") + port.name
    return f"{base}.{field_name}" if field_name else base


def fmt_set(values: Iterable[int] | None) -> str:
    """Format priorities/DSCPs as ``{3,4}`` (``{}`` when empty, ``unknown`` for None)."""
    if values is None:
        return "unknown"
    return "{" + ",".join(str(v) for v in sorted(set(values))) + "}"
