"""The whole fabric: devices, links and the intent."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rocetune.model.base import Model
from rocetune.model.device import Device
from rocetune.model.intent import Intent
from rocetune.model.verify import PerftestResult, PortCounters


class LinkEnd(Model):
    """One end of a link: a device and a port (switch port or NIC netdev)."""

    device: str
    port: str

    def __str__(self) -> str:
        return f"{self.device}:{self.port}"


class Link(Model):
    """A cabled link between two ports."""

    a: LinkEnd
    b: LinkEnd
    length_m: float | None = None
    source: Literal["inventory", "lldp"] = "inventory"

    @property
    def label(self) -> str:
        """The stable ``devA:portX--devB:portY`` name used in findings."""
        return f"{self.a}--{self.b}"


class DeviceProblem(Model):
    """A device of the inventory that is not in the model, and why (RT002, exit 3)."""

    device: str
    kind: Literal["unsupported-platform", "not-collected", "parse-error"]
    message: str
    platform: str | None = None


class Fabric(Model):
    """Everything the checks see."""

    intent: Intent = Intent()
    devices: dict[str, Device] = Field(default_factory=dict)
    links: tuple[Link, ...] = ()
    problems: tuple[DeviceProblem, ...] = ()
    known_devices: tuple[str, ...] = ()
    """Every device name of the inventory (or of the linted files), including devices that
    are not in the model (parse errors); RT710 treats other link ends as unknown. Empty:
    only ``devices`` and ``problems`` are known."""
    counters: tuple[PortCounters, ...] = ()
    """Counter deltas taken around verification rounds (RT8xx). Empty: no verification
    ran, and the counter rules yield nothing."""
    perftest: tuple[PerftestResult, ...] = ()
    """perftest results of a verification (RT9xx). Empty: no verification ran."""
