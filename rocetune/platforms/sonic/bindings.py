"""Bind unparsed items of referenced objects (maps, profiles, schedulers) to the ports that use
them, once the whole file is normalised (:mod:`.unparsed` says which tables bind which)."""

from __future__ import annotations

from collections.abc import Iterable

from rocetune.model import Unparsed
from rocetune.platforms.sonic.shape import SonicConfig
from rocetune.platforms.sonic.unparsed import BINDING_TABLE, REFERENCED, parse_item


def bind_referenced(items: Iterable[Unparsed], configs: Iterable[SonicConfig]) -> list[Unparsed]:
    """Give items of referenced objects (maps, profiles, schedulers) the ports that use them.

    An object no port references applies to no port (``()``) when the file holds the table
    that would bind it; in a fragment without that table it keeps ``None`` (any port may
    use it on the switch).
    """
    cfgs = list(configs)
    users: dict[tuple[str, str], tuple[str, ...]] | None = None  # built when first needed
    present = set().union(*(c.present for c in cfgs)) if cfgs else set()
    out: list[Unparsed] = []
    for item in items:
        table, key, _field = parse_item(item.item)
        bound: tuple[str, ...] | None = None
        if item.ports is None and key is not None and table in BINDING_TABLE:
            if users is None:
                users = _users(cfgs)
            bound = users.get((table, key))
            if bound is None and BINDING_TABLE[table] in present and table != "BUFFER_PROFILE":
                bound = ()
        out.append(item if bound is None else item.model_copy(update={"ports": bound}))
    return out


def _users(configs: list[SonicConfig]) -> dict[tuple[str, str], tuple[str, ...]]:
    acc: dict[tuple[str, str], set[str]] = {}

    def use(table: str, name: str | None, port: str) -> None:
        if name is not None:
            acc.setdefault((table, name), set()).add(port)

    for cfg in configs:
        for port, qos in cfg.port_qos.items():
            for table, fields in REFERENCED.items():
                for f in fields:
                    ref = qos.maps.get(f)
                    use(table, ref.value if ref is not None else None, port)
        if cfg.global_dscp is not None:
            for port in cfg.ports or cfg.port_refs:
                use("DSCP_TO_TC_MAP", cfg.global_dscp.value, port)
        for port, queues in cfg.queues.items():
            for q in queues.values():
                use("SCHEDULER", q.scheduler.value if q.scheduler else None, port)
                use("WRED_PROFILE", q.wred_profile.value if q.wred_profile else None, port)
        for bindings in (cfg.pg_bindings, cfg.queue_bindings):
            for port, per in bindings.items():
                for b in per.values():
                    use("BUFFER_PROFILE", b.profile.value if b.profile else None, port)
    return {k: tuple(sorted(v)) for k, v in acc.items()}
