"""Documented NVUE QoS defaults and the ``nv set qos roce`` expansion, as data.

Every value names its source (ids as in docs/roce-knowledge.md §0, plus the extra ids in
:data:`SOURCES`). The parser starts from these values and lets the applied configuration
override them key by key (see :mod:`.qos`). Values NVIDIA does not document (for example the
traffic-pool split in RoCE lossless mode) are ``None`` here and stay unknown in the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from rocetune.model.device import Trust

SOURCES: Final[dict[str, str]] = {
    "S1": "CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/"
    "Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md (Default RoCE Configuration table,"
    " `nv show qos roce` example)",
    "S2": "CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/"
    "Quality-of-Service/_index.md (classification, PFC, watchdog, ECN, egress queues and "
    "scheduler, traffic pools, packet trimming `lossy-multi-tc` show output)",
    "S2-50": "CumulusNetworks/docs content/cumulus-linux-50/Layer-1-and-Switch-Ports/"
    "Buffer-and-Queue-Management/_index.md ('By default 802.1p COS markings are trusted'; one "
    "lossless PG per port)",
    "NVUE-QOS": "CumulusNetworks/docs content/nvue-reference/Set-and-Unset-Commands/QoS.md "
    "(roce cable-length default 100 m, roce mode default lossless, pfc-watchdog default off)",
    "CL-PORT": "CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/"
    "Interface-Configuration-and-Management/Switch-Port-Attributes.md (default MTU 9216; bond "
    "members inherit the bond MTU)",
    "KB-S2": "docs/roce-knowledge.md §2.1 citing S2 qos_infra.conf (lossless PG alpha 1)",
}
"""Source ids used below."""

SchedKind = Literal["strict", "dwrr"]


@dataclass(frozen=True)
class EcnDefault:
    """One traffic class of a congestion-control profile."""

    ecn: bool
    red: bool
    min_bytes: int | None
    max_bytes: int | None
    probability: float | None


@dataclass(frozen=True)
class RoceDefaults:
    """What ``nv set qos roce mode <mode>`` configures when nothing overrides it."""

    trust: Trust
    dscp_to_sp: dict[int, int]
    sp_to_tc: dict[int, int]
    schedulers: dict[int, tuple[SchedKind, float | None]]
    ecn: dict[int, EcnDefault]
    pfc_priorities: tuple[int, ...]
    """Switch priorities with PFC (rx and tx); empty in the lossy modes."""
    pools: dict[str, tuple[float | None, tuple[int, ...]]]
    """Traffic pool -> (memory percent or None when undocumented, switch priorities)."""
    source: str


DEFAULT_MTU: Final = 9216
"""swp MTU when none is configured (CL-PORT: "ifupdown2 assigns 9216")."""

DEFAULT_TRUST: Final[Trust] = "pcp"
"""Trust without ``qos roce`` (S2-50: 802.1p trusted by default)."""

DEFAULT_DSCP_TO_SP: Final[dict[int, int]] = {dscp: dscp >> 3 for dscp in range(64)}
"""DSCP -> switch priority when DSCP is trusted: 0-7 -> 0 ... 56-63 -> 7 (S2 table, S1 show)."""

DEFAULT_SP_TO_TC: Final[dict[int, int]] = {sp: sp for sp in range(8)}
"""Egress queue mapping: switch priority n -> traffic class (egress queue) n (S2)."""

DEFAULT_SCHEDULERS: Final[dict[int, tuple[SchedKind, float | None]]] = {
    tc: ("dwrr", 12.0 if tc % 2 == 0 else 13.0) for tc in range(8)
}
"""default-global egress scheduler: DWRR 12 % on TC 0,2,4,6 and 13 % on 1,3,5,7 (S2)."""

ECN_DEFAULT_ENTRY: Final = EcnDefault(
    ecn=True, red=False, min_bytes=150_000, max_bytes=1_500_000, probability=100.0
)
"""default-global congestion control on TC0: 150000-1500000 B, RED off (S2)."""

DEFAULT_ECN: Final[dict[int, EcnDefault]] = {0: ECN_DEFAULT_ENTRY}

ECN_NEW_ENTRY: Final = EcnDefault(
    ecn=True, red=False, min_bytes=None, max_bytes=None, probability=100.0
)
"""A traffic class newly added to a congestion-control profile: S2 shows ECN enable and
probability 100 for TCs configured with thresholds and RED only; thresholds stay unknown."""

PFC_RX_TX_DEFAULT: Final = True
"""PFC profile rx/tx default "enable" (S2 "All PFC commands")."""

PFC_CABLE_LENGTH_M: Final = 10.0
"""PFC profile cable-length default 10 m (S2)."""

ROCE_CABLE_LENGTH_M: Final = 100.0
"""``qos roce cable-length`` default 100 m (NVUE-QOS; S1 `nv show qos roce` shows 100)."""

WATCHDOG_POLL_MS: Final = 100.0
"""``qos pfc-watchdog polling-interval`` default (S2)."""

WATCHDOG_ROBUSTNESS: Final = 3
"""``qos pfc-watchdog robustness`` default, in polling intervals (S2)."""

DEFAULT_POOLS: Final[dict[str, tuple[float | None, tuple[int, ...]]]] = {
    "default-lossy": (100.0, tuple(range(8))),
}
"""Without RoCE, 100 % of the buffer goes to default-lossy (S2 Flow Control Buffers)."""

LOSSLESS_POOLS: Final = frozenset({"roce-lossless", "default-lossless"})
"""The pools that carry lossless traffic; only one may exist at a time (S2 Traffic Pools)."""

LOSSLESS_PG_ALPHA: Final = 1.0
"""Lossless PG shared-buffer alpha in qos_infra.conf (KB-S2)."""

ROCE_APP_TLV: Final = (4791, 3)
"""The LLDP application TLV ``qos roce`` advertises: UDP port 4791 -> priority 3 (S1 Default
RoCE Configuration table, both modes; S1 `nv show qos roce` lldp-app-tlv)."""

ROCE_APP_TLV_MODES: Final = frozenset({"lossless", "lossless-single-ipool", "lossy"})
"""RoCE modes that advertise :data:`ROCE_APP_TLV`; ``lossy-multi-tc`` is not documented."""

ROCE_MODE_DEFAULT: Final = "lossless"
"""``nv set qos roce`` equals ``nv set qos roce mode lossless`` (S1, NVUE-QOS)."""

_ROCE_SP_TO_TC = {sp: sp if sp in (3, 6) else 0 for sp in range(8)}
_ROCE_SCHED: dict[int, tuple[SchedKind, float | None]] = {
    0: ("dwrr", 50.0),
    3: ("dwrr", 50.0),
    6: ("strict", None),
}
_ROCE_ECN = {0: ECN_DEFAULT_ENTRY, 3: ECN_DEFAULT_ENTRY}
"""ECN 150000-1500000 B on TC3 (S1 table) next to the default TC0 entry (S1 show: 0,3)."""

_LOSSLESS = RoceDefaults(
    trust="both",
    dscp_to_sp=DEFAULT_DSCP_TO_SP,
    sp_to_tc=_ROCE_SP_TO_TC,
    schedulers=_ROCE_SCHED,
    ecn=_ROCE_ECN,
    pfc_priorities=(3,),
    pools={"default-lossy": (None, (0, 1, 2, 4, 5, 6, 7)), "roce-lossless": (None, (3,))},
    source="S1",
)
_LOSSY = RoceDefaults(
    trust="both",
    dscp_to_sp=DEFAULT_DSCP_TO_SP,
    sp_to_tc=_ROCE_SP_TO_TC,
    schedulers=_ROCE_SCHED,
    ecn=_ROCE_ECN,
    pfc_priorities=(),
    pools=DEFAULT_POOLS,
    source="S1",
)
_TRIM_DSCP_GROUPS = {
    0: (0, *range(7, 11), *range(41, 64)),
    1: (1, 2),
    2: (3, 4),
    3: (5, 6),
    4: tuple(range(11, 41)),
}
_MULTI_TC = RoceDefaults(
    trust="both",
    dscp_to_sp={dscp: sp for sp, group in _TRIM_DSCP_GROUPS.items() for dscp in group},
    sp_to_tc=DEFAULT_SP_TO_TC,
    schedulers={
        tc: ("dwrr", pct) for tc, pct in enumerate((4.0, 8.0, 18.0, 22.0, 22.0, 22.0, 4.0, 0.0))
    },
    ecn={tc: EcnDefault(True, False, None, None, 5.0) for tc in (1, 2, 3)},
    pfc_priorities=(),
    pools=DEFAULT_POOLS,
    source="S2",
)
"""``lossy-multi-tc`` from the S2 `nv show qos roce` example; its thresholds are shown only
rounded (163.00 KB / 234.00 KB), so they stay unknown."""

ROCE_MODES: Final[dict[str, RoceDefaults]] = {
    "lossless": _LOSSLESS,
    "lossless-single-ipool": _LOSSLESS,
    "lossy": _LOSSY,
    "lossy-multi-tc": _MULTI_TC,
}
"""The documented RoCE modes (S1, NVUE-QOS); ``lossless-single-ipool`` shares one ingress
pool between lossy and lossless traffic but programs the same classes, PFC and ECN (S1 show)."""
