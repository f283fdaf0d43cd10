"""NX-OS snapshot -> :class:`~rocetune.model.Device` plus provenance.

The parse stages (:data:`~rocetune.platforms.base.PARSE_STAGES`): :func:`read` (text -> a
tree of lines by mode, :mod:`.lines`), :func:`bind` (the vendor shape: :mod:`.config`
top-level commands, :mod:`.classes`, :mod:`.policies`, :mod:`.queuing`, :mod:`.interfaces`;
:mod:`.plan` resolves the system policies), :func:`build` (the neutral ports,
:mod:`.ports`) and ``account`` (the Unparsed items of every output read).

Ports: every Ethernet ``interface`` of the running-config, the breakout sub-ports (which
replace their parent port) and ports seen only in ``show interface | json``.

Provenance paths: ``""`` -> line 1 of the running-config; ``ports.<p>`` -> the port's
``interface`` line (or its breakout line, or its row in ``show interface | json``);
``ports.<p>.<field>`` -> the line that set the field: the interface line (``mtu``,
``priority-flow-control mode``, ``service-policy``), else the system-level line it inherits
(the ``policy-map`` of the classification or queuing policy, the ``random-detect`` or
``bandwidth`` line of a queue as ``ports.<p>.ecn.<q>`` / ``schedulers.<q>``, the network-qos
``pause`` line, the global watchdog line); ``hostname``; ``watchdog_poll_ms``; ``lldp`` ->
line 1 of the LLDP output; ``unparsed.<i>`` -> the item's own line.
"""

from __future__ import annotations

import re

from rocetune.errors import ParseError
from rocetune.model import Device, LldpNeighbor, Port, Unparsed
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.unparsed import account
from rocetune.platforms.common.unread import blocked_features
from rocetune.platforms.nxos.commands import INTERFACES, LLDP, RUNNING_CONFIG
from rocetune.platforms.nxos.config import NxosConfig, read_config
from rocetune.platforms.nxos.lines import Issues, Node, build_tree
from rocetune.platforms.nxos.operational import OperPort, read_interfaces, read_lldp
from rocetune.platforms.nxos.plan import Plan, build_plan
from rocetune.platforms.nxos.ports import POLL_MS, PortInput, build_port
from rocetune.snapshot import Snapshot

PLATFORM = "nxos"
TEMPLATE_PORT = "Ethernet*"


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse an NX-OS snapshot; raise ParseError on invalid JSON or no running-config."""
    config = snapshot.get(RUNNING_CONFIG)
    if config is None:
        msg = "no `show running-config` output in the snapshot"
        raise ParseError(msg, file=snapshot.origin or None)
    issues = Issues(config.path)
    cfg, plan = bind(read(config.text, issues), issues)
    provenance = Provenance()
    provenance.add("", config.path, 1)
    oper, oper_file, extra = _interfaces(snapshot)
    lldp, lldp_file, lldp_extra = _lldp(snapshot)
    ports = build(cfg, plan, oper, issues, provenance=provenance, files=(config.path, oper_file))
    unparsed = (*sorted(issues.items, key=_by_line), *extra, *lldp_extra)
    _device_provenance(provenance, cfg, config.path, lldp_file, unparsed)
    facts = {"nxos.source": "show running-config", **dict(sorted(plan.facts.items()))}
    if cfg.version:
        facts["nxos.version"] = cfg.version
    device = Device(
        name=name,
        kind="switch",
        platform=PLATFORM,
        role=role,
        hostname=cfg.hostname[0] if cfg.hostname else issues.prompt_host,
        ports=ports,
        watchdog_poll_ms=POLL_MS,
        lldp=lldp,
        unparsed=unparsed,
        facts=facts,
    )
    return ParseResult(device=device, provenance=provenance)


def read(text: str, issues: Issues) -> list[Node]:
    """Read stage: the running-config's lines as a tree by CLI mode."""
    return build_tree(text, issues)


def bind(tree: list[Node], issues: Issues) -> tuple[NxosConfig, Plan]:
    """Bind stage: the tree -> the NX-OS configuration and the system policies resolved."""
    cfg = read_config(tree, issues)
    return cfg, build_plan(cfg, issues)


def _interfaces(snapshot: Snapshot) -> tuple[dict[str, OperPort], str, tuple[Unparsed, ...]]:
    source = snapshot.get(INTERFACES)
    if source is None:
        return {}, "", ()
    issues = Issues(source.path)
    found = read_interfaces(source.text, source.path, issues)
    return found, source.path, tuple(issues.items)


def _lldp(
    snapshot: Snapshot,
) -> tuple[tuple[LldpNeighbor, ...] | None, str | None, tuple[Unparsed, ...]]:
    source = snapshot.get(LLDP)
    if source is None:
        return None, None, ()
    issues = Issues(source.path)
    found = read_lldp(source.text, source.path, issues)
    return found, source.path, tuple(issues.items)


def build(
    cfg: NxosConfig,
    plan: Plan,
    oper: dict[str, OperPort],
    issues: Issues,
    *,
    provenance: Provenance,
    files: tuple[str, str],
) -> dict[str, Port]:
    """Build stage: the neutral ports (configured, broken out or seen operationally).

    An interface's configuration is dropped from ``cfg`` once its port is built (no other
    port reads it), so the configuration and the model of every port are not both whole
    at once."""
    broken = {p for b in cfg.breakouts for p in b.parents}
    speeds = {c: (b.speed_mbps, b.line) for b in cfg.breakouts for c in b.children()}
    names = ({*cfg.interfaces, *speeds, *oper}) - broken
    blocked = blocked_features(issues.items)
    ports: dict[str, Port] = {}
    for port_name in sorted(names, key=_natural):
        src = PortInput(
            port_name, cfg.interfaces.get(port_name), oper.get(port_name), speeds.get(port_name)
        )
        built = build_port(src, cfg, plan, issues, blocked.get(port_name, frozenset()))
        cfg.interfaces.pop(port_name, None)
        ports[port_name] = built.port
        _port_provenance(provenance, src, files)
        provenance.add_many(f"ports.{port_name}.", files[0], list(built.lines.items()))
    if not ports and cfg.system:
        ports[TEMPLATE_PORT] = _template_port(cfg, plan, issues, provenance, files[0])
    return ports


def _template_port(
    cfg: NxosConfig, plan: Plan, issues: Issues, provenance: Provenance, file: str
) -> Port:
    """A config without interfaces but with ``system qos`` policies (a QoS script): one
    template port ``Ethernet*`` (:attr:`~rocetune.model.Port.template`) with what every port
    inherits from the system policies. What an interface sets itself (MTU, PFC mode, link
    pause, watchdog, admin state) is unknown."""
    built = build_port(PortInput(TEMPLATE_PORT, None, None, None), cfg, plan, issues)
    first = min(line for _, line in cfg.system.values())
    provenance.add(f"ports.{TEMPLATE_PORT}", file, first)
    for field, line in built.lines.items():
        if not field.startswith(("watchdog", "pfc_rx", "pfc_tx")):
            provenance.add(f"ports.{TEMPLATE_PORT}.{field}", file, line)
    return built.port.model_copy(update={"template": True, "watchdog": None})


def _port_provenance(provenance: Provenance, src: PortInput, files: tuple[str, str]) -> None:
    """The port's own line, keyed by its name (the model's string)."""
    name = src.name
    if src.iface is not None:
        provenance.add_member("ports.", name, files[0], src.iface.line)
    elif src.breakout_speed is not None:
        provenance.add_member("ports.", name, files[0], src.breakout_speed[1])
    elif src.oper is not None:
        provenance.add_member("ports.", name, files[1], src.oper.line)


def _device_provenance(
    provenance: Provenance,
    cfg: NxosConfig,
    file: str,
    lldp_file: str | None,
    unparsed: tuple[Unparsed, ...],
) -> None:
    if cfg.hostname is not None:
        provenance.add("hostname", file, cfg.hostname[1])
    if cfg.watchdog.enabled is not None:
        provenance.add("watchdog_poll_ms", file, cfg.watchdog.enabled[1])
    if lldp_file is not None:
        provenance.add("lldp", lldp_file, 1)
    account(provenance, unparsed)


def _by_line(item: Unparsed) -> int:
    return item.line or 0


def _natural(text: str) -> tuple[object, ...]:
    return tuple([int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)])
