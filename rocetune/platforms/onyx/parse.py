"""Onyx snapshot -> :class:`~rocetune.model.Device` plus provenance.

The parse stages (:data:`~rocetune.platforms.base.PARSE_STAGES`): :func:`read` (text ->
statements with their interface context, :mod:`.lines`), :func:`bind` (statements ->
:class:`~rocetune.platforms.onyx.shape.OnyxConfig`, :mod:`.reader`), :func:`build` (the
neutral ports, :mod:`.ports`) and ``account``.

Provenance paths: ``""`` -> line 1, ``hostname``, ``ports.<p>`` -> the first line naming
the port (its split parent's or its port-channel's for ports only seen there),
``ports.<p>.<field>`` -> the line that set the value (the ``roce`` line for values from the
documented defaults of the roce command), ``buffer_pools.<name>`` and ``unparsed.<i>``.
"""

from __future__ import annotations

from rocetune.errors import ParseError
from rocetune.model import BufferPool, Device, Port
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.cli_tree import Issues
from rocetune.platforms.common.unparsed import account
from rocetune.platforms.common.unread import blocked_features
from rocetune.platforms.onyx.commands import RUNNING_CONFIG
from rocetune.platforms.onyx.lines import Lines, read_lines
from rocetune.platforms.onyx.ports import build_port, port_names
from rocetune.platforms.onyx.reader import MTU_MAX, read_config
from rocetune.platforms.onyx.roce import APP_TLV, MODES
from rocetune.platforms.onyx.shape import OnyxConfig
from rocetune.snapshot import Snapshot

PLATFORM = "onyx"


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse an Onyx snapshot; ParseError when it has no running-config."""
    source = snapshot.get(RUNNING_CONFIG) or next(iter(snapshot), None)
    if source is None:
        msg = "no `show running-config` output in the snapshot"
        raise ParseError(msg, file=snapshot.origin or None)
    issues = Issues(source.path)
    lines = read(source.text)
    config = bind(lines, issues, source.text)
    provenance = Provenance()
    provenance.add("", source.path, 1)
    ports = build(config, issues, provenance, source.path)
    if config.hostname is not None:
        provenance.add("hostname", source.path, config.hostname.line)
    pools = _pools(config, provenance, source.path)
    account(provenance, issues.items, file=source.path)
    roce = MODES.get(config.roce.value) if config.roce is not None else None
    if config.roce is not None:
        provenance.add("lldp_app_tlvs", source.path, config.roce.line)
    facts = dict(config.facts)
    if roce is not None:
        facts["onyx.roce_defaults"] = roce.summary()
    device = Device(
        name=name,
        kind="switch",
        platform=PLATFORM,
        role=role,
        hostname=config.hostname.value if config.hostname else lines.prompt_host,
        ports=ports,
        buffer_pools=pools,
        unparsed=tuple(issues.items),
        tunnel_dscp_rewrite=None,
        lldp_app_tlvs=(APP_TLV,) if roce is not None else None,
        facts=dict(sorted(facts.items())),
        mtu_max=MTU_MAX,
    )
    return ParseResult(device=device, provenance=provenance)


def read(text: str) -> Lines:
    """Read stage: the text's statements with their interface context."""
    return read_lines(text)


def bind(lines: Lines, issues: Issues, text: str) -> OnyxConfig:
    """Bind stage: the statements -> the Onyx configuration (the first lines tell the
    release)."""
    return read_config(lines, issues, "\n".join(text.splitlines()[:12]))


def build(config: OnyxConfig, issues: Issues, provenance: Provenance, file: str) -> dict[str, Port]:
    """Build stage: the neutral ports (unread lines keep their defaults unknown)."""
    blocked = blocked_features(issues.items)
    ports: dict[str, Port] = {}
    for port_name in port_names(config):
        built = build_port(port_name, config, blocked)
        ports[port_name] = built.port
        provenance.add(f"ports.{port_name}", file, _port_line(port_name, config))
        for field, line in built.lines.items():
            provenance.add(f"ports.{port_name}.{field}", file, line)
    return ports


def _port_line(name: str, config: OnyxConfig) -> int:
    conf = config.interfaces.get(name)
    if conf is None and name.count("/") == 2:
        conf = config.interfaces.get(name.rpartition("/")[0])
    return conf.line if conf is not None else 1


def _pools(config: OnyxConfig, provenance: Provenance, path: str) -> dict[str, BufferPool] | None:
    if not config.pools:
        return None
    out: dict[str, BufferPool] = {}
    for name, pool in config.pools.items():
        kind = pool.type.value if pool.type else "lossy"
        out[name] = BufferPool(
            name=name,
            percent=pool.percent.value if pool.percent else None,
            lossless=kind == "lossless",
        )
        provenance.add(f"buffer_pools.{name}", path, pool.line)
    return out
