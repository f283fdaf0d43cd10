"""NIC counters for verification: ``ethtool -S <if>`` and RDMA ``hw_counters`` -> PortCounters.

The text parsing is :func:`rocetune.platforms.linux_host.ethtool.parse_stats` (the same one
the snapshot parser uses); this module splits a text into outputs and maps the mlx5 counter
names (roce-knowledge.md §5.1, §5.2, S25, S26) onto the vendor-neutral
:class:`~rocetune.model.PortCounters` fields:

=========================  ======================================================
field                      mlx5 counters
=========================  ======================================================
rx/tx_bytes_by_priority    ``rx_prio<p>_bytes``, ``tx_prio<p>_bytes``
pfc_rx/tx_by_priority      ``rx_prio<p>_pause``, ``tx_prio<p>_pause``
pause_rx/tx_us_by_priority ``rx_prio<p>_pause_duration``, ``tx_prio<p>_pause_duration``
discards_by_priority       ``rx_prio<p>_discards`` + ``_buf_discard`` + ``_cong_discard``
port_discards              ``rx_discards_phy``
storm_events               ``tx_pause_storm_warning_events`` + ``_error_events``
global_pause_frames        ``rx/tx_pause_ctrl_phy`` + ``rx/tx_global_pause``
oversize_frames            ``rx_oversize_pkts_phy`` + ``rx_out_of_range_len_phy``
RDMA fields                the ``hw_counters`` file of the same name
=========================  ======================================================

A sum is None only when none of its counters is present; a per-priority map is None when
no priority has the counter.
"""

from __future__ import annotations

from collections.abc import Mapping

from rocetune.model import PortCounters
from rocetune.platforms.linux_host.base import Notes
from rocetune.platforms.linux_host.ethtool import parse_stats
from rocetune.platforms.linux_host.segments import split

_PRIORITY_FIELDS = {
    "rx_bytes_by_priority": ("rx_prio{}_bytes",),
    "tx_bytes_by_priority": ("tx_prio{}_bytes",),
    "pfc_rx_by_priority": ("rx_prio{}_pause",),
    "pfc_tx_by_priority": ("tx_prio{}_pause",),
    "pause_rx_us_by_priority": ("rx_prio{}_pause_duration",),
    "pause_tx_us_by_priority": ("tx_prio{}_pause_duration",),
    "discards_by_priority": (
        "rx_prio{}_discards",
        "rx_prio{}_buf_discard",
        "rx_prio{}_cong_discard",
    ),
}
_SUM_FIELDS = {
    "port_discards": ("rx_discards_phy",),
    "storm_events": ("tx_pause_storm_warning_events", "tx_pause_storm_error_events"),
    "global_pause_frames": (
        "rx_pause_ctrl_phy",
        "tx_pause_ctrl_phy",
        "rx_global_pause",
        "tx_global_pause",
    ),
    "oversize_frames": ("rx_oversize_pkts_phy", "rx_out_of_range_len_phy"),
}
_HW_FIELDS = (
    "out_of_sequence",
    "packet_seq_err",
    "implied_nak_seq_err",
    "local_ack_timeout_err",
    "roce_adp_retrans",
    "np_ecn_marked_roce_packets",
    "np_cnp_sent",
    "rp_cnp_handled",
    "rp_cnp_ignored",
)


def parse_counter_text(text: str, file: str = "counters") -> tuple[dict[str, int], dict[str, int]]:
    """``(ethtool, hw_counters)`` name -> value from one file (an output or a transcript).

    An output is a ``hw_counters`` one when its command or its lines name ``/hw_counters/``.
    """
    ethtool: dict[str, int] = {}
    hw: dict[str, int] = {}
    for segment in split(text, file):
        values = parse_stats(segment, Notes(file))
        is_hw = "hw_counters" in (segment.command or "") or any(
            "/hw_counters/" in line for _, line in segment.lines
        )
        (hw if is_hw else ethtool).update(values)
    return ethtool, hw


def _sum(values: Mapping[str, int], names: tuple[str, ...]) -> int | None:
    present = [values[n] for n in names if n in values]
    return sum(present) if present else None


def nic_counters(
    device: str,
    port: str,
    ethtool: Mapping[str, int] | None,
    hw: Mapping[str, int] | None,
) -> PortCounters:
    """Map mlx5 counters onto PortCounters; None sources leave their fields None."""
    fields: dict[str, object] = {"device": device, "port": port}
    if ethtool is not None:
        for name, patterns in _PRIORITY_FIELDS.items():
            per = {p: _sum(ethtool, tuple(x.format(p) for x in patterns)) for p in range(8)}
            known = {p: v for p, v in per.items() if v is not None}
            fields[name] = known or None
        for name, names in _SUM_FIELDS.items():
            fields[name] = _sum(ethtool, names)
    if hw is not None:
        for name in _HW_FIELDS:
            fields[name] = hw.get(name)
    fields["raw"] = {**(ethtool or {}), **{f"hw.{k}": v for k, v in (hw or {}).items()}}
    return PortCounters.model_validate(fields)
