"""Cumulus snapshot -> :class:`~rocetune.model.Device` plus provenance.

Two steps: the vendor shape (:mod:`.nvue_yaml` or :mod:`.commands_text` -> a key tree with
lines; :mod:`.qos` -> effective profiles) and the neutral model (:mod:`.interfaces`,
:mod:`.ports`). Provenance paths: ``""`` -> line 1 of the configuration, ``ports.<p>`` -> the
interface key that names the port, ``ports.<p>.<field>`` -> the line of the setting that
defined the field (the global profile's line when the port inherits it; nothing for pure
NVUE defaults, so the lookup falls back to the port), ``hostname``, ``buffer_pools``,
``watchdog_poll_ms``, and ``unparsed.<i>`` -> the item's own line.
"""

from __future__ import annotations

import re

from rocetune.errors import ParseError
from rocetune.model import BufferPool, Device, Port, Unparsed
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.cumulus import unsupported
from rocetune.platforms.cumulus.commands import (
    NV_CONFIG,
    NV_INTERFACE,
    NV_QOS_ROCE,
    UNSUPPORTED,
    looks_like_nvue_yaml,
)
from rocetune.platforms.cumulus.commands_text import has_set_commands, load_commands
from rocetune.platforms.cumulus.interfaces import read_interfaces
from rocetune.platforms.cumulus.nvue_yaml import load_yaml
from rocetune.platforms.cumulus.operational import OperLink, read_roce_facts
from rocetune.platforms.cumulus.operational import read_interfaces as read_oper
from rocetune.platforms.cumulus.ports import build_port
from rocetune.platforms.cumulus.qos import QosPlan, resolve_qos
from rocetune.platforms.cumulus.qos_common import Ctx
from rocetune.platforms.cumulus.tree import ConfigTree, Issues
from rocetune.snapshot import Snapshot, SourceFile

PLATFORM = "cumulus"


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse a Cumulus snapshot; raise ParseError on unreadable YAML/JSON or no config."""
    config = snapshot.get(NV_CONFIG)
    other = snapshot.get(UNSUPPORTED)
    if config is None:
        if other is None:
            msg = "no `nv config show -o yaml` output in the snapshot"
            raise ParseError(msg, file=snapshot.origin or None)
        return _unsupported_only(other, name, role)
    return _parse_config(snapshot, config, other, name, role)


def _unsupported_only(source: SourceFile, name: str, role: str | None) -> ParseResult:
    items = _unsupported_items(source)
    device = Device(name=name, kind="switch", platform=PLATFORM, role=role, unparsed=items)
    provenance = Provenance()
    provenance.add("", source.path, 1)
    _record_unparsed(provenance, items)
    return ParseResult(device=device, provenance=provenance)


def _unsupported_items(source: SourceFile) -> tuple[Unparsed, ...]:
    label = unsupported.classify(source.text) or "input"
    return unsupported.unparsed_items(source.text, source.path, label)


def _parse_config(
    snapshot: Snapshot, config: SourceFile, other: SourceFile | None, name: str, role: str | None
) -> ParseResult:
    issues = Issues(config.path)
    commands = has_set_commands(config.text) and not looks_like_nvue_yaml(config.text)
    if commands:
        tree = load_commands(config.text, issues)
    else:
        tree = load_yaml(config.text, config.path, issues)
    plan = resolve_qos(tree, issues)
    provenance = Provenance()
    provenance.add("", config.path, 1)
    facts = _facts(tree, plan, "commands" if commands else "yaml")
    oper, oper_file, extra = _operational(snapshot, facts)
    device_ports = _ports(tree, plan, oper, oper_file, issues=issues, provenance=provenance)
    hostname = _hostname(tree, issues, provenance)
    unparsed = (*issues.items, *extra, *(_unsupported_items(other) if other else ()))
    _device_provenance(provenance, tree, plan, config.path)
    _record_unparsed(provenance, unparsed)
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
    )
    return ParseResult(device=device, provenance=provenance)


def _operational(
    snapshot: Snapshot, facts: dict[str, str]
) -> tuple[dict[str, OperLink], str, tuple[Unparsed, ...]]:
    found: dict[str, OperLink] = {}
    oper_file = ""
    extra: list[Unparsed] = []
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
        extra.extend(issues.items)
    return found, oper_file, tuple(extra)


def _ports(
    tree: ConfigTree,
    plan: QosPlan,
    oper: dict[str, OperLink],
    oper_file: str,
    *,
    issues: Issues,
    provenance: Provenance,
) -> dict[str, Port]:
    configs = read_interfaces(Ctx(tree=tree, issues=issues))
    ports: dict[str, Port] = {}
    for port_name in sorted({*configs, *oper}, key=_natural):
        built = build_port(
            port_name, configs.get(port_name), plan, (oper.get(port_name), oper_file), issues
        )
        ports[port_name] = built.port
        provenance.add(f"ports.{port_name}", *built.line)
        for field, (file, line) in built.lines.items():
            provenance.add(f"ports.{port_name}.{field}", file, line)
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
    facts["nvue.roce_mode"] = plan.roce_mode or "off"
    return facts


def _device_provenance(provenance: Provenance, tree: ConfigTree, plan: QosPlan, file: str) -> None:
    pools_line = tree.lines.get(("qos", "traffic-pool")) or plan.roce_line
    if pools_line is not None:
        provenance.add("buffer_pools", file, pools_line)
    if plan.watchdog_line is not None:
        provenance.add("watchdog_poll_ms", file, plan.watchdog_line)


def _record_unparsed(provenance: Provenance, items: tuple[Unparsed, ...]) -> None:
    for index, item in enumerate(items):
        if item.file is not None:
            provenance.add(f"unparsed.{index}", item.file, item.line)


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))
