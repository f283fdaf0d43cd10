"""The vendor shape of an Onyx running-config: what each command set, with its line.

:mod:`.reader` fills it from the statements of :mod:`.lines`; :mod:`.ports` turns it into the
neutral model. Interface names are the ones Onyx shows: ``Eth1/1``, ``Eth1/1/2`` (a split
port), ``Po1`` (port-channel), ``Mpo1`` (mlag-port-channel).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from rocetune.model import Trust

T = TypeVar("T")
IfKind = Literal["ethernet", "port-channel", "mlag-port-channel"]
PREFIX: dict[str, str] = {"ethernet": "Eth", "port-channel": "Po", "mlag-port-channel": "Mpo"}
"""Interface kind -> the short name prefix Onyx prints."""


@dataclass(frozen=True)
class At(Generic[T]):
    """A value and the line that set it."""

    value: T
    line: int


@dataclass(frozen=True)
class Congestion:
    """``traffic-class N congestion-control <mode> minimum-... maximum-...``."""

    mode: Literal["ecn", "red", "both"]
    relative: bool
    """True for ``minimum-relative``/``maximum-relative`` (percent of the queue's buffer)."""
    minimum: int
    maximum: int
    """Kilobytes (``-absolute``) or percent (``-relative``)."""


@dataclass(frozen=True)
class Ets:
    """``traffic-class N dcb ets strict|wrr W``."""

    kind: Literal["strict", "wrr"]
    weight: int | None = None


@dataclass
class InterfaceConf:
    """What the configuration sets for one interface."""

    name: str
    kind: IfKind
    line: int
    """The first line that names the interface."""
    trust: At[Trust] | None = None
    pfc_mode: At[Literal["on", "auto"]] | None = None
    mtu: At[int] | None = None
    speed: At[int] | None = None
    shutdown: At[bool] | None = None
    split: At[int] | None = None
    """``module-type qsfp-split-N``: the port is broken out into N subports."""
    member_of: At[str] | None = None
    """The (mlag-)port-channel of a member port (``Po1``, ``Mpo2``)."""
    congestion: dict[int, At[Congestion | None]] = field(default_factory=dict)
    """Traffic class -> its congestion control (None: ``no traffic-class N congestion-control``)."""
    ets: dict[int, At[Ets]] = field(default_factory=dict)
    bind: dict[int, At[int]] = field(default_factory=dict)
    """Switch priority -> traffic class (``traffic-class T bind switch-priority P...``)."""
    rewrite_dscp: At[bool] | None = None
    link_pause: At[bool] | None = None


@dataclass
class Pool:
    """``traffic pool <name> ...``."""

    name: str
    line: int
    type: At[str] | None = None
    percent: At[float] | None = None
    priorities: At[tuple[int, ...]] | None = None


@dataclass
class OnyxConfig:
    """Everything the reader understood."""

    hostname: At[str] | None = None
    pfc_enabled: At[bool] | None = None
    """``dcb priority-flow-control enable [force]`` (PFC is off globally by default)."""
    pfc_priorities: dict[int, int] = field(default_factory=dict)
    """Priority -> line of ``dcb priority-flow-control priority N enable``."""
    roce: At[str] | None = None
    """``roce [lossless|semi-lossless|lossy]`` (bare ``roce`` = lossless); ``none`` after
    ``no roce``."""
    lldp: At[bool] | None = None
    pools: dict[str, Pool] = field(default_factory=dict)
    interfaces: dict[str, InterfaceConf] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
