"""Cisco NX-OS (Nexus 9000) platform driver.

Input: ``show running-config`` (required), ``show interface | json`` and ``show lldp
neighbors detail | json`` (optional operational data). A saved running-config or pasted
configuration snippet is recognised by :func:`.commands.sniff`.

Modules: :mod:`.commands` (what to collect, sniffing, JSON shapes), :mod:`.lines` (text ->
line tree, RT001 collector), :mod:`.values` (lists, DSCP names, sizes, port names),
:mod:`.config` (top-level commands, ``system qos``, global PFC watchdog), :mod:`.classes`
(class-maps), :mod:`.policies` (policy-map structure, type qos), :mod:`.queuing` (type
queuing and network-qos), :mod:`.interfaces` (interface blocks, breakout), :mod:`.plan`
(system policies, the qos-group/CoS mapping), :mod:`.ports` (the neutral model),
:mod:`.operational` (JSON outputs) and :mod:`.parse` (orchestration and provenance).
Each module's docstring states the syntax it reads and the modelling choices with sources.

Sources: S20 (Nexus 9000 NX-OS 10.5(x) QoS guide, Configuring PFC: watchdog workflow, 100 ms
poll), S16/S21/S45 via roce-knowledge.md §2.5 (the AI/ML blueprint pattern: ``class-map type
qos match dscp 26`` -> ``set qos-group 3``, ``c-8q-nq3`` ``pause pfc-cos 3``, ``c-out-8q-q3``
``bandwidth remaining percent 50`` + ``random-detect ... ecn``, ``c-out-8q-q7`` ``priority
level 1``, ``system qos`` bindings, interface ``priority-flow-control mode on`` and
``watch-dog-interval on``), the NX-API REST reference "Configuring Priority Flow Control"
(PFC modes auto/on/off), batfish's NX-OS grammar test configs (class-map/policy-map forms)
and public collectors' NX-OS JSON samples (see :mod:`.commands`).
"""

from __future__ import annotations

from rocetune.model import PlatformLimits
from rocetune.platforms.base import Platform, fixed_commands, lazy_transaction, text_sniffer
from rocetune.platforms.changes import Planner, lazy_changeset, without_intent
from rocetune.platforms.common.cli_errors import CISCO
from rocetune.platforms.nxos import commands, context, counters, redact, remediate
from rocetune.platforms.nxos.parse import parse_snapshot

__all__ = ["PLATFORM"]


PLATFORM = Platform(
    name="nxos",
    kind="switch",
    description="Cisco NX-OS",
    commands=fixed_commands(commands.COMMANDS),
    sniff=text_sniffer(commands.sniff),
    parser=parse_snapshot,
    device_type="cisco_nxos",
    redactor=redact.redact,
    error_marker=CISCO,
    shell_setup=("terminal width 511", "terminal length 0"),  # netmiko cisco_nxos's
    # Watchdog timer ranges not modelled yet: RT206 runs its generic checks.
    limits=PlatformLimits(mtu_max=9216),  # NX-OS mtu 576-9216 (docs/mtu.md)
    render=context.RENDER,
    planner=Planner(
        remediate=without_intent(remediate.remediate),
        simulate=remediate.simulate,
        changeset=lazy_changeset("rocetune.platforms.nxos.changeset"),
        safe_apply="checkpoint-rollback",
        fix_ext="cfg",
        comment="!",
    ),
    transaction_factory=lazy_transaction("rocetune.platforms.nxos.transaction", "NxosTransaction"),
    counter_reader=counters.READER,
)
"""Cisco Nexus switches running NX-OS (``platform: nxos``)."""
