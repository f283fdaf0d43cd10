"""Vendor-neutral model. Imports nothing else from rocetune."""

from rocetune.model.base import Model
from rocetune.model.device import (
    BufferPool,
    BufferProfile,
    Device,
    EcnProfile,
    Feature,
    LldpNeighbor,
    NicPort,
    Port,
    Scheduler,
    Trust,
    Unparsed,
    Watchdog,
)
from rocetune.model.fabric import DeviceProblem, Fabric, Link, LinkEnd
from rocetune.model.finding import Finding, Severity
from rocetune.model.intent import (
    CnpIntent,
    EcnIntent,
    Intent,
    MtuIntent,
    VerifyIntent,
    WatchdogIntent,
)
from rocetune.model.verify import (
    BandwidthRow,
    LatencyRow,
    PerftestError,
    PerftestHeader,
    PerftestResult,
    PortCounters,
)

__all__ = [
    "BandwidthRow",
    "BufferPool",
    "BufferProfile",
    "CnpIntent",
    "Device",
    "DeviceProblem",
    "EcnIntent",
    "EcnProfile",
    "Fabric",
    "Feature",
    "Finding",
    "Intent",
    "LatencyRow",
    "Link",
    "LinkEnd",
    "LldpNeighbor",
    "Model",
    "MtuIntent",
    "NicPort",
    "PerftestError",
    "PerftestHeader",
    "PerftestResult",
    "Port",
    "PortCounters",
    "Scheduler",
    "Severity",
    "Trust",
    "Unparsed",
    "VerifyIntent",
    "Watchdog",
    "WatchdogIntent",
]
