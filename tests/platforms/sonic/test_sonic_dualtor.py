"""Dual-ToR and watchdog coverage facts read from real public SONiC configs.

The files are sonic-buildimage ``src/sonic-config-engine/tests/sample_output/py3`` renderings
of ``files/build_templates/qos_config.j2`` (Apache-2.0; rows in tests/realworld/SOURCES.md).
"""

from __future__ import annotations

from pathlib import Path

from rocetune.model import Device
from rocetune.platforms.sonic.parse import parse_text

CONFIGS = Path(__file__).parents[2] / "realworld" / "configs" / "sonic"


def _parse(name: str) -> Device:
    path = CONFIGS / name
    return parse_text(path.read_text(encoding="utf-8"), str(path), "tor1", "leaf").device


def test_dualtor_rendered_qos_json() -> None:
    dev = _parse("sb_qos_arista7050cx3_dualtor.json")
    # AZURE_TUNNEL TC_TO_QUEUE_MAP 3 -> 2, 4 -> 6 and TC_TO_PRIORITY_GROUP_MAP 3 -> 2, 4 -> 6.
    assert dev.tunnel_lossless_priorities == (2, 6)
    uplink = dev.ports["Ethernet24"]
    assert uplink.pfc_tx == (2, 3, 4, 6)
    assert dev.config_source == "rendered"
    # No PFC_WD table and no DEVICE_METADATA: the watchdog state is not known.
    assert uplink.watchdog is None


def test_dualtor_remap_disabled_has_no_tunnel_priorities() -> None:
    dev = _parse("sb_qos_arista7050cx3_dualtor_remap_disabled.json")
    assert dev.tunnel_lossless_priorities == ()
