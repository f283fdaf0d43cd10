"""DCQCN parameter ranges and vendor defaults of NVIDIA ConnectX-4 and later (RT315).

Pure data (roce-knowledge.md §2.8, from S22, the DOCA DCQCN parameter table; upstream debugfs
names from S24). Keys are the MLNX_OFED sysfs names under
``/sys/class/net/<if>/ecn/roce_rp/`` and ``roce_np/``; :data:`UPSTREAM_NAMES` maps the
upstream ``/sys/kernel/debug/mlx5/<pci>/cc_params/`` names onto them.

Only parameters with a documented range *and* default are listed. The rate-increase knobs
(``rpg_time_reset``, ``rpg_byte_reset``, ``rpg_threshold``, ``rpg_ai_rate``, ``rpg_hai_rate``,
``rpg_max_rate``, ``clamp_tgt_rate*``) and the CNP pacing of the notification point are left
out: §2.8 has their values only from a secondary source (S48, marked "verify on a NIC").
"""

from __future__ import annotations

from dataclasses import dataclass

UINT32_MAX = 2**32 - 1


@dataclass(frozen=True)
class DcqcnParam:
    """One DCQCN parameter: its documented range, vendor default and meaning."""

    name: str
    """MLNX_OFED sysfs name (``ecn/roce_rp/<name>``)."""
    meaning: str
    low: int
    high: int | None
    """Upper bound; None = the port's line rate in Mb/s."""
    default: int
    unit: str = ""
    """``us`` (microseconds), ``Mb/s``, ``%`` or empty for a plain number."""
    upstream: str = ""
    """The upstream debugfs ``cc_params`` name."""

    def fmt(self, value: int) -> str:
        """``value`` with its unit (``4 us``, ``50 %``, ``1019``)."""
        return f"{value} {self.unit}" if self.unit else str(value)

    def range_text(self) -> str:
        """The documented range as text (``1-131071 us``, ``1..line rate Mb/s``)."""
        high = "line rate" if self.high is None else str(self.high)
        sep = ".." if self.high is None else "-"
        text = f"{self.low}{sep}{high}"
        return f"{text} {self.unit}" if self.unit else text


DCQCN_PARAMS: tuple[DcqcnParam, ...] = (
    DcqcnParam(
        "dce_tcp_g",
        "alpha gain (10-bit fixed-point fraction)",
        0,
        1023,
        1019,
        upstream="rp_dce_tcp_g",
    ),
    DcqcnParam("dce_tcp_rtt", "alpha update period", 1, 131071, 1, "us", upstream="rp_dce_tcp_rtt"),
    DcqcnParam(
        "initial_alpha_value",
        "alpha on the first CNP",
        1,
        1023,
        1023,
        upstream="rp_initial_alpha_value",
    ),
    DcqcnParam(
        "rate_to_set_on_first_cnp",
        "rate on the first CNP (0 = no jump)",
        0,
        None,
        0,
        "Mb/s",
        upstream="rp_rate_to_set_on_first_cnp",
    ),
    DcqcnParam(
        "rpg_min_dec_fac",
        "largest single rate decrease",
        0,
        100,
        50,
        "%",
        upstream="rp_min_dec_fac",
    ),
    DcqcnParam("rpg_min_rate", "QP rate floor", 1, None, 1, "Mb/s", upstream="rp_min_rate"),
    DcqcnParam("rpg_gd", "alpha-to-decrease coefficient (log2)", 10, 11, 11, upstream="rp_gd"),
    DcqcnParam(
        "rate_reduce_monitor_period",
        "minimum time between rate decreases",
        1,
        UINT32_MAX,
        4,
        "us",
        upstream="rp_rate_reduce_monitor_period",
    ),
)
"""The documented reaction-point parameters (S22 via roce-knowledge.md §2.8)."""

BY_NAME: dict[str, DcqcnParam] = {p.name: p for p in DCQCN_PARAMS}

UPSTREAM_NAMES: dict[str, str] = {p.upstream: p.name for p in DCQCN_PARAMS if p.upstream}
"""Upstream debugfs ``cc_params`` name -> MLNX_OFED sysfs name (S24)."""


def in_range(param: DcqcnParam, value: int, line_rate_mbps: int | None) -> bool | None:
    """Whether ``value`` is inside the documented range; None when the bound is the line
    rate, the line rate is not known and the value is above the low bound."""
    if value < param.low:
        return False
    if param.high is None:
        if line_rate_mbps is None:
            return True if value == param.low else None
        return value <= line_rate_mbps
    return value <= param.high
