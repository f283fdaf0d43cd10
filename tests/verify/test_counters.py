"""NIC counter parsing (linux_host), deltas, and the counter rules on real counter text."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.checks.registry import rule_by_code
from rocetune.engine import run_checks
from rocetune.model import Device, Fabric, PortCounters
from rocetune.platforms.linux_host.counters import nic_counters, parse_counter_text
from rocetune.verify.counters import counter_delta

BYTEPS = (
    Path(__file__).parents[1]
    / "fixtures"
    / "linux_host"
    / "corpus_ethtool_S_prio_counters_and_hw_counters_truncated.txt"
)
PRIOS = dict.fromkeys(range(8), 0)

FULL = """\
NIC statistics:
     rx_prio3_bytes: 1000
     tx_prio3_bytes: 2000
     rx_prio3_pause: 7
     tx_prio0_pause: 1
     rx_prio3_pause_duration: 300
     rx_prio3_discards: 2
     rx_prio3_buf_discard: 3
     rx_discards_phy: 4
     tx_pause_storm_warning_events: 1
     tx_pause_storm_error_events: 2
     rx_pause_ctrl_phy: 5
     rx_oversize_pkts_phy: 6
     rx_out_of_range_len_phy: 1
"""
HW = """\
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:9
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_ignored:0
"""


def test_byteps_transcript_split_and_mapped() -> None:
    ethtool, hw = parse_counter_text(BYTEPS.read_text())
    assert len(ethtool) == 32
    assert ethtool["rx_prio0_bytes"] == 88178050405854
    assert hw == {
        "duplicate_request": 0,
        "implied_nak_seq_err": 0,
        "lifespan": 12,
        "local_ack_timeout_err": 2705,
        "np_cnp_sent": 1333,
        "np_ecn_marked_roce_packets": 0,
    }
    c = nic_counters("gpu1", "enp178s0f0", ethtool, hw)
    assert c.rx_bytes_by_priority == {**PRIOS, 0: 88178050405854}
    assert c.tx_bytes_by_priority == {**PRIOS, 0: 14056302074308}
    assert c.pfc_rx_by_priority is None  # grep prio kept no pause counters
    assert c.port_discards is None
    assert (c.local_ack_timeout_err, c.np_cnp_sent, c.out_of_sequence) == (2705, 1333, None)
    assert c.raw["hw.lifespan"] == 12


def test_sums_and_maps() -> None:
    ethtool, hw = parse_counter_text(FULL, "ethtool_S_eth2")
    assert hw == {}
    c = nic_counters("gpu1", "eth2", ethtool, parse_counter_text(HW)[1])
    assert c.discards_by_priority == {3: 5}
    assert c.pfc_rx_by_priority == {3: 7}
    assert c.pfc_tx_by_priority == {0: 1}
    assert c.pause_rx_us_by_priority == {3: 300}
    assert (c.port_discards, c.storm_events, c.global_pause_frames, c.oversize_frames) == (
        4,
        3,
        5,
        7,
    )
    assert (c.out_of_sequence, c.rp_cnp_ignored, c.packet_seq_err) == (9, 0, None)
    none = nic_counters("gpu1", "eth2", None, None)
    assert none.rx_bytes_by_priority is None
    assert none.out_of_sequence is None


def test_delta_and_reset() -> None:
    before = PortCounters(
        device="gpu1",
        port="eth2",
        out_of_sequence=5,
        np_cnp_sent=10,
        tx_bytes_by_priority={0: 100, 3: 1000},
        raw={"x": 3},
    )
    after = PortCounters(
        device="gpu1",
        port="eth2",
        out_of_sequence=8,
        np_cnp_sent=2,
        tx_bytes_by_priority={0: 100, 3: 5000},
        raw={"x": 4},
    )
    d = counter_delta(before, after, window_s=10.0, round_index=2)
    assert (d.out_of_sequence, d.np_cnp_sent, d.window_s, d.round) == (3, None, 10.0, 2)
    assert d.tx_bytes_by_priority == {0: 0, 3: 4000}
    assert d.resets == ("np_cnp_sent",)
    assert d.raw == {"x": 1}
    assert d.rx_bytes_by_priority is None
    with pytest.raises(ValueError, match="different ports"):
        counter_delta(before, after.model_copy(update={"port": "eth3"}))


def test_byteps_counters_flagged_by_rules() -> None:
    """The corpus host: all traffic on prio 0 and ACK timeouts (SOURCES.md verdict)."""
    ethtool, hw = parse_counter_text(BYTEPS.read_text())
    after = nic_counters("gpu1", "enp178s0f0", ethtool, hw)
    zero = nic_counters("gpu1", "enp178s0f0", dict.fromkeys(ethtool, 0), dict.fromkeys(hw, 0))
    fabric = Fabric(
        devices={"gpu1": Device(name="gpu1", kind="host", platform="linux_host")},
        counters=(counter_delta(zero, after, window_s=60.0, round_index=1),),
    )
    rules = [rule_by_code(c) for c in ("RT809", "RT802")]
    findings = run_checks(fabric, [r for r in rules if r is not None])
    assert [(f.code, f.observed) for f in findings] == [
        ("RT000", "not in snapshot"),
        ("RT802", "local_ack_timeout_err +2705"),
        ("RT809", "0->102234352480162"),
    ]
    assert "out_of_sequence" in findings[0].message
