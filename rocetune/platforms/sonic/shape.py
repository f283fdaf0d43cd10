"""The normalised SONiC shape: CONFIG_DB tables as typed values, still in SONiC terms.

Produced by ``norm_*`` from raw tables (step 1, :mod:`.tables`) and turned into the
vendor-neutral model by :mod:`.build` (step 3). Keys with port lists and index ranges are
expanded here (``QUEUE|Ethernet0,Ethernet4|3-4`` becomes four queues), references are
already stripped of the old ``[TABLE|name]`` syntax, and numbers are numbers. Every value
keeps its line; see :mod:`.values` for the tri-state ``None`` / ``At(None)`` / ``At(v)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.platforms.sonic.values import At

OptInt = At[int | None] | None
OptFloat = At[float | None] | None
OptStr = At[str | None] | None
OptBool = At[bool | None] | None
OptIndexes = At[tuple[int, ...] | None] | None


@dataclass
class PortCfg:
    """``PORT|<name>``."""

    name: str
    line: int | None
    speed: OptInt = None
    mtu: OptInt = None
    admin_up: OptBool = None
    pfc_asym: OptBool = None
    fec: OptStr = None
    alias: OptStr = None
    lanes: OptInt = None
    """Number of serdes lanes (the comma-separated items of ``PORT.lanes``)."""


@dataclass
class QosMapDef:
    """One entry of a ``*_MAP`` table: key -> value, with the line of every pair."""

    name: str
    line: int | None
    values: dict[int, int] = field(default_factory=dict)
    lines: dict[int, int | None] = field(default_factory=dict)


@dataclass
class PortQosCfg:
    """``PORT_QOS_MAP|<port>`` (entries with port lists are split per port)."""

    line: int | None
    maps: dict[str, At[str | None]] = field(default_factory=dict)
    """PORT_QOS_MAP field (``dscp_to_tc_map``, ...) -> referenced map name."""
    pfc_enable: OptIndexes = None
    pfcwd_sw_enable: OptIndexes = None


@dataclass
class QueueCfg:
    """``QUEUE|<port>|<queue>``."""

    line: int | None
    scheduler: OptStr = None
    wred_profile: OptStr = None


@dataclass
class SchedulerCfg:
    """``SCHEDULER|<name>``."""

    name: str
    line: int | None
    kind: OptStr = None
    weight: OptFloat = None


@dataclass
class WredCfg:
    """``WRED_PROFILE|<name>``: the green colour, which is what RoCE traffic is."""

    name: str
    line: int | None
    ecn: OptStr = None
    green_enable: OptBool = None
    green_min: OptInt = None
    green_max: OptInt = None
    green_probability: OptFloat = None


@dataclass
class PoolCfg:
    """``BUFFER_POOL|<name>``."""

    name: str
    line: int | None
    direction: OptStr = None
    mode: OptStr = None
    size: OptInt = None
    xoff: OptInt = None
    percentage: OptFloat = None


@dataclass
class ProfileCfg:
    """``BUFFER_PROFILE|<name>``."""

    name: str
    line: int | None
    pool: OptStr = None
    size: OptInt = None
    xon: OptInt = None
    xoff: OptInt = None
    xon_offset: OptInt = None
    dynamic_th: OptInt = None
    static_th: OptInt = None


@dataclass
class BindingCfg:
    """``BUFFER_PG|<port>|<pg>`` or ``BUFFER_QUEUE|<port>|<queue>``."""

    line: int | None
    profile: OptStr = None
    """The profile name; ``"NULL"`` in the dynamic buffer model."""


@dataclass
class WatchdogCfg:
    """``PFC_WD|<port>``."""

    line: int | None
    action: OptStr = None
    detection: OptInt = None
    restoration: OptInt = None


@dataclass
class TunnelCfg:
    """``TUNNEL|<name>``: the fields that decide the outer DSCP of encapsulated packets."""

    name: str
    line: int | None
    dscp_mode: OptStr = None
    encap_tc_to_dscp_map: OptStr = None
    encap_tc_to_queue_map: OptStr = None
    """Dual-ToR tunnel QoS remap: the queue of re-encapsulated (bounced) traffic per TC."""
    decap_tc_to_pg_map: OptStr = None
    """Dual-ToR tunnel QoS remap: the PG of decapsulated traffic per TC."""


@dataclass
class SonicConfig:
    """Everything rocetune reads from one CONFIG_DB namespace."""

    namespace: str | None = None
    present: set[str] = field(default_factory=set)
    """Tables in the file, even when empty (empty = known absent, missing = unknown)."""
    table_lines: dict[str, int | None] = field(default_factory=dict)
    ports: dict[str, PortCfg] = field(default_factory=dict)
    port_refs: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    """Port names used in keys of other tables -> (first table, line)."""
    metadata: dict[str, At[str | None]] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    maps: dict[str, dict[str, QosMapDef]] = field(default_factory=dict)
    port_qos: dict[str, PortQosCfg] = field(default_factory=dict)
    global_dscp: OptStr = None
    queues: dict[str, dict[int, QueueCfg]] = field(default_factory=dict)
    schedulers: dict[str, SchedulerCfg] = field(default_factory=dict)
    wred: dict[str, WredCfg] = field(default_factory=dict)
    pools: dict[str, PoolCfg] = field(default_factory=dict)
    profiles: dict[str, ProfileCfg] = field(default_factory=dict)
    pg_bindings: dict[str, dict[int, BindingCfg]] = field(default_factory=dict)
    queue_bindings: dict[str, dict[int, BindingCfg]] = field(default_factory=dict)
    cable: dict[str, At[float | None]] = field(default_factory=dict)
    watchdogs: dict[str, WatchdogCfg] = field(default_factory=dict)
    poll_interval: OptInt = None
    tunnels: dict[str, TunnelCfg] = field(default_factory=dict)

    def note_port(self, name: str, table: str, line: int | None) -> None:
        """Remember a port name seen in another table's key."""
        self.port_refs.setdefault(name, (table, line))
