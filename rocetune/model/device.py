"""Devices and their ports: switch ports and host NIC ports, vendor-neutral.

Units are normalised by the parsers: bytes, percent, milliseconds, Mb/s, metres.
``None`` always means "not known from the snapshot" (see :class:`rocetune.model.base.Model`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rocetune.model.base import Model
from rocetune.model.limits import WatchdogLimits

Trust = Literal["dscp", "pcp", "both", "port"]
"""How a port classifies: by DSCP (L3), by PCP (L2), both (IP by DSCP), or the port default."""

SchedulerKind = Literal["strict", "dwrr", "wrr", "ets", "vendor"]


Feature = Literal[
    "trust",
    "dscp_map",
    "pfc",
    "watchdog",
    "ecn",
    "scheduler",
    "buffers",
    "mtu",
    "speed",
    "cnp",
    "dcqcn",
    "roce_mode",
    "lldp",
    "ports",
]
"""What an input item may change. Rules that depend on a feature of a port must not assert
absence there when an :class:`Unparsed` item touches that feature (they say RT000 "could
not verify" instead). ``ports`` = which ports exist (breakout, chassis keys)."""

QOS_FEATURES: tuple[Feature, ...] = (
    "trust",
    "dscp_map",
    "pfc",
    "watchdog",
    "ecn",
    "scheduler",
    "buffers",
)
"""The features a QoS line may touch when nothing narrower is known."""


class Unparsed(Model):
    """A QoS-relevant input item the parser did not understand (reported as RT001)."""

    item: str
    """The key path or the line text, as the user would search for it."""
    reason: str
    file: str | None = None
    line: int | None = None
    ports: tuple[str, ...] | None = None
    """The ports the item applies to (an interface body, a port key); None = not bound to
    particular ports (a global line: it may affect every port)."""
    features: tuple[Feature, ...] = ()
    """The facts the item may change; () = unknown or none the rules read (prose, banners)."""


class EcnProfile(Model):
    """An ECN/WRED profile bound to an egress queue. Thresholds in bytes."""

    name: str | None = None
    ecn_mark: bool | None = None
    """True when the profile marks CE (ECN); False for drop-only (WRED/RED)."""
    red_drop: bool | None = None
    """True when the profile also drops early (RED/WRED drop enabled)."""
    min_threshold_bytes: int | None = None
    max_threshold_bytes: int | None = None
    max_probability_pct: float | None = None


class Scheduler(Model):
    """Egress scheduling for one queue/traffic class."""

    name: str | None = None
    kind: SchedulerKind | None = None
    weight: float | None = None
    """DWRR/ETS share in percent (or the raw weight where the platform uses weights)."""
    weight_is_percent: bool = True


class BufferProfile(Model):
    """A buffer profile bound to an ingress priority group or an egress queue. Bytes."""

    name: str | None = None
    pool: str | None = None
    size_bytes: int | None = None
    xon_bytes: int | None = None
    xoff_bytes: int | None = None
    xon_offset_bytes: int | None = None
    pause_threshold_bytes: int | None = None
    """Fill level of the PG buffer at which the port sends pause, where the platform sets it
    explicitly (NX-OS ``pause buffer-size B pause-threshold P resume-threshold R``: size B,
    pause threshold P, ``xon_bytes`` R = the fill level at which it resumes, ``xoff_bytes`` =
    B - P = the headroom above the pause point). None elsewhere."""
    dynamic_th: int | None = None
    """Dynamic threshold exponent n (alpha = 2^n) where the platform uses it."""
    alpha: float | None = None
    """Shared-buffer alpha (2^dynamic_th on SONiC; alpha_X on Cumulus). inf = unlimited."""
    static_th_bytes: int | None = None
    computed_at_runtime: bool = False
    """True when the switch computes the profile itself (SONiC dynamic model, NULL profile)."""
    vendor_table: str | None = None
    """The vendor's table row these values equal (e.g. a SONiC SKU's pg_profile_lookup.ini
    row), so a shortfall against the current computation is the vendor's own default."""
    generated_at_runtime: str | None = None
    """Not in the configuration: what the switch creates at runtime and from what (SONiC
    buffermgrd's lossless PGs of the traditional model)."""


class HeadroomParams(Model):
    """Inputs of the switch's own headroom computation held in its configuration (SONiC
    LOSSLESS_TRAFFIC_PATTERN, DEFAULT_LOSSLESS_BUFFER_PARAMETER; platform gearbox delay).
    None = not in the snapshot (the vendor's default applies)."""

    lossless_mtu_bytes: int | None = None
    small_packet_pct: float | None = None
    over_subscribe_ratio: float | None = None
    gearbox_delay_ns: float | None = None


class BufferPool(Model):
    """A shared-buffer pool. Sizes in bytes."""

    name: str
    direction: Literal["ingress", "egress"] | None = None
    mode: Literal["static", "dynamic"] | None = None
    size_bytes: int | None = None
    percent: float | None = None
    shared_headroom_bytes: int | None = None
    lossless: bool | None = None


class Watchdog(Model):
    """PFC watchdog state of one port."""

    enabled: bool
    detection_ms: float | None = None
    restoration_ms: float | None = None
    action: str | None = None
    """drop | forward | alert (vendor words normalised: no-drop -> forward)."""
    priorities: tuple[int, ...] | None = None
    """Priorities/queues watched; None = every PFC-enabled priority."""
    runtime_default: bool = False
    """True when no per-port setting configures the watchdog and this state is what the
    platform's default gives when the configuration is loaded (SONiC: ``DEVICE_METADATA``
    ``default_pfcwd_status`` in a configuration that is not the running one, see
    :attr:`Device.config_source`)."""


class Port(Model):
    """A switch port. Maps are keyed by ints (DSCP, priority, TC, PG, queue)."""

    name: str
    speed_mbps: int | None = None
    mtu: int | None = None
    """The port's IP (L3) MTU in bytes: the largest IP packet, without the Ethernet header,
    FCS and VLAN tag the switch adds on top (SONiC ``PORT.mtu``, NVUE ``link mtu``, EOS and
    NX-OS ``mtu``, Linux netdev MTU all count this way; docs/mtu.md). A platform that counts
    the whole frame converts to this unit."""
    class_mtu: int | None = None
    """The IP MTU of the traffic class that carries the lossless priorities, where the
    platform sets an MTU per class (NX-OS network-qos ``class ... mtu``); None = no per-class
    MTU (the port MTU applies) or not known."""
    admin_up: bool | None = None
    trust: Trust | None = None
    cos_to_tc: dict[int, int] | None = None
    """Explicitly configured 802.1p CoS -> traffic class entries where the platform keeps a
    CoS map apart from the DSCP map (EOS ``qos map cos N to traffic-class T``); CoS values not
    listed keep the platform default. They classify packets the port classifies by CoS (trust
    ``pcp``, and non-IP tagged frames under ``dscp``/``both``). ``{}`` = none configured;
    None = not known or not applicable."""
    dscp_to_priority: dict[int, int] | None = None
    """DSCP -> switch priority. On platforms that map DSCP straight to a TC (SONiC), the TC
    number is the switch priority and ``priority_to_tc`` is the identity."""
    priority_to_tc: dict[int, int] | None = None
    tc_to_pg: dict[int, int] | None = None
    tc_to_queue: dict[int, int] | None = None
    pfc_priority_to_queue: dict[int, int] | None = None
    pfc_priority_to_pg: dict[int, int] | None = None
    pfc_rx: tuple[int, ...] | None = None
    """Priorities on which received PFC frames are honoured."""
    pfc_tx: tuple[int, ...] | None = None
    """Priorities on which the port generates PFC frames."""
    pfc_mode: Literal["on", "off", "auto"] | None = None
    """How PFC is enabled where the platform has a mode: ``on`` (forced), ``off``, ``auto``
    (NX-OS ``priority-flow-control mode auto``, the default: PFC runs on ``pfc_rx``/``pfc_tx``
    only while DCBX negotiation with the peer succeeds). ``off`` also where a config line
    explicitly switches PFC off for the port although the platform has no mode word (EOS
    ``no priority-flow-control``, ``priority-flow-control all off``). None = the
    platform has no mode, PFC is off only by default, or it is not known."""
    link_pause: bool | None = None
    """802.3x link-level pause (rx or tx) enabled."""
    watchdog: Watchdog | None = None
    ecn: dict[int, EcnProfile] | None = None
    """Egress queue -> ECN profile; a queue missing from a known dict has no ECN."""
    schedulers: dict[int, Scheduler] | None = None
    """Egress queue -> scheduler."""
    pg_buffers: dict[int, BufferProfile] | None = None
    """Ingress priority group -> buffer profile."""
    queue_buffers: dict[int, BufferProfile] | None = None
    """Egress queue -> buffer profile."""
    cable_length_m: float | None = None
    lanes: int | None = None
    """Serdes lanes of the port (SONiC ``PORT.lanes`` counted); None = not known. The
    headroom computation doubles the pipeline latency of an 8-lane port (docs/buffers.md)."""
    fec: str | None = None
    """Forward error correction mode: ``none``, ``rs`` (RS-FEC), ``fc`` (FC/BASE-R FEC) or
    ``auto`` (negotiated, so not known from the configuration)."""
    alias: str | None = None
    """The platform's other name of the port (SONiC ``PORT.alias``), which some switches
    advertise as their LLDP port ID."""
    dscp_rewrite: dict[int, int] | None = None
    """Egress DSCP remarking: switch priority -> the DSCP written into IP packets leaving
    this port (SONiC PORT_QOS_MAP ``tc_to_dscp_map``, Cumulus ``qos remark`` switch-priority
    dscp). ``{}`` = the port rewrites no DSCP. It applies to packets received on a port
    whose ``dscp_rewrite_on_ingress`` is True."""
    dscp_rewrite_on_ingress: bool | None = None
    """Packets received on this port are eligible for egress DSCP remarking (Cumulus
    ``qos remark <profile> rewrite l3|both`` bound to the ingress port; always True on
    platforms whose egress maps apply to every packet, such as SONiC)."""
    pfc_oper: tuple[int, ...] | None = None
    """Priorities on which the switch reports, at runtime, that the port generates PFC
    (SONiC ``show pfc priority``, Cumulus ``nv show qos roce``); None = not collected."""
    template: bool = False
    """True for a port that is not in the input: the file configures no interface, only
    device-wide QoS (an NX-OS ``system qos`` script, ``nv set qos roce`` alone), so the parser
    adds one port named with the platform's glob (``swp*``, ``Ethernet*``) that stands for
    every port inheriting those settings. Its per-port fields (MTU, admin state, PFC mode
    where it is per port) are unknown (None); RT003 says the real ports were not seen."""


class NicPort(Model):
    """A host NIC port (netdev + RDMA device), e.g. a ConnectX port."""

    name: str
    rdma_device: str | None = None
    speed_mbps: int | None = None
    mtu: int | None = None
    trust: Trust | None = None
    dscp_to_priority: dict[int, int] | None = None
    pfc_priorities: tuple[int, ...] | None = None
    priority_to_tc: dict[int, int] | None = None
    tc_scheduler: dict[int, Scheduler] | None = None
    priority_to_buffer: dict[int, int] | None = None
    buffer_sizes_bytes: dict[int, int] | None = None
    cable_length_m: float | None = None
    global_pause_rx: bool | None = None
    global_pause_tx: bool | None = None
    dcqcn_rp: dict[int, bool] | None = None
    dcqcn_np: dict[int, bool] | None = None
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    roce_tos: int | None = None
    """rdma_cm default ToS (DSCP << 2 | ECN)."""
    traffic_class: int | None = None
    """Verbs GRH traffic class (tc/<port>/traffic_class)."""
    roce_mode: Literal["v1", "v2"] | None = None
    gid_index_v2_ipv4: tuple[int, ...] | None = None
    dcbx_mode: Literal["os", "firmware"] | None = None
    firmware: dict[str, str] | None = None
    """mlxconfig current values (ROCE_CC_PRIO_MASK_P1, CNP_DSCP_P1, ...)."""
    firmware_port: int | None = None
    """Adapter port (1-based) whose ``_P<n>`` firmware parameters apply to this port (PCI
    function + 1); None = not known (rules then read the ``_P1`` parameters)."""
    dcqcn_params: dict[str, int] | None = None
    """DCQCN parameters by MLNX_OFED sysfs name (``ecn/roce_rp/rpg_gd`` -> ``rpg_gd``;
    upstream debugfs ``cc_params`` names mapped to the same keys), integer values only (the
    ``enable/<p>`` files are ``dcqcn_rp``/``dcqcn_np``). None = not collected (RT315)."""


class LldpNeighbor(Model):
    """One LLDP neighbour seen on a local port."""

    local_port: str
    remote_name: str
    remote_port: str
    remote_port_descr: str | None = None
    """The neighbour's port description, tried as its port name when the port ID is not one
    (lldpd on a Linux host advertises its MAC as port ID and the interface name here)."""


class AppTlv(Model):
    """One DCBX application priority entry advertised over LLDP (IEEE 802.1Qaz APP TLV)."""

    selector: Literal["ethertype", "tcp", "udp", "tcp_udp", "dscp"]
    protocol: int
    """EtherType, TCP/UDP port or DSCP value, as the selector says (RoCE v2: udp 4791)."""
    priority: int
    """The 802.1p priority the TLV tells peers to use for that traffic."""


class Device(Model):
    """One switch or host, as parsed from its snapshot."""

    name: str
    kind: Literal["switch", "host"]
    platform: str
    role: str | None = None
    hostname: str | None = None
    asic: str | None = None
    ports: dict[str, Port] = Field(default_factory=dict)
    nics: dict[str, NicPort] = Field(default_factory=dict)
    buffer_pools: dict[str, BufferPool] | None = None
    headroom_params: HeadroomParams | None = None
    """Headroom computation inputs the device holds (see :class:`HeadroomParams`)."""
    watchdog_poll_ms: float | None = None
    lldp: tuple[LldpNeighbor, ...] | None = None
    unparsed: tuple[Unparsed, ...] = ()
    roce_ports: tuple[str, ...] | None = None
    """The ports the inventory declares as RoCE ports (names, globs, ``swp1-32`` ranges);
    None = not declared (the lossless domain then comes from the config and the links)."""
    snapshot_device: str | None = None
    """The device name the snapshot records it was collected from (``meta.json``)."""
    facts: dict[str, str] = Field(default_factory=dict)
    """Free-form device facts (OS version, buffer model) for reports, never for rules."""
    tunnel_dscp_rewrite: dict[str, dict[int, int] | None] | None = None
    """Tunnel name -> switch priority -> the DSCP written into the outer header of packets
    the switch encapsulates (SONiC TUNNEL ``encap_tc_to_dscp_map``); ``{}`` for a tunnel that
    copies the inner DSCP, None for a tunnel whose outer DSCP is not known. ``{}`` = the
    device has no tunnels; None = not known from the snapshot."""
    lldp_app_tlvs: tuple[AppTlv, ...] | None = None
    """DCBX application priority TLVs the switch advertises over LLDP; () = none."""
    config_source: Literal["running", "rendered"] | None = None
    """What the configuration in the snapshot is: ``running`` = read from the device by
    ``rocetune collect`` (the snapshot's meta.json has ``collected_at``), so a setting that is
    absent is not in effect; ``rendered`` = a configuration file not known to be loaded (a
    saved or generated file), so the platform's load-time defaults still apply to what it
    leaves out. Set by parsers whose platform has such defaults (SONiC); None = not told."""
    mtu_max: int | None = None
    """The largest port MTU the platform accepts, in the unit of :attr:`Port.mtu` (EOS 9214);
    None = not known. A larger configured MTU is rejected by the switch (RT601). Set from the
    platform's :class:`~rocetune.model.limits.PlatformLimits` when parsed."""
    watchdog_limits: WatchdogLimits | None = None
    """The platform's valid PFC watchdog timers (RT206), set from its
    :class:`~rocetune.model.limits.PlatformLimits` when parsed; None = not known."""
    tunnel_lossless_priorities: tuple[int, ...] | None = None
    """Lossless priorities that carry traffic the switch re-queues through a tunnel: the SONiC
    dual-ToR design (``DEVICE_METADATA`` ``subtype: DualToR``) moves the lossless traffic the
    standby ToR bounces back to the T1 onto other queues (TUNNEL ``encap_tc_to_queue_map``, TC
    3 -> 2 and 4 -> 6) so the bounce cannot close a PFC deadlock, and enables PFC on them.
    ``()`` = none; None = not known."""
