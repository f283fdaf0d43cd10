"""Read the ``interface`` subtree: which swp ports exist and what each one sets itself.

- Keys are interface names, ranges or lists (``swp1``, ``swp1-4``, ``swp1,swp3``,
  ``swp2,6``, ``swp1s0-3``); every swp name they cover gets the settings of that key, and
  several keys covering one port merge in file order.
- ``link``: ``mtu`` -> mtu, ``speed`` (``100G``; ``auto`` = unknown) -> speed_mbps,
  ``state`` (``up``/``down`` or ``{up: {}}``) -> admin_up. Other link keys are not QoS.
- ``qos``: ``<feature> profile <name>`` for pfc, link-pause, mapping, congestion-control,
  egress-scheduler and remark binds a global profile; ``pfc-watchdog`` (present, or ``state
  enable|disable``) turns the watchdog on for the port. Other qos keys become Unparsed.
- ``link breakout``: ``<n>x`` (``nv set interface swp1 link breakout 4x``; YAML ``breakout:
  4x`` or ``breakout: {4x: {...}}``) splits the port into ``swp1s0`` .. ``swp1s<n-1>``
  (NVUE reference "With breakout 4x, parent ports swp1 through swp32 split into
  sub-interfaces swp1s0 through swp32s3"): the parent is replaced by its children, which
  keep the settings they set themselves. ``1x`` keeps the port; ``disabled`` (and
  ``loopback``) take the port out of service, so it is not a port of the model. Any other
  breakout value is reported and the port kept.
- Bonds (``bond: member: {...}``, type bond or peerlink) carry no QoS in Cumulus: QoS and
  the watchdog are per physical swp port (S2 "You cannot enable the watchdog on a bond").
  Members are ports; they inherit the bond's ``link mtu`` when they set none themselves
  (CL-PORT: "the member links ... inherit the configured value"). QoS keys on a bond or on
  any other non-swp interface (sub-interfaces, SVIs, loopback) become Unparsed items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rocetune.platforms.cumulus import values
from rocetune.platforms.cumulus.operational import SWP
from rocetune.platforms.cumulus.qos_common import UNKNOWN_KEY, Ctx, Line
from rocetune.platforms.cumulus.tree import KeyPath, dotted

BINDINGS = ("pfc", "link-pause", "mapping", "congestion-control", "egress-scheduler", "remark")
_NOT_MODELLED = {
    "egress-shaper": "egress shaping is not modelled",
    "headroom": "per-port headroom settings are not modelled",
    "shared-headroom-pool": "shared headroom pool is not modelled",
    "roce": "per-interface RoCE settings are not modelled",
}
_MTU_RANGE = (68, 65_535)
_BREAKOUT = re.compile(r"([1-8])x(?:\d+g)?")
_BREAKOUT_OFF = frozenset({"disabled", "loopback"})


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting of an interface entry: its value, line and key path."""

    value: Any
    line: Line
    path: KeyPath


@dataclass(slots=True)
class PortConfig:
    """What the configuration says about one swp port."""

    line: Line
    settings: dict[str, Setting] = field(default_factory=dict)


def read_interfaces(ctx: Ctx) -> dict[str, PortConfig]:
    """Return the swp ports named in ``interface`` with their merged settings."""
    ports: dict[str, PortConfig] = {}
    bonds: list[tuple[list[str], dict[str, Setting], Line]] = []
    for key, node, path in ctx.children(("interface",)):
        names = values.expand_names(key)
        if names is None:
            ctx.issues.add(dotted(path), "cannot read the interface name or range", ctx.line(path))
            continue
        members = _bond_members(ctx, path, node)
        swps = [n for n in names if SWP.fullmatch(n)]
        if "qos" in node and (members or not swps):
            reason = "QoS is configured per physical swp port; not modelled on this interface"
            ctx.issues.subtree(ctx.tree, (*path, "qos"), reason)
        settings = _read_entry(ctx, path, node, qos=bool(swps) and not members)
        if members:
            bonds.append((members, settings, ctx.line(path)))
            continue
        for name in swps:
            port = ports.get(name) or ports.setdefault(name, PortConfig(line=ctx.line(path)))
            port.settings.update(settings)
    for members, settings, line in bonds:
        for name in members:
            port = ports.setdefault(name, PortConfig(line=line))
            if "mtu" in settings and "mtu" not in port.settings:
                port.settings["mtu"] = settings["mtu"]
    return _breakouts(ports)


def _breakouts(ports: dict[str, PortConfig]) -> dict[str, PortConfig]:
    """Replace broken-out parents by their children; drop disabled ports."""
    out = dict(ports)
    for name, port in ports.items():
        setting = port.settings.get("breakout")
        if setting is None:
            continue
        if setting.value == 0:
            out.pop(name, None)
            continue
        if setting.value is None or setting.value <= 1:
            continue
        out.pop(name, None)
        for i in range(setting.value):
            child = f"{name}s{i}"
            out.setdefault(child, PortConfig(line=setting.line))
    return out


def _bond_members(ctx: Ctx, path: KeyPath, node: dict[str, Any]) -> list[str]:
    members = ctx.tree.get((*path, "bond", "member"))
    if not isinstance(members, dict):
        return []
    found: list[str] = []
    for key in members:
        names = values.expand_names(key)
        if names is None:
            ctx.issues.invalid((*path, "bond", "member", key), key, "interface names", None)
            continue
        found.extend(n for n in names if SWP.fullmatch(n))
    return found


def _read_entry(ctx: Ctx, path: KeyPath, node: dict[str, Any], *, qos: bool) -> dict[str, Setting]:
    settings: dict[str, Setting] = {}
    link = node.get("link")
    if isinstance(link, dict):
        _read_link(ctx, (*path, "link"), link, settings)
    qos_node = ctx.mapping((*path, "qos")) if qos and "qos" in node else None
    if qos_node is not None:
        _read_qos(ctx, (*path, "qos"), qos_node, settings)
    return settings


def _read_link(ctx: Ctx, path: KeyPath, link: dict[str, Any], out: dict[str, Setting]) -> None:
    if "mtu" in link:
        where = (*path, "mtu")
        out["mtu"] = Setting(ctx.integer(where, link["mtu"], *_MTU_RANGE), ctx.line(where), where)
    if "speed" in link:
        where = (*path, "speed")
        raw = link["speed"]
        if not (isinstance(raw, str) and raw.strip().lower() == "auto"):
            speed = values.as_speed_mbps(raw)
            if speed is None:
                ctx.issues.invalid(where, raw, "a speed such as 100G", ctx.line(where))
            out["speed_mbps"] = Setting(speed, ctx.line(where), where)
    if "breakout" in link:
        where = (*path, "breakout")
        out["breakout"] = Setting(_breakout(ctx, where, link["breakout"]), ctx.line(where), where)
    if "state" in link:
        where = (*path, "state")
        raw = link["state"]
        if isinstance(raw, dict) and len(raw) == 1:
            raw = next(iter(raw))
        state = values.as_switch(raw)
        if state is None:
            ctx.issues.invalid(where, link["state"], "up or down", ctx.line(where))
        out["admin_up"] = Setting(state, ctx.line(where), where)


def _breakout(ctx: Ctx, path: KeyPath, raw: Any) -> int | None:
    """``4x`` -> 4, ``1x`` -> 1, ``disabled``/``loopback`` -> 0; None (reported) otherwise."""
    if isinstance(raw, dict) and len(raw) == 1:
        raw = next(iter(raw))
    text = str(raw).strip().lower() if isinstance(raw, str | int) else ""
    if text in _BREAKOUT_OFF:
        return 0
    m = _BREAKOUT.fullmatch(text)
    if m is None:
        ctx.issues.invalid(path, raw, "a breakout such as 4x, 1x or disabled", ctx.line(path))
        return None
    return int(m.group(1))


def _read_qos(ctx: Ctx, path: KeyPath, qos: dict[str, Any], out: dict[str, Setting]) -> None:
    for key, child in qos.items():
        where = (*path, key)
        if key in BINDINGS:
            _read_binding(ctx, where, child, out, key)
        elif key == "pfc-watchdog":
            out["watchdog"] = Setting(_watchdog_state(ctx, where, child), ctx.line(where), where)
        elif key in _NOT_MODELLED:
            ctx.issues.subtree(ctx.tree, where, _NOT_MODELLED[key])
        else:
            ctx.issues.subtree(ctx.tree, where, UNKNOWN_KEY)


def _read_binding(ctx: Ctx, path: KeyPath, node: Any, out: dict[str, Setting], key: str) -> None:
    if node is None or node == {}:
        return
    if not isinstance(node, dict):
        ctx.issues.invalid(path, node, "profile <name>", ctx.line(path))
        out[key] = Setting(None, ctx.line(path), path)
        return
    for extra in node:
        if extra != "profile":
            ctx.issues.subtree(ctx.tree, (*path, extra), UNKNOWN_KEY)
    if "profile" in node:
        where = (*path, "profile")
        name = node["profile"]
        if not isinstance(name, str | int) or isinstance(name, bool):
            ctx.issues.invalid(where, name, "a profile name", ctx.line(where))
            name = None
        out[key] = Setting(None if name is None else str(name), ctx.line(where), where)


def _watchdog_state(ctx: Ctx, path: KeyPath, node: Any) -> bool | None:
    if node is None or node == {}:
        return True
    if isinstance(node, dict):
        for extra in node:
            if extra != "state":
                ctx.issues.subtree(ctx.tree, (*path, extra), UNKNOWN_KEY)
        if "state" not in node:
            return True
        return ctx.switch((*path, "state"), node["state"])
    return ctx.switch(path, node)
