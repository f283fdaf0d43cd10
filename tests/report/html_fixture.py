"""A small hand-built fabric for the HTML report tests (independent of parsers and rules)."""

from __future__ import annotations

from rocetune.model import (
    AuditResult,
    BufferProfile,
    Device,
    DeviceStatus,
    Fabric,
    Finding,
    Link,
    LinkEnd,
    NicPort,
    Port,
    Severity,
)

IDENTITY = {p: p for p in range(8)}
EVIL_DEVICE = "<script>window.__pwned = 1</script>"
EVIL_PORT = '"><img src=x onerror="window.__pwned = 2">'


def switch_port(name: str, **kw: object) -> Port:
    """A RoCE-ready 100G switch port (override fields with ``kw``)."""
    base: dict[str, object] = {
        "name": name,
        "speed_mbps": 100_000,
        "mtu": 9216,
        "trust": "dscp",
        "dscp_to_priority": {26: 3, 48: 6},
        "priority_to_tc": IDENTITY,
        "tc_to_pg": {0: 0, 3: 3, 6: 0},
        "pfc_rx": (3,),
        "pfc_tx": (3,),
        "cable_length_m": 5.0,
        "pg_buffers": {3: BufferProfile(name="pg_lossless_100000_5m", xoff_bytes=60_000)},
    }
    base.update(kw)
    return Port.model_validate(base)


def link(a: str, b: str, length: float | None = None) -> Link:
    """A link from ``dev:port`` strings."""
    da, _, pa = a.partition(":")
    db, _, pb = b.partition(":")
    return Link(a=LinkEnd(device=da, port=pa), b=LinkEnd(device=db, port=pb), length_m=length)


def finding(code: str, severity: str, device: str | None, **kw: object) -> Finding:
    """A finding with a fixed message."""
    kw.setdefault("message", f"{code} on {device}")
    return Finding.model_validate(
        {
            "code": code,
            "name": f"name-{code.lower()}",
            "severity": Severity(severity),
            "device": device,
            **kw,
        }
    )


def small_result(evil: bool = False) -> AuditResult:
    """spine1 (spectrum3), leaf1 (no ASIC), agg1 (unknown role), gpu01 (host), ghost (not
    checked); three links; findings of every severity, a link finding and a fabric one."""
    leaf = EVIL_DEVICE if evil else "leaf1"
    leaf_port = EVIL_PORT if evil else "swp1"
    spine = Device(
        name="spine1",
        kind="switch",
        platform="sonic",
        role="spine",
        asic="spectrum3",
        ports={
            "Ethernet0": switch_port(
                "Ethernet0",
                pfc_rx=(),
                pfc_tx=(),
                pg_buffers={3: BufferProfile(name="pg_lossless_100000_5m", xoff_bytes=45_000)},
            ),
            "Ethernet4": switch_port(
                "Ethernet4",
                mtu=1500,
                pg_buffers={3: BufferProfile(name="pg_lossless_100000_5m", xoff_bytes=30_000)},
            ),
        },
    )
    leaf_dev = Device(
        name=leaf,
        kind="switch",
        platform="cumulus",
        role="leaf",
        ports={
            leaf_port: switch_port(leaf_port, cable_length_m=3.0),
            "swp2": switch_port("swp2", pg_buffers={3: BufferProfile(computed_at_runtime=True)}),
            "swp9": switch_port("swp9", pg_buffers={0: BufferProfile(name="lossy")}),
        },
    )
    agg = Device(
        name="agg1",
        kind="switch",
        platform="sonic",
        role="aggregation",
        ports={"Ethernet0": switch_port("Ethernet0")},
    )
    host = Device(
        name="gpu01",
        kind="host",
        platform="linux_host",
        role="host",
        nics={"eth0": NicPort(name="eth0", mtu=9000, pfc_priorities=(3,))},
    )
    links = (
        link(f"{leaf}:{leaf_port}", "spine1:Ethernet0", 30),
        link("spine1:Ethernet4", "agg1:Ethernet0"),
        link(f"{leaf}:swp2", "gpu01:eth0", 2),
    )
    findings = [
        finding(
            "RT201",
            "error",
            "spine1",
            port="Ethernet0",
            observed="rx {} tx {}",
            expected="rx {3} tx {3}",
        ),
        finding(
            "RT701",
            "error",
            "spine1",
            port="Ethernet0",
            link=links[0].label,
            message=f"PFC differs on {links[0].label} </td><script>window.__pwned=3</script>",
        ),
        finding("RT104", "warning", leaf, port=leaf_port, file="configs/leaf1.yaml", line=7),
        finding("RT000", "info", "gpu01"),
        finding("RT705", "warning", None, message="fabric-wide"),
    ]
    devices = {d.name: DeviceStatus(d.name, d.platform, "ok") for d in (spine, leaf_dev, agg, host)}
    devices["ghost"] = DeviceStatus("ghost", "eos", "error", "platform 'eos' is not supported")
    fabric = Fabric(devices={d.name: d for d in (spine, leaf_dev, agg, host)}, links=links)
    return AuditResult(fabric=fabric, findings=findings, devices=devices)


def stub_fixes(code: str) -> str:
    """Fixed "How to fix" markdown (golden output must not follow edits of rules/)."""
    body = "- SONiC: `PORT_QOS_MAP|<port>`\n  continued\n- NVUE: `nv set`"
    return f"Set `{code.lower()}` right:\n\n{body}"
