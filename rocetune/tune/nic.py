"""The target of one host NIC port: trust, dscp2prio, PFC vector, cable, DCQCN, CNP, ToS, MTU.

Vendor-neutral (the Linux host renderer turns it into mlnx_qos, sysfs and cma_roce_tos):

- trust DSCP and the switches' DSCP map (RT101, RT702);
- PFC on exactly the lossless priorities (RT201, RT202);
- cable length: the fabric link's length at the netdev (None when no link is known);
- DCQCN reaction and notification points on every lossless priority, unless
  ``intent.congestion_control`` is ``none`` (RT311, RT312);
- CNP DSCP and 802.1p priority from the intent (RT313, RT314);
- rdma_cm default ToS = first RoCE DSCP << 2 | ECT(0) (RT105: ECN-capable);
- netdev MTU = ``intent.mtu.host`` (RT602 needs >= RoCE MTU + 96 B).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rocetune.model import Intent, NicPort
from rocetune.tune.classes import ClassPlan
from rocetune.tune.reason import Reason

ECT0 = 0b10
"""ECN-capable transport (0), the ECN bits RoCE v2 senders set (RFC 3168)."""


@dataclass(frozen=True)
class NicTarget:
    """One NIC port's target."""

    name: str
    trust: str
    dscp_to_priority: dict[int, int]
    pfc: tuple[bool, ...]
    """Eight flags, priority 0..7 (mlnx_qos ``--pfc`` order)."""
    cable_m: float | None
    dcqcn_priorities: tuple[int, ...]
    """Priorities with DCQCN RP and NP enabled (empty when congestion_control is none)."""
    cnp_dscp: int
    cnp_priority: int
    roce_tos: int
    mtu: int
    reasons: tuple[Reason, ...]


def nic_target(nic: NicPort, intent: Intent, classes: ClassPlan, cable: float | None) -> NicTarget:
    """The target of ``nic`` (its parsed state is not needed: the target is the intent's)."""
    lossless = classes.lossless
    dcqcn = lossless if intent.congestion_control == "dcqcn" else ()
    tos = intent.roce_dscp[0] << 2 | ECT0
    cable_m = None if cable is None else float(math.ceil(cable))
    pfc = tuple(p in lossless for p in range(8))
    name = nic.name
    reasons = (
        Reason(name, "trust", "dscp", "RoCE is classified by DSCP end to end (RT101)"),
        Reason(
            name,
            "PFC vector",
            ",".join("1" if f else "0" for f in pfc),
            "intent.lossless_priorities",
        ),
        Reason(
            name,
            "DCQCN RP/NP priorities",
            ",".join(map(str, dcqcn)) or "none",
            f"intent.congestion_control {intent.congestion_control}",
        ),
        Reason(
            name, "CNP", f"DSCP {intent.cnp.dscp}, priority {intent.cnp.priority}", "intent.cnp"
        ),
        Reason(name, "RoCE ToS", str(tos), f"RoCE DSCP {intent.roce_dscp[0]} << 2 | ECT(0) {ECT0}"),
        Reason(name, "MTU", f"{intent.mtu.host} B", "intent.mtu.host"),
        Reason(
            name,
            "cable length",
            "unknown" if cable_m is None else f"{cable_m:g} m",
            "the fabric link's length" if cable_m is not None else "no fabric link known",
        ),
    )
    return NicTarget(
        name=name,
        trust="dscp",
        dscp_to_priority=dict(classes.dscp_to_priority),
        pfc=pfc,
        cable_m=cable_m,
        dcqcn_priorities=dcqcn,
        cnp_dscp=intent.cnp.dscp,
        cnp_priority=intent.cnp.priority,
        roce_tos=tos,
        mtu=intent.mtu.host,
        reasons=reasons,
    )
