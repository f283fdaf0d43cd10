"""NVIDIA Onyx (MLNX-OS) platform: ``show running-config``.

Input: the running configuration (``show running-config``) in its flat saved form
(``interface ethernet 1/1 traffic-class 3 congestion-control ecn ...``), and runbooks or CLI
transcripts of the same commands entered in context mode (``switch (config interface ethernet
1/1) # qos trust L3``). The ``roce`` one-shot command is expanded to the documented defaults
of NVIDIA's manual (:mod:`.roce`).

Modules: :mod:`.commands` (what to collect, sniffing), :mod:`.lines` (text -> statements),
:mod:`.reader` and :mod:`.shape` (the vendor shape), :mod:`.ports` (the neutral model and
every default with its source), :mod:`.roce`, :mod:`.parse`, :mod:`.redact`,
:mod:`.context` (renderer), :mod:`.remediate` (plan) and :mod:`.changeset` (converge).
Syntax covered and not covered: docs/platforms/onyx.md.
"""

from __future__ import annotations

from rocetune.model import PlatformLimits
from rocetune.platforms.base import Platform, fixed_commands, text_sniffer
from rocetune.platforms.changes import Planner
from rocetune.platforms.common.cli_errors import CISCO
from rocetune.platforms.onyx import changeset, commands, context, redact, remediate
from rocetune.platforms.onyx.parse import parse_snapshot
from rocetune.platforms.onyx.reader import MTU_MAX

__all__ = ["PLATFORM"]


PLATFORM = Platform(
    name="onyx",
    kind="switch",
    description="NVIDIA Onyx",
    commands=fixed_commands(commands.COMMANDS),
    sniff=text_sniffer(commands.sniff),
    parser=parse_snapshot,  # ParseError when the snapshot has no running-config
    device_type="mellanox_mlnxos",
    redactor=redact.redact,
    error_marker=CISCO,  # `% Unrecognized command "x".`
    enable_mode=True,  # lands at `switch >`, where `show running-config` is refused
    # Onyx interface mtu 1500-9216 (Onyx User Manual, Ethernet interface commands); the PFC
    # watchdog is not read, so no timer ranges.
    limits=PlatformLimits(mtu_max=MTU_MAX),
    render=context.RENDER,
    planner=Planner(
        remediate=remediate.remediate,
        simulate=remediate.simulate,
        changeset=changeset.changeset,
        safe_apply="configuration-write-switch-to",
        fix_ext="cfg",
        comment="#",
    ),
)
"""NVIDIA Onyx switches (``platform: onyx`` in the inventory)."""
