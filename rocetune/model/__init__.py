"""Vendor-neutral model. Imports nothing else from rocetune (``rocetune.errors`` for types only)."""

from rocetune.model.base import Model
from rocetune.model.device import (
    QOS_FEATURES,
    BufferPool,
    BufferProfile,
    Device,
    EcnProfile,
    Feature,
    HeadroomParams,
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
from rocetune.model.limits import PlatformLimits, WatchdogLimits
from rocetune.model.provenance import Provenance, SourceRef
from rocetune.model.result import (
    AuditResult,
    DeviceStatus,
    PairResult,
    PolicyOutcome,
    Verdict,
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
    "QOS_FEATURES",
    "AuditResult",
    "BandwidthRow",
    "BufferPool",
    "BufferProfile",
    "CnpIntent",
    "Device",
    "DeviceProblem",
    "DeviceStatus",
    "EcnIntent",
    "EcnProfile",
    "Fabric",
    "Feature",
    "Finding",
    "HeadroomParams",
    "Intent",
    "LatencyRow",
    "Link",
    "LinkEnd",
    "LldpNeighbor",
    "Model",
    "MtuIntent",
    "NicPort",
    "PairResult",
    "PerftestError",
    "PerftestHeader",
    "PerftestResult",
    "PlatformLimits",
    "PolicyOutcome",
    "Port",
    "PortCounters",
    "Provenance",
    "Scheduler",
    "Severity",
    "SourceRef",
    "Trust",
    "Unparsed",
    "Verdict",
    "VerifyIntent",
    "Watchdog",
    "WatchdogIntent",
    "WatchdogLimits",
]
