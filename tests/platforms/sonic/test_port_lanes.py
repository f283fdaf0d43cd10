"""Lane count from SONiC ``PORT.lanes`` (issue 12 item 1): buffermgrd passes the number of
lanes to the headroom computation, which doubles the pipeline latency (xon) and adds a port
MTU to the size only on 8-lane ports. A 400G port on 4 lanes (SN5600 ``2x400G`` breakout)
therefore gets the single latency, as NVIDIA's own SKU table for it says."""

from __future__ import annotations

import json
from pathlib import Path

from rocetune.model import Intent
from rocetune.platforms.sonic.parse import parse_text
from rocetune.platforms.sonic.sku_tables import sku_table
from rocetune.tune.port_headroom import port_headroom
from rocetune.tune.target import headroom_target

PORT_CONFIG = Path(__file__).parents[2] / "fixtures" / "sonic" / "sb_port_config_sn5600_o128.ini"
PLATFORM, SKU = "x86_64-nvidia_sn5600-r0", "Mellanox-SN5600-O128"


def _port_table() -> dict[str, dict[str, str]]:
    """The PORT table sonic-cfggen writes from the SKU's port_config.ini (name, lanes, alias,
    index, speed), with SONiC's default MTU."""
    ports: dict[str, dict[str, str]] = {}
    for line in PORT_CONFIG.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, lanes, alias, index, speed = line.split()
        ports[name] = {
            "lanes": lanes,
            "alias": alias,
            "index": index,
            "speed": speed,
            "mtu": "9100",
        }
    return ports


def _config() -> str:
    ports = _port_table()
    return json.dumps(
        {
            "DEVICE_METADATA": {"localhost": {"platform": PLATFORM, "hwsku": SKU}},
            "PORT": ports,
            "CABLE_LENGTH": {"AZURE": dict.fromkeys(ports, "5m")},
        }
    )


def test_port_lanes_are_counted() -> None:
    dev = parse_text(_config(), "config_db.json", "sw", None).device
    assert len(dev.ports) == 129  # 128 x 400G on 4 lanes and the 25G port on 1 lane
    assert {(p.speed_mbps, p.lanes) for p in dev.ports.values()} == {(400_000, 4), (25_000, 1)}


def test_four_lane_400g_gets_what_buffermgrd_computes() -> None:
    dev = parse_text(_config(), "config_db.json", "sw", None).device
    port = dev.ports["Ethernet0"]
    assert port.lanes == 4
    assert port.speed_mbps == 400_000
    assert port.mtu == 9100
    four = port_headroom(dev, 400_000, 5, 9100, lanes=port.lanes)
    guessed = port_headroom(dev, 400_000, 5, 9100)
    # Spectrum-4 pipeline latency 19 KiB, doubled only on 8-lane ports
    assert (four.eight_lane, four.xon) == (False, 19 * 1024)
    assert (guessed.eight_lane, guessed.xon) == (True, 38 * 1024)
    assert four.xoff == guessed.xoff  # xoff does not depend on the lanes
    assert four.size == four.xoff + four.xon  # no port MTU on a 4-lane port
    assert guessed.size == -(-(guessed.xoff + guessed.xon + 9100) // 1024) * 1024
    assert not [n for n in four.notes if "lane" in n]
    # NVIDIA's own table row for this SKU has the single latency too
    table = sku_table(PLATFORM, SKU)
    assert table is not None
    row = table.row(400_000, 5)
    assert row is not None
    assert row.xon == four.xon


def test_the_tuner_sizes_the_port_with_its_lanes() -> None:
    dev = parse_text(_config(), "config_db.json", "sw", None).device
    port = dev.ports["Ethernet4"]
    target = headroom_target(400_000, 5, 9100, Intent(), dev.asic, dev=dev, lanes=port.lanes)
    assert target.xon == 19 * 1024
    eight = headroom_target(400_000, 5, 9100, Intent(), dev.asic, dev=dev, lanes=8)
    assert eight.xon == 38 * 1024
