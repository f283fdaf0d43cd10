"""Cumulus snapshot -> :class:`~rocetune.model.Device` plus provenance.

The parse stages (:data:`~rocetune.platforms.base.PARSE_STAGES`): :func:`read`
(:mod:`.nvue_yaml` or :mod:`.commands_text` -> a key tree with lines), :func:`bind`
(:mod:`.qos` -> the effective profiles, :mod:`.interfaces` -> what each interface binds),
:func:`build` (the neutral ports, :mod:`.ports`) and ``account``. Cumulus 3.x/4.x datapath
files (``traffic.conf``) take their own short road (:mod:`.datapath`).

Provenance paths: ``""`` -> line 1 of the configuration, ``ports.<p>`` -> the interface key that
names the port, ``ports.<p>.<field>`` -> the line of the setting that defined the field (the
global profile's line when the port inherits it; nothing for pure NVUE defaults, so the lookup
falls back to the port), ``hostname``, ``buffer_pools``, ``watchdog_poll_ms``, and
``unparsed.<i>`` -> the item's own line; ``lldp`` and ``lldp.<i>`` point into the optional LLDP
output (:func:`~rocetune.platforms.common.lldpctl.with_lldp`); ``ports.<p>.pfc_oper`` and
``lldp_app_tlvs`` point into ``nv show qos roce -o json`` when they come from it;
``tunnel_dscp_rewrite.vxlan`` -> ``nve vxlan``.

Runtime RoCE state (``nv show qos roce -o json``, :func:`.operational.read_roce_oper`): its PFC
priorities describe the global RoCE PFC profile, so they fill ``pfc_oper`` only on ports
that bind no PFC profile of their own. ``lldp_app_tlvs`` comes from it, else from the
documented ``qos roce`` expansion (UDP 4791 -> priority 3), else stays unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rocetune.errors import ParseError
from rocetune.model import BufferPool, Device, Port, Unparsed
from rocetune.model.device import AppTlv
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.lldpctl import with_lldp
from rocetune.platforms.common.unparsed import account
from rocetune.platforms.cumulus import defaults, unsupported
from rocetune.platforms.cumulus.commands import (
    LLDP,
    NV_CONFIG,
    NV_INTERFACE,
    NV_QOS_ROCE,
    UNSUPPORTED,
    looks_like_nvue_yaml,
)
from rocetune.platforms.cumulus.commands_text import has_set_commands, load_commands
from rocetune.platforms.cumulus.datapath import read_datapath
from rocetune.platforms.cumulus.interfaces import PortConfig, read_interfaces
from rocetune.platforms.cumulus.nvue_yaml import load_yaml
from rocetune.platforms.cumulus.operational import (
    OperLink,
    RoceOper,
    read_roce_facts,
    read_roce_oper,
)
from rocetune.platforms.cumulus.operational import read_interfaces as read_oper
from rocetune.platforms.cumulus.ports import build_port
from rocetune.platforms.cumulus.qos import QosPlan, resolve_qos
from rocetune.platforms.cumulus.qos_common import Ctx
from rocetune.platforms.cumulus.remark import tunnel_rewrites
from rocetune.platforms.cumulus.tree import ConfigTree, Issues
from rocetune.snapshot import Snapshot, SourceFile

PLATFORM = "cumulus"
TEMPLATE_PORT = "swp*"


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse a Cumulus snapshot; raise ParseError on unreadable YAML/JSON or no config."""
    config = snapshot.get(NV_CONFIG)
    other = snapshot.get(UNSUPPORTED)
    if config is not None:
        return with_lldp(_parse_config(snapshot, config, other, name, role), snapshot, LLDP)
    if other is None:
        msg = "no `nv config show -o yaml` output in the snapshot"
        raise ParseError(msg, file=snapshot.origin or None)
    return _unsupported_only(other, name, role)


def read(config: SourceFile, issues: Issues) -> tuple[ConfigTree, str]:
    """Read stage: ``nv set`` command text or NVUE YAML/JSON -> the key tree with lines, and
    which of the two it was (``commands`` or ``yaml``)."""
    if has_set_commands(config.text) and not looks_like_nvue_yaml(config.text):
        return load_commands(config.text, issues), "commands"
    return load_yaml(config.text, config.path, issues), "yaml"


def bind(tree: ConfigTree, issues: Issues) -> tuple[QosPlan, dict[str, PortConfig]]:
    """Bind stage: the effective QoS profiles and what each interface binds."""
    plan = resolve_qos(tree, issues)
    return plan, read_interfaces(Ctx(tree=tree, issues=issues))


def _unsupported_only(source: SourceFile, name: str, role: str | None) -> ParseResult:
    if unsupported.classify(source.text) == unsupported.DATAPATH:
        return _datapath(source, name, role)
    items = _unsupported_items(source)
    device = Device(name=name, kind="switch", platform=PLATFORM, role=role, unparsed=items)
    provenance = Provenance()
    provenance.add("", source.path, 1)
    account(provenance, items)
    return ParseResult(device=device, provenance=provenance)


def _datapath(source: SourceFile, name: str, role: str | None) -> ParseResult:
    """traffic.conf / qos_features.conf: the ports their port sets name (:mod:`.datapath`)."""
    read = read_datapath(source.text, source.path)
    items = tuple(read.unparsed)
    facts = {"cumulus.source": "datapath"}
    if read.skipped:
        facts["cumulus.skipped_lines"] = str(read.skipped)
    device = Device(
        name=name,
        kind="switch",
        platform=PLATFORM,
        role=role,
        ports=read.ports,
        unparsed=items,
        facts=facts,
    )
    provenance = Provenance()
    provenance.add("", source.path, 1)
    for port, line in read.port_lines.items():
        provenance.add(f"ports.{port}", source.path, line)
    account(provenance, items)
    return ParseResult(device=device, provenance=provenance)


def _unsupported_items(source: SourceFile) -> tuple[Unparsed, ...]:
    label = unsupported.classify(source.text) or "input"
    return unsupported.unparsed_items(source.text, source.path, label)


def _parse_config(
    snapshot: Snapshot, config: SourceFile, other: SourceFile | None, name: str, role: str | None
) -> ParseResult:
    issues = Issues(config.path)
    tree, form = read(config, issues)
    plan, configs = bind(tree, issues)
    provenance = Provenance()
    provenance.add("", config.path, 1)
    facts = _facts(tree, plan, form)
    oper, oper_file, extra, roce = _operational(snapshot, facts)
    own_pfc = {name for name, port in configs.items() if "pfc" in port.settings}
    device_ports = build(
        configs,
        plan,
        oper,
        oper_file,
        issues=issues,
        provenance=provenance,
        qos_line=tree.line(("qos",)) if isinstance(tree.get(("qos",)), dict) else None,
    )
    device_ports = _pfc_oper(device_ports, own_pfc, roce, provenance)
    hostname = _hostname(tree, issues, provenance)
    tunnels = tunnel_rewrites(tree, issues)
    if "vxlan" in tunnels:
        provenance.add("tunnel_dscp_rewrite.vxlan", config.path, tree.line(("nve", "vxlan")))
    unparsed = (*issues.items, *extra, *(_unsupported_items(other) if other else ()))
    _device_provenance(provenance, tree, plan, config.path)
    del tree  # read whole: not held while the device is made (the peak of a parse)
    account(provenance, unparsed)
    device = Device(
        name=name,
        kind="switch",
        platform=PLATFORM,
        role=role,
        hostname=hostname,
        ports=device_ports,
        buffer_pools={
            n: BufferPool(name=n, percent=p.percent, lossless=p.lossless)
            for n, p in sorted(plan.pools.items())
        },
        watchdog_poll_ms=plan.poll_ms,
        unparsed=unparsed,
        facts=facts,
        tunnel_dscp_rewrite=tunnels,
        lldp_app_tlvs=_app_tlvs(plan, roce, provenance, config.path),
    )
    return ParseResult(device=device, provenance=provenance)


def _operational(
    snapshot: Snapshot, facts: dict[str, str]
) -> tuple[dict[str, OperLink], str, tuple[Unparsed, ...], RoceOper]:
    found: dict[str, OperLink] = {}
    oper_file = ""
    extra: list[Unparsed] = []
    roce_oper = RoceOper()
    source = snapshot.get(NV_INTERFACE)
    if source is not None:
        issues = Issues(source.path)
        found = read_oper(source.text, source.path, issues)
        oper_file = source.path
        extra.extend(issues.items)
    roce = snapshot.get(NV_QOS_ROCE)
    if roce is not None:
        issues = Issues(roce.path)
        facts.update(read_roce_facts(roce.text, roce.path, issues))
        roce_oper = read_roce_oper(roce.text, roce.path, issues)
        extra.extend(issues.items)
    return found, oper_file, tuple(extra), roce_oper


def _pfc_oper(
    ports: dict[str, Port], own_pfc: set[str], roce: RoceOper, prov: Provenance
) -> dict[str, Port]:
    """Runtime PFC of the global RoCE profile on the ports that use it (``own_pfc``: the
    ports that bind a PFC profile of their own)."""
    if roce.pfc is None:
        return ports
    out = dict(ports)
    for name, port in ports.items():
        if name not in own_pfc:
            out[name] = port.model_copy(update={"pfc_oper": roce.pfc})
            prov.add(f"ports.{name}.pfc_oper", roce.file, roce.pfc_line)
    return out


def _app_tlvs(
    plan: QosPlan, roce: RoceOper, prov: Provenance, config_file: str
) -> tuple[AppTlv, ...] | None:
    """Advertised application TLVs: runtime view, else the ``qos roce`` expansion."""
    if roce.app_tlvs is not None:
        prov.add("lldp_app_tlvs", roce.file, roce.tlv_line)
        return roce.app_tlvs
    if plan.roce_mode not in defaults.ROCE_APP_TLV_MODES:
        return None
    prov.add("lldp_app_tlvs", config_file, plan.roce_line)
    port, priority = defaults.ROCE_APP_TLV
    return (AppTlv(selector="udp", protocol=port, priority=priority),)


def build(
    configs: dict[str, PortConfig],
    plan: QosPlan,
    oper: dict[str, OperLink],
    oper_file: str,
    *,
    issues: Issues,
    provenance: Provenance,
    qos_line: int | None = None,
) -> dict[str, Port]:
    """Build stage: the swp ports the config or the operational data name.

    A config that names none but sets device-wide QoS (``nv set qos roce`` alone, an NCLU RoCE
    one-shot) gets one template port ``swp*`` (:attr:`~rocetune.model.Port.template`): NVUE
    applies the global profiles to every swp port, so what they give is checked once; its MTU
    stays unknown.

    ``configs`` is emptied: each port's configuration is let go once its port is built (the
    configurations of all ports and all their built ports were held at once)."""
    ports: dict[str, Port] = {}
    for port_name in _natural_order({*configs, *oper}):
        built = build_port(
            port_name, configs.pop(port_name, None), plan, (oper.get(port_name), oper_file), issues
        )
        ports[port_name] = built.port
        provenance.add_member("ports.", port_name, *built.line)  # keyed by the model's name
        provenance.add_runs(f"ports.{port_name}.", built.lines.items())
    if not ports and qos_line is not None:
        built = build_port(TEMPLATE_PORT, None, plan, (None, oper_file), issues)
        ports[TEMPLATE_PORT] = built.port.model_copy(update={"mtu": None, "template": True})
        provenance.add(f"ports.{TEMPLATE_PORT}", issues.file, qos_line)
        provenance.add_runs(f"ports.{TEMPLATE_PORT}.", built.lines.items())
    return ports


def _hostname(tree: ConfigTree, issues: Issues, provenance: Provenance) -> str | None:
    path = ("system", "hostname")
    value = tree.get(path)
    if value is None:
        return None
    if not isinstance(value, str | int) or isinstance(value, bool):
        issues.invalid(path, value, "a host name", tree.line(path))
        return None
    provenance.add("hostname", issues.file, tree.line(path))
    return str(value)


def _facts(tree: ConfigTree, plan: QosPlan, source: str) -> dict[str, str]:
    facts = {f"nvue.{key}": value for key, value in sorted(tree.header.items())}
    facts["nvue.source"] = source
    if tree.skipped_lines:
        facts["nvue.skipped_lines"] = str(len(tree.skipped_lines))
    facts["nvue.roce_mode"] = plan.roce_mode or "off"
    return facts


def _device_provenance(provenance: Provenance, tree: ConfigTree, plan: QosPlan, file: str) -> None:
    pools_line = tree.key_line(("qos", "traffic-pool")) or plan.roce_line
    if pools_line is not None:
        provenance.add("buffer_pools", file, pools_line)
    if plan.watchdog_line is not None:
        provenance.add("watchdog_poll_ms", file, plan.watchdog_line)


def _natural_order(names: Iterable[str]) -> list[str]:
    """``names`` in natural order (``swp2`` before ``swp10``). The words of the sort keys
    are held once (every key of a 1,024-port switch had its own ``swp``: the keys are all
    alive during the sort, which is the parse's peak on a big Cumulus switch)."""
    words: dict[str, str] = {}

    def natural(text: str) -> tuple[object, ...]:
        split = re.split(r"(\d+)", text)
        return tuple([int(t) if t.isdigit() else words.setdefault(t, t) for t in split])

    return sorted(names, key=natural)
