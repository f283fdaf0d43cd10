"""What the Onyx ``roce`` one-shot command configures, from NVIDIA's documentation.

``roce [lossless | semi-lossless | lossy]`` (bare ``roce`` = lossless) turns the whole switch
to a RoCE profile. The running-config then shows only the ``roce`` line, not the settings it
applies; rocetune expands it to the values the NVIDIA Onyx User Manual documents in its
``show roce`` example (RoCE commands, Onyx 3.8.2000 and later):

- port trust mode L3 (DSCP);
- congestion control on traffic class 3: ECN, absolute thresholds minimum 150 KB and maximum
  1500 KB;
- PFC enabled on switch priority 3 (lossless only; semi-lossless honours received pause but
  does not propagate it, read as PFC receive only; lossy has no PFC);
- ETS: traffic class 3 (RoCE) WRR 50 %, traffic class 6 (CNP) strict;
- LLDP application TLV: UDP 4791 -> priority 3.

Every value taken from here is marked "from the documented defaults of the roce command"
(the device fact ``onyx.roce_defaults`` and the profile names), and its provenance is the
``roce`` line. Explicit interface lines in the same configuration override them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rocetune.model.device import AppTlv

MARK = "from the documented defaults of the roce command"
ROCE_PRIORITY = 3
CNP_TC = 6
ECN_MIN_KB = 150
ECN_MAX_KB = 1500
ROCE_WRR = 50
APP_TLV = AppTlv(selector="udp", protocol=4791, priority=ROCE_PRIORITY)


@dataclass(frozen=True)
class RoceDefaults:
    """What one ``roce`` mode sets on every port."""

    mode: str
    pfc_rx: tuple[int, ...]
    pfc_tx: tuple[int, ...]

    def summary(self) -> str:
        """One line for the device facts."""
        pfc = f"PFC rx {list(self.pfc_rx)} tx {list(self.pfc_tx)}"
        return (
            f"roce {self.mode}: trust L3, {pfc}, ECN on TC3 {ECN_MIN_KB}-{ECN_MAX_KB} KB, "
            f"ETS TC3 WRR {ROCE_WRR}% and TC6 strict, LLDP app TLV udp 4791 -> 3 ({MARK})"
        )


MODES: dict[str, RoceDefaults] = {
    "lossless": RoceDefaults("lossless", (ROCE_PRIORITY,), (ROCE_PRIORITY,)),
    "semi-lossless": RoceDefaults("semi-lossless", (ROCE_PRIORITY,), ()),
    "lossy": RoceDefaults("lossy", (), ()),
}
