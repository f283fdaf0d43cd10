"""Host NIC receive buffers: the size a lossless priority's buffer needs (RT506).

The XOFF estimate is the mlx5 driver's ``calculate_xoff`` (linux
``drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c``): (301 + 2.16 x cable m) x
max(speed, 40) Gb/s + 2.72 x MTU bytes, in the driver's integer arithmetic. A lossless
buffer must also hold at least two full frames (2 x MTU): one being received when pause is
sent and one the peer had already started, so a buffer of a few hundred bytes never works
whatever the cable.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_FRAMES = 2
"""Full frames a lossless receive buffer must hold at least."""


def mlx5_xoff_bytes(speed_mbps: int, cable_m: float, mtu: int) -> int:
    """The mlx5 driver's XOFF threshold estimate, in bytes (integer arithmetic as the driver)."""
    speed = max(speed_mbps, 40_000)
    return (301 + 216 * int(cable_m) // 100) * speed // 1000 + 272 * mtu // 100


@dataclass(frozen=True)
class NicBufferNeed:
    """The smallest receive buffer a lossless priority needs, and why."""

    frames_bytes: int
    """MIN_FRAMES x MTU."""
    xoff_bytes: int | None
    """The mlx5 XOFF estimate; None when speed or cable length is not known."""

    @property
    def bytes(self) -> int:
        """max(2 x MTU, XOFF) (the XOFF part only when known)."""
        return max(self.frames_bytes, self.xoff_bytes or 0)


def nic_buffer_need(mtu: int, speed_mbps: int | None, cable_m: float | None) -> NicBufferNeed:
    """The receive buffer a lossless priority needs on a NIC port of this MTU, speed, cable."""
    xoff = None
    if speed_mbps and cable_m is not None:
        xoff = mlx5_xoff_bytes(speed_mbps, cable_m, mtu)
    return NicBufferNeed(frames_bytes=MIN_FRAMES * mtu, xoff_bytes=xoff)
