"""Counter deltas: two PortCounters snapshots of one port -> the growth between them.

A counter known in both snapshots gives ``after - before``. A counter that went backwards
(driver reload, counter clear) gives None and is named in ``resets`` (its growth is not
known); a counter missing from either snapshot stays None. The RT8xx rules read the deltas
from ``Fabric.counters``.
"""

from __future__ import annotations

from rocetune.model import PortCounters

_MAPS = (
    "rx_bytes_by_priority",
    "tx_bytes_by_priority",
    "pfc_rx_by_priority",
    "pfc_tx_by_priority",
    "pause_rx_us_by_priority",
    "pause_tx_us_by_priority",
    "discards_by_priority",
)
_SCALARS = (
    "port_discards",
    "storm_events",
    "global_pause_frames",
    "oversize_frames",
    "ecn_marked",
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


def counter_delta(
    before: PortCounters,
    after: PortCounters,
    window_s: float | None = None,
    round_index: int | None = None,
) -> PortCounters:
    """The growth from ``before`` to ``after`` (same device and port, else ValueError)."""
    if (before.device, before.port) != (after.device, after.port):
        msg = f"counter snapshots of different ports: {before.device}:{before.port}"
        msg += f" vs {after.device}:{after.port}"
        raise ValueError(msg)
    resets: list[str] = []
    fields: dict[str, object] = {
        "device": after.device,
        "port": after.port,
        "window_s": window_s,
        "round": round_index,
    }
    for name in _SCALARS:
        fields[name] = _grow(getattr(before, name), getattr(after, name), name, resets)
    for name in _MAPS:
        old, new = getattr(before, name), getattr(after, name)
        if old is None or new is None:
            fields[name] = None
            continue
        grown = {p: _grow(old.get(p), v, f"{name}[{p}]", resets) for p, v in new.items()}
        fields[name] = {p: v for p, v in grown.items() if v is not None} or None
    raw = {k: _grow(before.raw.get(k), v, k, []) for k, v in after.raw.items()}
    fields["raw"] = {k: v for k, v in raw.items() if v is not None}
    fields["resets"] = tuple(resets)
    return PortCounters.model_validate(fields)


def _grow(old: int | None, new: int | None, name: str, resets: list[str]) -> int | None:
    if old is None or new is None:
        return None
    if new < old:
        resets.append(name)
        return None
    return new - old
