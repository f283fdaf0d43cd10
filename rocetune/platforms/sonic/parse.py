"""Parse a SONiC snapshot (the running CONFIG_DB as JSON) into a Device.

The parse stages (:data:`~rocetune.platforms.base.PARSE_STAGES`): :func:`read` (the JSON
into raw tables with lines, :mod:`.tables`), :func:`bind` (the ``norm_*`` modules: the typed
SONiC shape of :mod:`.shape`, objects bound to the ports that name them), :func:`build` (the
vendor-neutral model, :mod:`.build` and :mod:`.build_port`) and ``account``. Only invalid
JSON raises
(:class:`~rocetune.errors.ParseError` with file and line); every other problem becomes an
:class:`~rocetune.model.Unparsed` item and the parse carries on.

Multi-ASIC output (``{"localhost": ..., "asic0": ...}``) is merged into one device: the
ASIC namespaces first, then ``localhost``; a port already seen in an ASIC namespace is not
taken again from ``localhost``, and a port in two ASIC namespaces is reported. Pool names
of ASIC namespaces are prefixed (``asic0:ingress_lossless_pool``) so they stay apart.

Provenance paths: ``""`` (the file, line 1), ``ports.<p>`` (the PORT key, or the first
entry naming the port), ``ports.<p>.<field>[.<index>]`` (the entry or field that defined
it), ``buffer_pools.<name>``, ``watchdog_poll_ms``, ``hostname``, ``asic`` and
``tunnel_dscp_rewrite.<name>``, ``tunnel_lossless_priorities`` and ``unparsed.<i>``;
``lldp`` and ``lldp.<i>`` point into the optional LLDP output
(:func:`~rocetune.platforms.common.lldpctl.with_lldp`); ``ports.<p>.pfc_oper`` points into the
optional ``show pfc priority`` output (:mod:`.pfc_priority`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.errors import ParseError
from rocetune.model import BufferPool, Device, Port, Unparsed
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.jsonpos import NOT_DECODED, parse_json
from rocetune.platforms.common.lldpctl import with_lldp
from rocetune.platforms.common.unparsed import account
from rocetune.platforms.sonic.bindings import bind_referenced
from rocetune.platforms.sonic.build import (
    build_pools,
    build_ports,
    build_tunnel_priorities,
    build_tunnels,
    device_facts,
    natural_key,
)
from rocetune.platforms.sonic.chassis import bind_system_ports
from rocetune.platforms.sonic.commands import CONFIG_DB, LLDP, PFC_PRIORITY
from rocetune.platforms.sonic.detect import NOT_HANDED, handed_over, json_body
from rocetune.platforms.sonic.norm_buffers import normalise_buffers
from rocetune.platforms.sonic.norm_ports import normalise_ports
from rocetune.platforms.sonic.norm_qos import normalise_qos
from rocetune.platforms.sonic.pfc_priority import with_pfc_priority
from rocetune.platforms.sonic.resolve import Ctx
from rocetune.platforms.sonic.runtime_buffers import headroom_params, with_runtime_pgs
from rocetune.platforms.sonic.shape import SonicConfig
from rocetune.platforms.sonic.tables import RawDb, read_document, report_unmodelled
from rocetune.platforms.sonic.values import Problems
from rocetune.snapshot import Snapshot


@dataclass
class _Merged:
    hostname: str | None = None
    asic: str | None = None
    ports: dict[str, Port] = field(default_factory=dict)
    pools: dict[str, BufferPool] | None = None
    poll_ms: float | None = None
    facts: dict[str, str] = field(default_factory=dict)
    port_lines: dict[str, int | None] = field(default_factory=dict)
    tunnels: dict[str, dict[int, int] | None] | None = None
    tunnel_prios: tuple[int, ...] | None = None


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse the config_db output of a snapshot."""
    source = snapshot.get(CONFIG_DB)
    if source is None:
        msg = f"no output of {CONFIG_DB.command!r} ({CONFIG_DB.filename}) in the snapshot"
        raise ParseError(msg, file=snapshot.origin or None)
    running = snapshot.meta.collected_at is not None
    parsed = parse_text(source.text, source.path, name, role, running=running)
    result = with_lldp(parsed, snapshot, LLDP)
    return with_pfc_priority(result, snapshot, PFC_PRIORITY)


def read_configs(text: str, file: str) -> tuple[list[SonicConfig], Problems]:
    """Read and bind: JSON text -> the normalised SONiC shape, one per namespace."""
    pr = Problems(file)
    return [bind(db, pr) for db in read(text, file, pr)], pr


def read(text: str, file: str, pr: Problems) -> list[RawDb]:
    """Read stage: CONFIG_DB JSON text -> raw tables with lines, one set per namespace (ASIC
    namespaces first); ParseError when it is not JSON."""
    body = json_body(text)
    decoded = handed_over(body.lstrip("\ufeff"))  # what the sniff decoded, when it did
    doc = parse_json(body, file, decoded=NOT_DECODED if decoded is NOT_HANDED else decoded)
    return sorted(read_document(doc, pr), key=_namespace_order)


def parse_text(
    text: str, file: str, name: str, role: str | None, *, running: bool = False
) -> ParseResult:
    """Parse CONFIG_DB JSON text; raise ParseError only when it is not JSON.

    ``running``: the text is the switch's running CONFIG_DB (a snapshot ``rocetune collect``
    took: its meta.json has ``collected_at``) -> ``Device.config_source`` ``running``; any
    other file (saved or generated) is ``rendered``, and SONiC's load-time defaults (the
    PFC watchdog's ``default_pfcwd_status``) apply to what it leaves out.
    """
    configs, pr = read_configs(text, file)
    return build(configs, pr, file, name, role, running=running)


def bind(db: RawDb, pr: Problems) -> SonicConfig:
    """Bind stage: one set of raw tables -> the typed SONiC shape (also used by platforms
    that write CONFIG_DB tables from another syntax, such as the Enterprise SONiC CLI)."""
    return _normalise(db, pr)


def build(
    configs: list[SonicConfig],
    pr: Problems,
    file: str,
    name: str,
    role: str | None,
    *,
    running: bool = False,
    platform: str = "sonic",
    extra: tuple[Unparsed, ...] = (),
) -> ParseResult:
    """Build stage: normalised tables -> the device; ``extra`` items come first in
    ``unparsed`` (then the account stage)."""
    prov = Provenance()
    prov.add("", file, 1)
    multi = any(cfg.namespace is not None for cfg in configs)
    merged = _Merged()
    for cfg in configs:
        part = _namespace(cfg, pr, prov, (file, multi, running))
        _merge(merged, part, cfg.namespace, pr)
    unparsed = (*extra, *bind_referenced(pr.result(), configs))
    account(prov, unparsed, file=file)
    device = Device(
        name=name,
        kind="switch",
        platform=platform,
        role=role,
        hostname=merged.hostname,
        asic=merged.asic,
        ports=dict(sorted(merged.ports.items(), key=lambda kv: natural_key(kv[0]))),
        buffer_pools=merged.pools,
        headroom_params=headroom_params(merged.facts),
        watchdog_poll_ms=merged.poll_ms,
        unparsed=unparsed,
        facts=merged.facts,
        tunnel_dscp_rewrite=merged.tunnels,
        config_source="running" if running else "rendered",
        tunnel_lossless_priorities=merged.tunnel_prios,
    )
    return ParseResult(device=device, provenance=prov)


def _namespace_order(db: RawDb) -> tuple[int, tuple[tuple[int, int | str], ...]]:
    ns = db.namespace or ""
    return (1 if ns == "localhost" else 0), natural_key(ns)


def _normalise(db: RawDb, pr: Problems) -> SonicConfig:
    report_unmodelled(db, pr)
    remote = bind_system_ports(db, pr)
    cfg = SonicConfig(
        namespace=db.namespace, present=set(db.table_lines), table_lines=dict(db.table_lines)
    )
    if remote:
        cfg.facts["chassis.remote_keys"] = str(remote)
    normalise_ports(db, cfg, pr)
    normalise_qos(db, cfg, pr)
    normalise_buffers(db, cfg, pr)
    return cfg


def _namespace(
    cfg: SonicConfig, pr: Problems, prov: Provenance, how: tuple[str, bool, bool]
) -> _Merged:
    file, multi, running = how
    ns = cfg.namespace
    prefix = f"{ns}:" if multi and ns not in (None, "localhost") else ""
    ctx = Ctx(cfg=cfg, pr=pr, prov=prov, file=file, pool_prefix=prefix)
    ports, poll = build_ports(ctx, running=running)
    hostname, asic, facts = device_facts(ctx)
    ports = with_runtime_pgs(ctx, ports, facts)
    lines = {
        n: cfg.ports[n].line if n in cfg.ports else cfg.port_refs.get(n, ("", None))[1]
        for n in ports
    }
    pools, tunnels = build_pools(ctx), build_tunnels(ctx)
    merged = _Merged(hostname, asic, ports, pools, poll, facts, lines, tunnels)
    merged.tunnel_prios = build_tunnel_priorities(ctx)
    return merged


def _merge(into: _Merged, part: _Merged, namespace: str | None, pr: Problems) -> None:
    is_host = namespace in (None, "localhost")
    into.hostname = part.hostname if (is_host and part.hostname) else into.hostname
    into.hostname = into.hostname or part.hostname
    into.asic = into.asic or part.asic
    into.facts = {**into.facts, **part.facts} if is_host else {**part.facts, **into.facts}
    for name, port in part.ports.items():
        if name not in into.ports:
            into.ports[name] = port
        elif not is_host:
            line = part.port_lines.get(name)
            pr.add(
                f"{namespace} {name}",
                "port appears in two ASIC namespaces",
                line,
                ports=(name,),
                features=("ports",),
            )
    if part.pools is not None:
        into.pools = {**(into.pools or {}), **part.pools}
    if into.poll_ms is None:
        into.poll_ms = part.poll_ms
    if part.tunnels is not None:
        into.tunnels = {**(into.tunnels or {}), **part.tunnels}
    if part.tunnel_prios is not None:
        into.tunnel_prios = tuple(sorted({*(into.tunnel_prios or ()), *part.tunnel_prios}))
