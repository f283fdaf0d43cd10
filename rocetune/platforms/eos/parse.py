"""EOS snapshot -> :class:`~rocetune.model.Device` plus provenance.

The parse stages (:data:`~rocetune.platforms.base.PARSE_STAGES`): :func:`read` (text -> a
tree of lines by mode, :mod:`.blocks`), :func:`bind` (the tree -> the vendor shape
:class:`~rocetune.platforms.eos.shape.EosConfig`, :mod:`.reader` and :mod:`.qos_lines`),
:func:`build` (the neutral ports, :mod:`.ports`) and ``account`` (the Unparsed items of the
running-config, the status and the LLDP outputs).
Provenance paths: ``""`` -> line 1 of the running-config, ``hostname``, ``ports.<p>`` -> the
``interface`` line that names the port (a range line for ranges; the status output's line for
a port only seen there), ``ports.<p>.<field>`` (and ``.watchdog.<timer>``, ``.ecn.<q>``,
``.schedulers.<q>``) -> the line that set the value (the qos profile's or the Port-Channel's
line when inherited, the global line for global settings, the status output's line for an
operational speed; nothing for pure defaults, so the lookup falls back to the port),
``watchdog_poll_ms``, ``lldp`` and ``unparsed.<i>``.

``Device.tunnel_dscp_rewrite`` is ``{}`` when the configuration has no Vxlan or Tunnel
interface and unknown (None) otherwise (their outer DSCP is not modelled).
"""

from __future__ import annotations

import re

from rocetune.errors import ParseError
from rocetune.model import Device, LldpNeighbor, Port, Unparsed
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.unparsed import account
from rocetune.platforms.common.unread import blocked_features
from rocetune.platforms.eos.blocks import Issues, Node, read_tree
from rocetune.platforms.eos.commands import (
    INTERFACES_STATUS,
    LLDP_BRIEF,
    LLDP_DETAIL,
    RUNNING_CONFIG,
)
from rocetune.platforms.eos.operational import OperLink, read_lldp, read_status
from rocetune.platforms.eos.ports import build_port
from rocetune.platforms.eos.reader import read_config
from rocetune.platforms.eos.shape import EosConfig, InterfaceConf
from rocetune.platforms.eos.values import SEGMENT_BYTES
from rocetune.snapshot import Snapshot, SourceFile

PLATFORM = "eos"
MTU_MAX = 9214
"""The largest EOS ``mtu`` (IP MTU): "The switch supports MTU sizes ranging from 68 to 9214
bytes" (Arista EOS User Manual, Layer 3 MTU; docs/mtu.md)."""


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse an EOS snapshot; ParseError when it has no running-config."""
    source = snapshot.get(RUNNING_CONFIG)
    if source is None:
        msg = "no `show running-config` output in the snapshot"
        raise ParseError(msg, file=snapshot.origin or None)
    issues = Issues(source.path)
    config = bind(source.text, read(source.text, issues), issues)
    provenance = Provenance()
    provenance.add("", source.path, 1)
    oper, oper_file, oper_items = _status(snapshot)
    lldp, lldp_items = _lldp(snapshot, provenance)
    facts = _facts(config)  # before build, which frees the interfaces it has built
    ports = build(config, oper, issues, provenance, (source.path, oper_file))
    unparsed = (*issues.items, *oper_items, *lldp_items)
    _device_provenance(config, provenance, source.path)
    account(provenance, unparsed, file=source.path)
    device = Device(
        name=name,
        kind="switch",
        platform=PLATFORM,
        role=role,
        hostname=config.hostname.value if config.hostname else issues.prompt_host,
        ports=ports,
        watchdog_poll_ms=_poll(config),
        lldp=lldp,
        unparsed=unparsed,
        tunnel_dscp_rewrite=None if config.tunnels else {},
        facts=facts,
        mtu_max=MTU_MAX,
    )
    return ParseResult(device=device, provenance=provenance)


def read(text: str, issues: Issues) -> list[Node]:
    """Read stage: the running-config's lines as a tree by CLI mode."""
    return read_tree(text, issues)


def bind(text: str, tree: list[Node], issues: Issues) -> EosConfig:
    """Bind stage: the tree -> the EOS configuration (profiles, maps, interfaces)."""
    return read_config(text, tree, issues)


def _status(snapshot: Snapshot) -> tuple[dict[str, OperLink], str, tuple[Unparsed, ...]]:
    source = snapshot.get(INTERFACES_STATUS)
    if source is None:
        return {}, "", ()
    issues = Issues(source.path)
    return read_status(source.text, source.path, issues), source.path, tuple(issues.items)


def _lldp(
    snapshot: Snapshot, provenance: Provenance
) -> tuple[tuple[LldpNeighbor, ...] | None, tuple[Unparsed, ...]]:
    source: SourceFile | None = snapshot.get(LLDP_DETAIL) or snapshot.get(LLDP_BRIEF)
    if source is None:
        return None, ()
    issues = Issues(source.path)
    found = read_lldp(source.text, source.path, issues)
    provenance.add("lldp", source.path, 1)
    return found, tuple(issues.items)


def build(
    config: EosConfig,
    oper: dict[str, OperLink],
    issues: Issues,
    provenance: Provenance,
    files: tuple[str, str],
) -> dict[str, Port]:
    """Build stage: the neutral ports (configured or seen in the status output).

    An Ethernet interface's vendor shape is dropped from ``config`` once its port is built
    (no other port reads it: only a Port-Channel's, which stays), so the shape and the
    model of every port (~4x and ~5x the text) are not both whole at once."""
    config_file, oper_file = files
    configured = {n for n, c in config.interfaces.items() if c.kind == "ethernet"}
    seen = {n for n in oper if n.startswith("Ethernet") and "." not in n}
    ports: dict[str, Port] = {}
    blocked = blocked_features(issues.items)
    names = configured | seen
    for port_name in sorted(names - _inactive_lanes(config, names), key=_natural):
        iface = config.interfaces.get(port_name) or InterfaceConf(name=port_name, line=0)
        built = build_port(port_name, iface, config, oper.get(port_name), issues, blocked=blocked)
        config.interfaces.pop(port_name, None)
        ports[port_name] = built.port
        if iface.line:  # keyed by the port's name (the model's string)
            provenance.add_member("ports.", port_name, config_file, iface.line)
        else:
            provenance.add_member("ports.", port_name, oper_file, oper[port_name].line)
        parent = f"ports.{port_name}."
        provenance.add_many(parent, config_file, list(built.lines.items()))
        provenance.add_many(parent, oper_file, list(built.oper_lines.items()))
    return ports


def _poll(config: EosConfig) -> float | None:
    poll = config.globals.watchdog_poll_ms
    return poll.value if poll is not None else None


def _device_provenance(config: EosConfig, provenance: Provenance, file: str) -> None:
    if config.hostname is not None:
        provenance.add("hostname", file, config.hostname.line)
    poll = config.globals.watchdog_poll_ms
    if poll is not None:
        provenance.add("watchdog_poll_ms", file, poll.line)


def _facts(config: EosConfig) -> dict[str, str]:
    facts = dict(config.facts)
    contexts = [*config.profiles.values(), *config.interfaces.values()]
    units = {
        red.value.low.unit
        for conf in contexts
        for queue in conf.queues.values()
        for red in (queue.ecn, queue.drop)
        if red is not None and red.value is not None
    }
    if "segments" in units:
        facts["eos.segment_bytes_assumed"] = f"{SEGMENT_BYTES} [unverified]"
    return dict(sorted(facts.items()))


def _natural(text: str) -> tuple[object, ...]:
    return tuple([int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)])


def _inactive_lanes(config: EosConfig, names: set[str]) -> set[str]:
    """Those of ``names`` that are lanes a multi-lane speed on lane 1 takes over
    (``Ethernet1/1`` ``speed 100g-4`` -> ``Ethernet1/2``-``/4`` carry no port of their own).
    Only the lanes among ``names`` are kept: every lane of a 1024-port switch at 8 lanes a
    port is 7,168 names (~6x the config)."""
    out: set[str] = set()
    for name, conf in config.interfaces.items():
        if conf.lanes is None:
            continue
        match = _LANE_ONE.fullmatch(name)
        if match is None:
            continue
        for lane in range(int(match.group(2)) + 1, int(match.group(2)) + conf.lanes):
            lane_name = f"{match.group(1)}/{lane}"
            if lane_name in names:
                out.add(lane_name)
    return out


_LANE_ONE = re.compile(r"(Ethernet\d+(?:/\d+)?)/(\d+)")
