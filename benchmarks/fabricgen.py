"""Generate a synthetic two-tier RoCE fabric in real platform formats (for lint_scale.py).

Shape at ``scale`` 1.0: 200 spines and 800 leaves (1,000 switches × 64 ports), 1,000 hosts
with 8 ConnectX ports each (8,000 NIC ports). Every leaf has 10 host-facing ports and 16
uplinks; every spine has 64 leaf-facing ports. Even-numbered switches (counted per tier) are SONiC
(``config_db.json``, as ``show runningconfiguration all`` prints it: indent 4, sorted keys),
odd-numbered ones Cumulus Linux (``nv config show -o yaml``). Hosts are Linux snapshot
directories (``mlnx_qos``, sysfs and ethtool outputs, ``meta.json``) when the linux_host
platform is available, else they are left out (switches only).

A few faults are planted (see :data:`FAULTS`), so the audit has something to report.

:data:`HOST_HEAVY` is the other shape of issue 17: 10,000 hosts with 2 NICs each behind 500
switches (100 spines, 400 leaves with 50 host-facing ports and 14 uplinks each).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

PORTS = 64
HOST_PORTS = 10
UPLINKS = 16
NICS_PER_HOST = 8
FAULTS = (
    "leaf0 (sonic): no pfc_enable on its first uplink (RT201, RT701, ...)",
    "spine0 (sonic): WRED profile with ecn_none (RT303, RT301, RT706)",
    "leaf1 (cumulus): DSCP 26 -> switch-priority 0 (RT102, RT702, RT705)",
    "leaf0--leaf2: a lossless peer link between two leaves (RT708)",
    "host0 eth3: MTU 1500 (RT602, RT703, RT705, RT707) when hosts are generated",
)


@dataclass(frozen=True)
class Shape:
    """How many of each: spines, leaves, hosts, NICs per host, ports per leaf role."""

    spines: int
    leaves: int
    hosts: int
    nics_per_host: int = NICS_PER_HOST
    host_ports: int = HOST_PORTS
    uplinks: int = UPLINKS

    @classmethod
    def scaled(cls, scale: float) -> Shape:
        """The default two-tier shape at ``scale`` (1.0 = 1,000 switches, 1,000 hosts)."""
        spines = max(1, round(200 * scale))
        return cls(spines=spines, leaves=4 * spines, hosts=5 * spines)


HOST_HEAVY = Shape(spines=100, leaves=400, hosts=10_000, nics_per_host=2, host_ports=50, uplinks=14)


@dataclass
class Generated:
    """What was written."""

    root: Path
    inventory: Path
    files: dict[str, list[Path]] = field(default_factory=dict)
    """"json" / "yaml" / "text" -> files of that kind (the inventory is "yaml")."""
    switches: int = 0
    switch_ports: int = 0
    nic_ports: int = 0
    links: int = 0
    hosts: bool = False


def host_platform_available() -> bool:
    """True when rocetune has a linux_host driver."""
    from rocetune.platforms import drivers

    return "linux_host" in drivers()


def _sonic_port(i: int) -> str:
    return f"Ethernet{4 * i}"


def _cumulus_port(i: int) -> str:
    return f"swp{i + 1}"


def port_name(index: int, p: int) -> str:
    """Name of port ``p`` of the switch numbered ``index`` in its tier (even: SONiC)."""
    return _sonic_port(p) if index % 2 == 0 else _cumulus_port(p)


def _dscp_map(roce_prio: int) -> dict[str, str]:
    out = {str(d): "0" for d in range(64)}
    out["26"] = str(roce_prio)
    out["48"] = "6"
    return out


_SONIC_GLOBAL: dict[str, dict[str, dict[str, str]]] = {
    "BUFFER_POOL": {
        "egress_lossless_pool": {"mode": "dynamic", "size": "60817392", "type": "egress"},
        "egress_lossy_pool": {"mode": "dynamic", "size": "47218432", "type": "egress"},
        "ingress_lossless_pool": {"mode": "dynamic", "size": "47218432", "type": "ingress"},
    },
    "BUFFER_PROFILE": {
        "egress_lossless_profile": {"dynamic_th": "7", "pool": "egress_lossless_pool", "size": "0"},
        "egress_lossy_profile": {"dynamic_th": "7", "pool": "egress_lossy_pool", "size": "9216"},
        "ingress_lossy_profile": {"dynamic_th": "3", "pool": "ingress_lossless_pool", "size": "0"},
        "pg_lossless_400000_30m_profile": {
            "dynamic_th": "0",
            "pool": "ingress_lossless_pool",
            "size": "235520",
            "xoff": "190464",
            "xon": "35840",
        },
    },
    "MAP_PFC_PRIORITY_TO_QUEUE": {"AI_FABRIC": {str(i): str(i) for i in range(8)}},
    "SCHEDULER": {
        "scheduler.default": {"type": "DWRR", "weight": "50"},
        "scheduler.roce": {"type": "DWRR", "weight": "50"},
        "scheduler.strict": {"type": "STRICT"},
    },
    "TC_TO_PRIORITY_GROUP_MAP": {"AI_FABRIC": {str(i): "3" if i == 3 else "0" for i in range(8)}},
    "TC_TO_QUEUE_MAP": {"AI_FABRIC": {str(i): str(i) for i in range(8)}},
}


def _wred(ecn: str) -> dict[str, str]:
    out = {"ecn": ecn}
    for colour in ("green", "yellow", "red"):
        out[f"{colour}_drop_probability"] = "20"
        out[f"{colour}_max_threshold"] = "6400000"
        out[f"{colour}_min_threshold"] = "1600000"
        out[f"wred_{colour}_enable"] = "true"
    return out


def sonic_config(
    name: str, peers: dict[int, str], *, no_pfc: int = -1, ecn: str = "ecn_all"
) -> str:
    """A SONiC ``config_db.json``; ``peers``: port index -> description of the linked port."""
    tables: dict[str, dict[str, object]] = {k: dict(v) for k, v in _SONIC_GLOBAL.items()}
    tables["DSCP_TO_TC_MAP"] = {"AI_FABRIC": _dscp_map(3)}
    tables["WRED_PROFILE"] = {"ROCE_LOSSLESS": _wred(ecn)}
    tables["DEVICE_METADATA"] = {
        "localhost": {"buffer_model": "traditional", "hostname": name, "type": "LeafRouter"}
    }
    for t in ("PORT", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "PFC_WD"):
        tables[t] = {}
    tables["CABLE_LENGTH"] = {"AZURE": {}}
    tables["PFC_WD"]["GLOBAL"] = {"POLL_INTERVAL": "100"}
    for p in range(PORTS):
        _sonic_port_tables(tables, _sonic_port(p), p, peers.get(p), lossless=p != no_pfc)
    return json.dumps(tables, indent=4, sort_keys=True) + "\n"


def _sonic_port_tables(
    t: dict[str, dict[str, object]], port: str, p: int, peer: str | None, *, lossless: bool
) -> None:
    t["PORT"][port] = {
        "admin_status": "up" if peer else "down",
        "alias": f"etp{p + 1}",
        "description": peer or "",
        "fec": "rs",
        "lanes": ",".join(str(8 * p + k) for k in range(8)),
        "mtu": "9216",
        "speed": "400000",
    }
    qos = dict.fromkeys(("dscp_to_tc_map", "pfc_to_queue_map", "tc_to_pg_map"), "AI_FABRIC")
    qos["tc_to_queue_map"] = "AI_FABRIC"
    if lossless:
        qos["pfc_enable"] = "3"
        qos["pfcwd_sw_enable"] = "3"
    t["PORT_QOS_MAP"][port] = qos
    t["QUEUE"][f"{port}|0"] = {"scheduler": "scheduler.default"}
    t["QUEUE"][f"{port}|3"] = {"scheduler": "scheduler.roce", "wred_profile": "ROCE_LOSSLESS"}
    t["QUEUE"][f"{port}|6"] = {"scheduler": "scheduler.strict"}
    t["BUFFER_PG"][f"{port}|0"] = {"profile": "ingress_lossy_profile"}
    t["BUFFER_PG"][f"{port}|3"] = {"profile": "pg_lossless_400000_30m_profile"}
    t["BUFFER_QUEUE"][f"{port}|0-2"] = {"profile": "egress_lossy_profile"}
    t["BUFFER_QUEUE"][f"{port}|3"] = {"profile": "egress_lossless_profile"}
    t["BUFFER_QUEUE"][f"{port}|4-6"] = {"profile": "egress_lossy_profile"}
    cable = t["CABLE_LENGTH"]["AZURE"]
    assert isinstance(cable, dict)
    cable[port] = "30m"
    if lossless:
        t["PFC_WD"][port] = {"action": "drop", "detection_time": "200", "restoration_time": "200"}


def cumulus_config(name: str, peers: dict[int, str], *, roce_prio: int = 3) -> str:
    """An NVUE ``nv config show -o yaml`` export, one stanza per interface."""
    out = [
        "- header:",
        "    model: mlnx_x86",
        "    nvue-api-version: nvue_v1",
        "    rev-id: 1.0",
        "    version: Cumulus Linux 5.9.1",
        "- set:",
        "    interface:",
        "      eth0:",
        "        type: eth",
    ]
    for p in range(PORTS):
        peer = peers.get(p)
        out += [f"      {_cumulus_port(p)}:"]
        if peer:
            out += [f"        description: {peer}"]
        out += ["        link:", "          mtu: 9216", "          speed: 400G", "          state:"]
        out += ["            up: {}" if peer else "            down: {}"]
        out += ["        qos:", "          pfc-watchdog: {}", "        type: swp"]
    out += ["    qos:", "      congestion-control:", "        default-global:"]
    out += ["          traffic-class:", "            '3':", "              ecn: enable"]
    out += ["              max-threshold: 6400000", "              min-threshold: 1600000"]
    out += ["              probability: 20", "              red: disable"]
    out += ["      mapping:", "        default-global:", "          dscp:"]
    out += ["            24-25,27-31:", "              switch-priority: 0"]
    out += ["            '26':", f"              switch-priority: {roce_prio}"]
    out += ["      roce:", "        enable: on", "        mode: lossless"]
    out += ["    system:", f"      hostname: {name}"]
    return "\n".join(out) + "\n"


def _dscp_groups() -> dict[int, list[int]]:
    """The RoCE plan on the NIC: DSCP 26 alone on priority 3, CNP DSCP 48 on 6, rest 0..7."""
    groups = {p: [d for d in range(8 * p, 8 * p + 8) if d not in (26, 48)] for p in range(8)}
    groups[0] += groups.pop(3)
    groups[3] = [26]
    groups[0] += groups.pop(6)
    groups[6] = [48]
    return groups


def mlnx_qos_output(pfc_prio: int = 3) -> str:
    """``mlnx_qos -i <if>`` output: DSCP trust, the RoCE DSCP plan, PFC on 3, ETS 50/50."""
    dscp = "".join(
        f"        prio:{p} dscp:" + ",".join(f"{d:02d}" for d in sorted(ds, reverse=True)) + ",\n"
        for p, ds in sorted(_dscp_groups().items())
    )
    enabled = "   ".join("1" if p == pfc_prio else "0" for p in range(8))
    tsa = {0: "ets, bw: 50%", 3: "ets, bw: 50%", 6: "strict"}
    tcs = "".join(
        f"tc: {tc} ratelimit: unlimited, tsa: {tsa.get(tc, 'ets, bw: 0%')}\n"
        f"         priority:  {tc}\n"
        for tc in range(8)
    )
    return (
        "DCBX mode: OS controlled\nPriority trust state: dscp\ndscp2prio mapping:\n"
        f"{dscp}Cable len: 7\nPFC configuration:\n"
        "        priority    0   1   2   3   4   5   6   7\n"
        f"        enabled     {enabled}   \n{tcs}"
    )


def _nic_outputs(nic: str, mtu: int) -> dict[str, str]:
    ecn = "".join(
        f"/sys/class/net/{nic}/ecn/roce_{side}/enable/{p}:{1 if p == 3 else 0}\n"
        for side in ("np", "rp")
        for p in range(8)
    )
    return {
        f"mlnx_qos -i {nic}": mlnx_qos_output(),
        f"cat /sys/class/net/{nic}/mtu": f"{mtu}\n",
        f"ethtool {nic}": f"Settings for {nic}:\n\tSpeed: 400000Mb/s\n\tDuplex: Full\n"
        "\tLink detected: yes\n",
        f"ethtool -a {nic}": f"Pause parameters for {nic}:\nAutonegotiate:\toff\nRX:\t\toff\n"
        "TX:\t\toff\n",
        f"grep -H . /sys/class/net/{nic}/ecn/roce_*p/enable/*": ecn,
        f"cat /sys/class/net/{nic}/ecn/roce_np/cnp_dscp": "48\n",
        f"cat /sys/class/net/{nic}/ecn/roce_np/cnp_802p_prio": "6\n",
    }


def write_host(directory: Path, name: str, nics: list[str], bad_mtu: str | None) -> list[Path]:
    """A linux_host snapshot directory; returns the files written."""
    from rocetune.platforms import get_driver
    from rocetune.snapshot import CommandRecord, SnapshotMeta, write_directory

    driver = get_driver("linux_host")
    assert driver is not None
    by_command = {"hostname": f"{name}\n"}
    for nic in nics:
        by_command.update(_nic_outputs(nic, 1500 if nic == bad_mtu else 9000))
    outputs: dict[str, str] = {}
    records = []
    for cmd in driver.commands(nics):
        if cmd.command in by_command:
            outputs[cmd.filename] = by_command[cmd.command]
            records.append(CommandRecord(command=cmd.command, file=cmd.filename))
    meta = SnapshotMeta(device=name, platform="linux_host", commands=tuple(records))
    write_directory(directory, outputs, meta)
    return [directory / f for f in outputs]


class _Links:
    """Collects inventory links and, per switch port index, the peer it is cabled to."""

    def __init__(self, *tiers: list[str]) -> None:
        self.index = {name: i for tier in tiers for i, name in enumerate(tier)}
        """Switch -> its number within its tier (even: SONiC, odd: Cumulus)."""
        self.peers: dict[str, dict[int, str]] = {name: {} for tier in tiers for name in tier}
        self.lines: list[str] = []

    def end(self, device: str, port: int | str) -> str:
        if isinstance(port, str):
            return f"{device}:{port}"
        return f"{device}:{port_name(self.index[device], port)}"

    def add(self, a: str, pa: int | str, b: str, pb: int | str, length: int) -> None:
        ea, eb = self.end(a, pa), self.end(b, pb)
        for dev, port, other in ((a, pa, eb), (b, pb, ea)):
            if isinstance(port, int):
                self.peers[dev][port] = other
        self.lines.append(f"  - {{a: '{ea}', b: '{eb}', length_m: {length}}}")


def generate(
    root: Path, scale: float, hosts: bool | None = None, shape: Shape | None = None
) -> Generated:
    """Write the fabric under ``root``: configs, host snapshots and ``inventory.yaml``
    (``shape`` instead of the scaled default shape when given)."""
    if hosts is None:
        hosts = host_platform_available()
    shape = shape or Shape.scaled(scale)
    n_spines, n_leaves = shape.spines, shape.leaves
    spines = [f"spine{i}" for i in range(n_spines)]
    leaves = [f"leaf{i}" for i in range(n_leaves)]
    net = _Links(spines, leaves)
    for i, leaf in enumerate(leaves):
        for k in range(shape.uplinks):
            g = i * shape.uplinks + k
            net.add(leaf, shape.host_ports + k, spines[g % n_spines], g // n_spines, 30)
    if n_leaves >= 3:
        net.add(leaves[0], PORTS - 1, leaves[2], PORTS - 1, 3)
    gen = Generated(root=root, inventory=root / "inventory.yaml", hosts=hosts)
    gen.files = {"json": [], "yaml": [], "text": []}
    devices = _hosts(root, shape, leaves, net, gen) if hosts else []
    devices = _switches(root, spines, leaves, net, gen, host_ports=shape.host_ports) + devices
    gen.links = len(net.lines)
    gen.inventory.write_text(_inventory(devices, net.lines), encoding="utf-8")
    gen.files["yaml"].append(gen.inventory)
    return gen


def _hosts(root: Path, shape: Shape, leaves: list[str], net: _Links, gen: Generated) -> list[str]:
    lines = []
    for h in range(shape.hosts):
        name = f"gpu{h}"
        nics = [f"eth{j}" for j in range(shape.nics_per_host)]
        for j, nic in enumerate(nics):
            g = h * shape.nics_per_host + j
            if g // shape.host_ports < len(leaves):
                net.add(leaves[g // shape.host_ports], g % shape.host_ports, name, nic, 3)
        folder = root / "hosts" / name
        gen.files["text"] += write_host(folder, name, nics, "eth3" if h == 0 else None)
        gen.nic_ports += len(nics)
        listed = ", ".join(nics)
        lines.append(
            f"  {name}: {{platform: linux_host, role: host, snapshot: hosts/{name},"
            f" nics: [{listed}]}}"
        )
    return lines


def _switches(
    root: Path,
    spines: list[str],
    leaves: list[str],
    net: _Links,
    gen: Generated,
    *,
    host_ports: int = HOST_PORTS,
) -> list[str]:
    lines = []
    (root / "configs").mkdir(parents=True, exist_ok=True)
    for name in spines + leaves:
        i = net.index[name]
        role = "spine" if name.startswith("spine") else "leaf"
        if i % 2 == 0:
            first_uplink = host_ports if name == "leaf0" else -1
            ecn = "ecn_none" if name == "spine0" else "ecn_all"
            text = sonic_config(name, net.peers[name], no_pfc=first_uplink, ecn=ecn)
            path, platform, kind = root / "configs" / f"{name}.json", "sonic", "json"
        else:
            text = cumulus_config(name, net.peers[name], roce_prio=0 if name == "leaf1" else 3)
            path, platform, kind = root / "configs" / f"{name}.yaml", "cumulus", "yaml"
        path.write_text(text, encoding="utf-8")
        gen.files[kind].append(path)
        gen.switches += 1
        gen.switch_ports += PORTS
        lines.append(
            f"  {name}: {{platform: {platform}, role: {role}, snapshot: configs/{path.name}}}"
        )
    return lines


def _inventory(devices: list[str], links: list[str]) -> str:
    head = [
        "# generated by benchmarks/lint_scale.py",
        "intent:",
        "  lossless_priorities: [3]",
        "  roce_dscp: [26]",
        "  cnp: {dscp: 48, priority: 6}",
        "devices:",
    ]
    return "\n".join([*head, *devices, "links:", *links]) + "\n"
