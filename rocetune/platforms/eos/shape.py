"""The EOS vendor shape (step 1 of 2): what the running-config says, line by line.

Every setting is an :class:`At` (value + the line that set it), so the model step can point
each field at its source. ``None`` for a setting means *the context does not set it* (the
next context in the precedence order, or the EOS default, applies). A setting whose value is
``None`` was explicitly cleared (``no ...``), which also stops the lookup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from rocetune.model import Trust
from rocetune.platforms.eos.values import Threshold

T = TypeVar("T")
IfKind = Literal["ethernet", "port-channel"]


@dataclass(frozen=True, slots=True)
class At(Generic[T]):
    """A value and the line that set it."""

    value: T
    line: int


@dataclass(frozen=True, slots=True)
class Red:
    """One ``random-detect ecn|drop`` line: thresholds and probability."""

    low: Threshold
    high: Threshold
    probability: float | None = None
    text: str = ""
    """The configuration line, for Unparsed items."""


@dataclass(frozen=True, slots=True)
class PortTimer:
    """``priority-flow-control pause watchdog port timer ...`` (ms; poll None = auto)."""

    timeout_ms: float
    recovery_ms: float
    poll_ms: float | None
    forced: bool = False


@dataclass(slots=True)
class QueueConf:
    """One ``tx-queue N`` / ``uc-tx-queue N`` block of an interface or a qos profile."""

    line: int
    strict: At[bool] | None = None
    bandwidth: At[float | None] | None = None
    guaranteed: At[float | None] | None = None
    ecn: At[Red | None] | None = None
    drop: At[Red | None] | None = None


@dataclass(slots=True)
class QosConf:
    """QoS statements of one context: a ``qos profile``, an interface or the global level."""

    name: str
    """The profile name, or the interface name for interface-level statements."""
    line: int
    trust: At[Trust] | None = None
    pfc_on: At[bool] | None = None
    pfc_priorities: dict[int, At[bool]] = field(default_factory=dict)
    """PFC priority -> True for ``no-drop``, False for ``drop`` or ``no ... priority N``."""
    watchdog: At[bool] | None = None
    watchdog_action: At[str | None] | None = None
    watchdog_timer: At[PortTimer | None] | None = None
    queues: dict[int, QueueConf] = field(default_factory=dict)
    profile: At[str] | None = None
    """``service-profile NAME`` (interfaces only)."""


@dataclass(slots=True)
class InterfaceConf(QosConf):
    """One Ethernet or Port-Channel interface: its QoS statements plus link settings."""

    kind: IfKind = "ethernet"
    mtu: At[int] | None = None
    l2_mtu: At[int] | None = None
    speed: At[int | None] | None = None
    """Mb/s; value None = ``speed auto`` / ``no speed``."""
    lanes: int | None = None
    """Lanes the configured speed uses (``speed 100g-4`` -> 4); None when the speed names none."""
    shutdown: At[bool] | None = None
    switchport: At[bool] | None = None
    channel_group: At[int | None] | None = None
    flow_send: At[bool] | None = None
    flow_receive: At[bool] | None = None
    fec: At[str] | None = None


@dataclass(slots=True)
class GlobalConf:
    """Global (top-level) statements that shape every port."""

    dscp_to_tc: dict[int, At[int]] = field(default_factory=dict)
    tc_to_queue: dict[int, At[int]] = field(default_factory=dict)
    cos_to_tc: dict[int, At[int]] = field(default_factory=dict)
    """``qos map cos <list> to traffic-class <tc>`` entries."""
    trust: At[Trust] | None = None
    pfc_all_off: At[bool] | None = None
    watchdog_timeout_ms: At[float] | None = None
    watchdog_recovery_ms: At[float] | None = None
    watchdog_poll_ms: At[float] | None = None
    watchdog_action: At[str] | None = None
    watchdog_override_drop: At[bool] | None = None
    default_mtu: At[int] | None = None
    """``interface defaults`` / ``mtu N``."""
    default_shutdown: At[bool] | None = None
    """``interface defaults`` / ``ethernet`` / ``shutdown``."""
    rewrite_dscp: At[bool] | None = None
    """``qos rewrite dscp``."""


@dataclass(slots=True)
class EosConfig:
    """A whole running-config in vendor shape."""

    hostname: At[str] | None = None
    globals: GlobalConf = field(default_factory=GlobalConf)
    profiles: dict[str, QosConf] = field(default_factory=dict)
    interfaces: dict[str, InterfaceConf] = field(default_factory=dict)
    tunnels: list[str] = field(default_factory=list)
    """Vxlan and Tunnel interfaces (they set the outer DSCP of what they encapsulate)."""
    facts: dict[str, str] = field(default_factory=dict)
