"""Shape a host target into an idempotent bash script for ``templates/linux_host/``.

One output per host, ``apply/<device>.host.sh``: ``set -euo pipefail``; first a "before"
capture of ``mlnx_qos``, the DCQCN/CNP sysfs files and ``cma_roce_tos``/``cma_roce_mode`` of
every NIC into a rollback file (``$ROCETUNE_ROLLBACK``, default
``/var/tmp/rocetune-rollback-<device>.txt``); then per NIC: ``mlnx_qos --trust dscp``,
``--dscp2prio set,DSCP,PRIO`` for all 64 DSCPs (the NIC default is DSCP >> 3), ``--pfc``
vector, ``--prio_tc`` (identity), ``--tsa``/``--tcbw`` (the switches' ETS plan),
``--cable_len`` (when a fabric link gives the length), ``echo`` to
``ecn/roce_rp|roce_np/enable/<prio>`` and
``roce_np/cnp_dscp|cnp_802p_prio``, ``cma_roce_tos -t TOS``, ``cma_roce_mode -m 2`` (RoCE v2),
``ip link set mtu``, ``ethtool -A autoneg off rx off tx off`` (PFC replaces global pause).
Every command sets an absolute value, so running the script twice changes nothing more.

The RDMA device of a netdev is looked up when the script runs
(``/sys/class/net/<dev>/device/infiniband/``): the target does not carry it. Every value that
reaches the script is an int or a checked name, and is shell-quoted here (``shlex.quote``).
"""

from __future__ import annotations

import shlex
from typing import Any

from rocetune.platforms.spec import Output, RenderSpec
from rocetune.tune.nic import NicTarget
from rocetune.tune.target import DeviceTarget

ROCE_V2_MODE = 2
"""``cma_roce_mode -m 2``: RoCE v2."""


def q(value: object) -> str:
    """Shell-quoted text of ``value``."""
    return shlex.quote(str(value))


def _ets(t: DeviceTarget) -> tuple[str, str]:
    tsa, bw = [], []
    for tc in range(8):
        s = t.classes.schedulers.get(tc)
        strict = s is not None and s.kind == "strict"
        tsa.append("strict" if strict else "ets")
        bw.append(str(s.weight_pct if s is not None and s.weight_pct is not None else 0))
    return ",".join(tsa), ",".join(bw)


def nic_commands(t: DeviceTarget, nic: NicTarget) -> dict[str, Any]:
    """The quoted arguments of one NIC's commands."""
    tsa, tcbw = _ets(t)
    dev = q(nic.name)
    sysfs = f"/sys/class/net/{nic.name}/ecn"
    dscp = [f"set,{d},{p}" for d, p in sorted(nic.dscp_to_priority.items())]
    return {
        "dev": dev,
        "trust": q(nic.trust),
        "dscp2prio": [q(x) for x in dscp],
        "pfc": q(",".join("1" if f else "0" for f in nic.pfc)),
        "prio_tc": q(",".join(str(t.classes.priority_to_tc[p]) for p in range(8))),
        "tsa": q(tsa),
        "tcbw": q(tcbw),
        "cable": None if nic.cable_m is None else q(int(nic.cable_m)),
        "rp": [
            (q(f"{sysfs}/roce_rp/enable/{p}"), q(f"{sysfs}/roce_np/enable/{p}"))
            for p in nic.dcqcn_priorities
        ],
        "cnp_dscp": (q(nic.cnp_dscp), q(f"{sysfs}/roce_np/cnp_dscp")),
        "cnp_prio": (q(nic.cnp_priority), q(f"{sysfs}/roce_np/cnp_802p_prio")),
        "tos": q(nic.roce_tos),
        "mode": q(ROCE_V2_MODE),
        "mtu": q(nic.mtu),
        "reasons": [r.line() for r in nic.reasons],
    }


def build_context(t: DeviceTarget, features: frozenset[str], full: bool) -> dict[str, Any]:
    """The context of ``linux_host/host.sh.j2`` (every NIC feature is one script)."""
    del features, full
    return {
        "device": t.name,
        "rollback": q(f"/var/tmp/rocetune-rollback-{t.name}.txt"),
        "nics": [nic_commands(t, nic) for nic in t.nics.values()],
        "devs": [q(n) for n in t.nics],
        "device_reasons": [r.line() for r in t.reasons],
        "comments": list(t.problems),
    }


def capability_problems(t: DeviceTarget) -> list[str]:
    """Why the script cannot express ``t``; empty when it can."""
    return [] if t.nics else ["the host has no NIC port to configure"]


RENDER = RenderSpec(
    platform="linux_host",
    outputs=(Output("linux_host/host.sh.j2", "apply/{device}.host.sh"),),
    max_lossless_priorities=8,
    capability=capability_problems,
    build=build_context,
)
"""mlnx_qos takes a PFC flag per priority."""
