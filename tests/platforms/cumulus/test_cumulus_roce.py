"""`nv set qos roce` expands to the documented defaults; explicit settings override them."""

from __future__ import annotations

import math
import textwrap

import pytest

from rocetune.model import EcnProfile, Scheduler
from rocetune.platforms.cumulus import defaults
from tests.platforms.cumulus.cumulus_helpers import (
    DSCP_DEFAULT,
    IDENTITY8,
    ROCE_SP_TO_TC,
    device,
    nvue,
)

PORT = """
interface:
  swp1:
    type: swp
"""
ROCE_ON = """
roce:
  enable: on
"""


def _roce(body: str = "", roce: str = ROCE_ON) -> str:
    """A port plus ``qos`` made of ``roce`` and ``body`` (both written at column 0)."""
    qos = textwrap.dedent(roce).strip("\n") + "\n" + textwrap.dedent(body).strip("\n")
    return nvue(PORT + "qos:\n" + textwrap.indent(qos, "  ") + "\n")


def test_defaults_without_roce() -> None:
    port = device(nvue(PORT)).ports["swp1"]
    assert port.trust == "pcp"
    assert port.dscp_to_priority == DSCP_DEFAULT
    assert port.priority_to_tc == IDENTITY8
    assert port.pfc_rx == ()
    assert port.pfc_tx == ()
    assert port.pg_buffers == {}
    assert port.ecn is not None
    assert set(port.ecn) == {0}
    assert port.schedulers is not None
    assert {tc: s.weight for tc, s in port.schedulers.items()} == {
        0: 12.0,
        1: 13.0,
        2: 12.0,
        3: 13.0,
        4: 12.0,
        5: 13.0,
        6: 12.0,
        7: 13.0,
    }
    assert port.watchdog is not None
    assert port.watchdog.enabled is False
    assert port.mtu == 9216
    assert port.speed_mbps is None
    assert port.admin_up is None


@pytest.mark.parametrize(
    "roce",
    [
        "roce:\n  enable: on",
        "roce:\n  enable: on\n  mode: lossless",
        "roce:\n  state: enabled",
        "roce: {}",
        "roce:",
        "roce:\n  mode: lossless-single-ipool",
    ],
)
def test_roce_lossless_expansion(roce: str) -> None:
    dev = device(_roce(roce=roce))
    port = dev.ports["swp1"]
    assert port.trust == "both"
    assert port.dscp_to_priority == DSCP_DEFAULT
    assert port.priority_to_tc == ROCE_SP_TO_TC
    assert port.pfc_rx == (3,)
    assert port.pfc_tx == (3,)
    assert port.pfc_priority_to_pg == {3: 3}
    assert port.cable_length_m == 100.0
    assert port.schedulers == {
        0: Scheduler(name="default-global", kind="dwrr", weight=50.0),
        3: Scheduler(name="default-global", kind="dwrr", weight=50.0),
        6: Scheduler(name="default-global", kind="strict"),
    }
    assert port.ecn is not None
    assert port.ecn[3].min_threshold_bytes == 150_000
    assert port.ecn[3].max_threshold_bytes == 1_500_000
    assert port.ecn[3].max_probability_pct == 100.0
    assert port.ecn[3].ecn_mark is True
    assert port.ecn[3].red_drop is False
    assert dev.buffer_pools is not None
    assert dev.buffer_pools["roce-lossless"].lossless is True


def test_roce_lossy_has_no_pfc() -> None:
    dev = device(_roce(roce="roce:\n  enable: on\n  mode: lossy"))
    port = dev.ports["swp1"]
    assert port.pfc_rx == ()
    assert port.pfc_tx == ()
    assert port.pg_buffers == {}
    assert port.trust == "both"
    assert port.priority_to_tc == ROCE_SP_TO_TC
    assert port.ecn is not None
    assert set(port.ecn) == {0, 3}
    assert dev.facts["nvue.roce_mode"] == "lossy"
    assert dev.buffer_pools is not None
    assert dev.buffer_pools["default-lossy"].percent == 100.0


def test_roce_lossy_multi_tc_profile() -> None:
    port = device(_roce(roce="roce:\n  mode: lossy-multi-tc")).ports["swp1"]
    assert port.pfc_tx == ()
    assert port.dscp_to_priority is not None
    assert port.dscp_to_priority[26] == 4
    assert port.dscp_to_priority[5] == 3
    assert port.priority_to_tc == IDENTITY8
    assert port.ecn is not None
    assert set(port.ecn) == {1, 2, 3}
    assert port.ecn[1].min_threshold_bytes is None
    assert port.ecn[1].max_probability_pct == 5.0
    assert port.schedulers is not None
    assert port.schedulers[3].weight == 22.0


@pytest.mark.parametrize(
    "roce",
    ["roce:\n  enable: off", "roce:\n  state: disabled"],
)
def test_roce_disabled_means_nvue_defaults(roce: str) -> None:
    dev = device(_roce(roce=roce))
    assert dev.ports["swp1"].trust == "pcp"
    assert dev.ports["swp1"].pfc_tx == ()
    assert dev.facts["nvue.roce_mode"] == "off"


def test_unknown_roce_mode_is_reported_and_not_expanded() -> None:
    dev = device(_roce(roce="roce:\n  mode: turbo"))
    assert dev.ports["swp1"].pfc_tx == ()
    assert [u.item for u in dev.unparsed] == ["qos.roce.mode"]
    assert "turbo" in dev.unparsed[0].reason


def test_explicit_mapping_overrides_roce_trust_and_dscp() -> None:
    body = """
    mapping:
      default-global:
        trust: l3
        dscp:
          26:
            switch-priority: 4
    """
    port = device(_roce(body)).ports["swp1"]
    assert port.trust == "dscp"
    assert port.dscp_to_priority is not None
    assert port.dscp_to_priority[26] == 4
    assert port.dscp_to_priority[27] == 3


def test_explicit_pfc_overrides_roce_priority_and_cable() -> None:
    body = """
    pfc:
      default-global:
        switch-priority:
          2: {}
        cable-length: 7
        rx: disable
    """
    port = device(_roce(body)).ports["swp1"]
    assert port.pfc_tx == (2,)
    assert port.pfc_rx == ()
    assert port.cable_length_m == 7.0
    assert port.pfc_priority_to_pg == {2: 2}
    assert port.pfc_priority_to_queue == {2: 0}
    assert port.tc_to_pg == {0: 2, 3: 3, 6: 6}


def test_roce_cable_length_feeds_default_pfc() -> None:
    roce = "roce:\n  enable: on\n  cable-length: 40"
    assert device(_roce(roce=roce)).ports["swp1"].cable_length_m == 40.0


def test_explicit_queue_mapping_overrides_roce() -> None:
    body = """
    egress-queue-mapping:
      default-global:
        switch-priority:
          4:
            traffic-class: 3
          3:
            traffic-class: 0
    """
    port = device(_roce(body)).ports["swp1"]
    assert port.priority_to_tc == {0: 0, 1: 0, 2: 0, 3: 0, 4: 3, 5: 0, 6: 6, 7: 0}
    assert port.pfc_priority_to_queue == {3: 0}
    assert port.tc_to_pg == {0: 3, 3: 4, 6: 6}


def test_explicit_ecn_overrides_roce_tc3_and_drops_nvue_tc0() -> None:
    body = """
    congestion-control:
      default-global:
        traffic-class:
          3:
            min-threshold: 200000
    """
    port = device(_roce(body)).ports["swp1"]
    assert port.ecn == {
        3: EcnProfile(
            name="default-global",
            ecn_mark=True,
            red_drop=False,
            min_threshold_bytes=200_000,
            max_threshold_bytes=1_500_000,
            max_probability_pct=100.0,
        )
    }


def test_ecn_disable_on_tc0_keeps_default_thresholds() -> None:
    body = """
    congestion-control:
      default-global:
        traffic-class:
          0:
            ecn: disable
    """
    port = device(_roce(body, roce="")).ports["swp1"]
    assert port.ecn is not None
    assert port.ecn[0].ecn_mark is False
    assert port.ecn[0].min_threshold_bytes == 150_000


def test_explicit_scheduler_changes_one_tc_of_roce_ets() -> None:
    body = """
    egress-scheduler:
      default-global:
        traffic-class:
          3:
            bw-percent: 60
          0:
            bw-percent: 40
    """
    port = device(_roce(body)).ports["swp1"]
    assert port.schedulers is not None
    assert port.schedulers[3] == Scheduler(name="default-global", kind="dwrr", weight=60.0)
    assert port.schedulers[0].weight == 40.0
    assert port.schedulers[6].kind == "strict"


def test_interface_profile_beats_default_global() -> None:
    text = nvue("""
        interface:
          swp1:
            qos:
              pfc:
                profile: lossless4
          swp2:
            type: swp
        qos:
          roce: {}
          pfc:
            lossless4:
              switch-priority:
                4: {}
        """)
    dev = device(text)
    assert dev.ports["swp1"].pfc_tx == (4,)
    assert dev.ports["swp1"].cable_length_m == 10.0
    assert dev.ports["swp2"].pfc_tx == (3,)


def test_watchdog_timers_from_global_settings() -> None:
    text = nvue("""
        interface:
          swp1:
            qos:
              pfc-watchdog:
                state: enable
        qos:
          roce: {}
          pfc-watchdog:
            polling-interval: 150
            robustness: 4
        """)
    dev = device(text)
    watchdog = dev.ports["swp1"].watchdog
    assert watchdog is not None
    assert watchdog.enabled is True
    assert watchdog.detection_ms == 600.0
    assert watchdog.restoration_ms == 150.0
    assert watchdog.action == "drop"
    assert dev.watchdog_poll_ms == 150.0


def test_defaults_module_is_sourced() -> None:
    assert {"S1", "S2", "NVUE-QOS", "CL-PORT"} <= set(defaults.SOURCES)
    assert set(defaults.ROCE_MODES) == {
        "lossless",
        "lossless-single-ipool",
        "lossy",
        "lossy-multi-tc",
    }
    assert all(mode.source in defaults.SOURCES for mode in defaults.ROCE_MODES.values())
    assert sorted(defaults.ROCE_MODES["lossy-multi-tc"].dscp_to_sp) == list(range(64))
    assert math.isclose(defaults.LOSSLESS_PG_ALPHA, 1.0)
