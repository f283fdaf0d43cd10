"""NVIDIA Cumulus Linux 5.x (NVUE) platform driver.

Input: the applied NVUE configuration (``nv config show -o yaml``; the same tree from JSON or
from an ``nv set`` command list), optionally ``nv show interface -o json`` (operational link
speed/MTU/state) and ``nv show qos roce -o json`` (facts, runtime PFC priorities, LLDP
application TLV). Other Cumulus files are recognised and reported as unsupported (RT001),
never passed silently.

Modules: :mod:`.commands` (what to collect, sniffing), :mod:`.nvue_yaml` and
:mod:`.commands_text` (raw vendor shape), :mod:`.defaults` (documented defaults and the
``nv set qos roce`` expansion, with sources), :mod:`.qos` / :mod:`.qos_queues` (effective
profiles), :mod:`.interfaces` / :mod:`.ports` (the neutral model), :mod:`.operational`,
:mod:`.unsupported` and :mod:`.parse` (orchestration and provenance).

NVUE shape facts and their sources:

- ``nv config show -o yaml`` is a list ``- header: {model, nvue-api-version, rev-id,
  version}`` / ``- set: {...}``; interface keys may be ranges and lists (``swp51-54``,
  ``swp2,6``, ``swp1,51-54``); ``link: {mtu, speed, state: {up: {}}}`` (public NVUE exports
  in NVIDIA example repositories; CumulusNetworks/docs EVPN/MLAG examples).
- ``qos`` keys and profile structure: CumulusNetworks/docs nvue-reference QoS.md and the
  ``nvidia.nvue`` Ansible ``qos`` module (S3): roce {enable|state, mode, cable-length},
  pfc-watchdog {polling-interval, robustness}, pfc/link-pause <profile> {switch-priority,
  rx, tx, cable-length, port-buffer, xoff-threshold, xon-threshold}, congestion-control
  <profile> traffic-class <tc> {ecn, red, min-threshold, max-threshold, probability},
  egress-scheduler <profile> traffic-class <tc> {mode, bw-percent}, egress-queue-mapping
  default-global switch-priority <sp> {traffic-class}, mapping <profile> {trust, dscp, pcp,
  port-default-sp}, traffic-pool <name> {memory-percent, switch-priority},
  advance-buffer-config default-global {...}; per interface ``qos <feature> profile <name>``
  and ``qos pfc-watchdog [state]``.
- Defaults and the RoCE expansion: :mod:`.defaults` (S1, S2, NVUE reference).
"""

from __future__ import annotations

from rocetune.model import PlatformLimits, WatchdogLimits
from rocetune.platforms.base import Platform, fixed_commands, lazy_transaction, text_sniffer
from rocetune.platforms.changes import Planner, without_intent
from rocetune.platforms.common.cli_errors import SHELL
from rocetune.platforms.cumulus import changeset, commands, context, counters, redact, remediate
from rocetune.platforms.cumulus.parse import parse_snapshot

__all__ = ["PLATFORM"]


PLATFORM = Platform(
    name="cumulus",
    kind="switch",
    description="NVIDIA Cumulus Linux 5.x (NVUE)",
    commands=fixed_commands(commands.COMMANDS),
    sniff=text_sniffer(commands.sniff),
    parser=parse_snapshot,
    device_type="cumulus_linux",  # netmiko >= 4.6
    redactor=redact.redact,
    error_marker=SHELL,
    shell_setup=(),  # a bash login, as netmiko's linux session preparation: none
    limits=PlatformLimits(
        mtu_max=9216,  # NVUE link mtu 552-9216 (docs/mtu.md)
        watchdog=WatchdogLimits(
            poll_bounds_restoration=False,
            detection_multiple_of_poll=True,
            source="Cumulus NVUE polling-interval x robustness (S2)",
        ),
    ),
    render=context.RENDER,
    planner=Planner(
        remediate=without_intent(remediate.remediate),
        simulate=remediate.simulate,
        changeset=changeset.changeset,
        safe_apply="nvue-apply-confirm",
        fix_ext="nv.txt",
    ),
    transaction_factory=lazy_transaction(
        "rocetune.platforms.cumulus.transaction", "CumulusTransaction"
    ),
    counter_reader=counters.READER,
)
"""NVIDIA Cumulus Linux 5.x switches configured with NVUE (``platform: cumulus``)."""
