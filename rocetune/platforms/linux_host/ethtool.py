"""``ethtool <if>`` (speed), ``ethtool -a`` (802.3x pause), ``ethtool -i`` (driver, PCI address)
and ``ethtool -S`` (counters).

Shapes (ethtool(8); corpus ``host/show_gids_empty_in_pod.txt`` for ``ethtool`` and ``-i``,
``host/ethtool_S_prio_counters_and_hw_counters_truncated.txt`` for ``-S``)::

    Settings for eth2:                     Pause parameters for eth2:
            Speed: 400000Mb/s              Autonegotiate:  off
            Link detected: yes             RX:             off
                                           TX:             off
    driver: mlx5_core                      NIC statistics:
    firmware-version: 28.39.1002 (...)          rx_prio3_pause: 0
    bus-info: 0000:17:00.0

``ethtool -a`` gives the configured pause (``RX``/``TX``); with pause autonegotiation the
negotiated result may differ, and the configured value is the one rocetune checks (a
lossless port must not even advertise 802.3x pause). ``Speed: Unknown!`` (link down) leaves
the speed unknown. Counters are parsed for the counter rules and not put into the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocetune.platforms.linux_host.base import Found, Notes, take_errors
from rocetune.platforms.linux_host.names import pci_or_none, valid_netdev
from rocetune.platforms.linux_host.segments import Segment

_SETTINGS = re.compile(r"Settings for (\S+):")
_SPEED = re.compile(r"Speed:\s*(.*)")
_SPEED_VALUE = re.compile(r"(\d{1,9})\s*Mb/s")
_PAUSE_HEAD = re.compile(r"Pause parameters for (\S+):")
_PAUSE = re.compile(r"(Autonegotiate|RX|TX|RX negotiated|TX negotiated):\s*(\S*)")
_KEY_VALUE = re.compile(r"([\w-]+):\s*(.*)")
_STAT = re.compile(r"([\w\[\].:-]+):\s*(-?\d{1,20})")
_DRIVER_FACTS = {
    "driver": "driver",
    "version": "driver_version",
    "firmware-version": "firmware_version",
}
_HW = re.compile(r".*/hw_counters/(\w+):\s*(-?\d{1,20})")


def _hint(found: Found, name: str) -> None:
    if valid_netdev(name):
        found.name = name


def parse_settings(segment: Segment, notes: Notes) -> Found:
    """``ethtool <if>``: the link speed (Mb/s)."""
    found = Found()
    for number, raw in take_errors(segment, notes):
        line = raw.strip()
        head = _SETTINGS.fullmatch(line)
        if head is not None:
            _hint(found, head.group(1))
            continue
        match = _SPEED.fullmatch(line)
        if match is None:
            continue
        value = _SPEED_VALUE.fullmatch(match.group(1).strip())
        if value is not None:
            found.put("speed_mbps", int(value.group(1)), number)
        elif match.group(1).strip().lower().startswith("unknown"):
            found.facts["speed"] = "unknown (link down?)"
        else:
            notes.add(line, "link speed not understood (expected <N>Mb/s)", number)
    return found


def parse_pause(segment: Segment, notes: Notes) -> Found:
    """``ethtool -a <if>``: configured 802.3x pause (rx, tx)."""
    found = Found()
    for number, raw in take_errors(segment, notes):
        line = raw.strip()
        head = _PAUSE_HEAD.fullmatch(line)
        if head is not None:
            _hint(found, head.group(1))
            continue
        match = _PAUSE.fullmatch(line)
        if match is None or match.group(2) not in ("on", "off"):
            notes.add(line, "ethtool -a line not understood (expected on/off)", number)
            continue
        on = match.group(2) == "on"
        label = match.group(1)
        if label == "RX":
            found.put("global_pause_rx", on, number)
        elif label == "TX":
            found.put("global_pause_tx", on, number)
        else:
            found.facts[f"pause.{label.lower().replace(' ', '_')}"] = match.group(2)
    return found


@dataclass
class DriverInfo:
    """``ethtool -i``: driver facts and the PCI address (None when not a PCI device)."""

    found: Found = field(default_factory=Found)
    pci: str | None = None
    pci_line: int | None = None


def parse_driver(segment: Segment, notes: Notes) -> DriverInfo:
    """``ethtool -i <if>``: driver, firmware version and bus-info."""
    info = DriverInfo()
    for number, raw in take_errors(segment, notes):
        match = _KEY_VALUE.fullmatch(raw.strip())
        if match is None:
            continue
        key, value = match.group(1), match.group(2).strip()
        if key == "bus-info":
            info.pci = pci_or_none(value)
            info.pci_line = number
            if value:
                info.found.facts["bus_info"] = value
        elif key in _DRIVER_FACTS and value:
            info.found.facts[_DRIVER_FACTS[key]] = value
    return info


def parse_stats(segment: Segment, notes: Notes) -> dict[str, int]:
    """``ethtool -S <if>`` (and ``grep`` of RDMA ``hw_counters``): counter name -> value."""
    counters: dict[str, int] = {}
    for _, raw in take_errors(segment, notes):
        line = raw.strip()
        match = _HW.fullmatch(line) or _STAT.fullmatch(line)
        if match is not None:
            counters[match.group(1)] = int(match.group(2))
    return counters
