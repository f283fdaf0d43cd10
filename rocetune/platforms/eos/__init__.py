"""Arista EOS platform driver: ``show running-config`` (+ LLDP, interface status JSON).

Input: the running configuration (``show running-config``, or ``show running-config all``;
also AVD intended configs), optionally ``show lldp neighbors detail | json`` (or the brief
``show lldp neighbors | json``) for ``Device.lldp`` and ``show interfaces status | json`` for
the operational speed of ports whose speed is not configured.

Modules: :mod:`.commands` (what to collect, sniffing), :mod:`.blocks` (text -> indented line
tree, Unparsed collector), :mod:`.reader` and :mod:`.qos_lines` (the vendor shape of
:mod:`.shape`), :mod:`.values` (names, ranges, speeds, units), :mod:`.ports` (the neutral
model and every semantic decision with its source), :mod:`.operational` (JSON outputs) and
:mod:`.parse` (orchestration and provenance).

Sources: S18 (AVD ``eos_cli_config_gen`` priority-flow-control/qos docs and molecule configs)
and S19 (Arista EOS manual, DCBX and Flow Control) of roce-knowledge.md; defaults that could
not be confirmed are marked **[unverified]** where they are used.
"""

from __future__ import annotations

from rocetune.model import PlatformLimits, WatchdogLimits
from rocetune.platforms.base import Platform, fixed_commands, lazy_transaction, text_sniffer
from rocetune.platforms.changes import Planner, lazy_changeset, without_intent
from rocetune.platforms.common.cli_errors import CISCO
from rocetune.platforms.eos import commands, context, counters, redact, remediate
from rocetune.platforms.eos.parse import MTU_MAX, parse_snapshot

__all__ = ["PLATFORM"]


PLATFORM = Platform(
    name="eos",
    kind="switch",
    description="Arista EOS",
    commands=fixed_commands(commands.COMMANDS),
    sniff=text_sniffer(commands.sniff),
    parser=parse_snapshot,  # ParseError when the running-config is missing
    device_type="arista_eos",
    redactor=redact.redact,
    error_marker=CISCO,
    shell_setup=("terminal width 511", "terminal length 0"),  # netmiko arista_eos's
    limits=PlatformLimits(
        mtu_max=MTU_MAX,
        watchdog=WatchdogLimits(
            detection_ms=(10, 60000),
            restoration_ms=(10, 60000),
            poll_ms=(5, 30000),
            poll_max_fraction=0.5,
            source="EOS pause watchdog timers (S18; partly unverified, roce-knowledge.md §2.4)",
        ),
    ),
    render=context.RENDER,
    planner=Planner(
        remediate=without_intent(remediate.remediate),
        simulate=remediate.simulate,
        changeset=lazy_changeset("rocetune.platforms.eos.changeset"),
        safe_apply="config-session-commit-timer",
        fix_ext="cfg",
        comment="!",
    ),
    transaction_factory=lazy_transaction("rocetune.platforms.eos.transaction", "EosTransaction"),
    counter_reader=counters.READER,
)
"""Arista EOS switches (``platform: eos`` in the inventory)."""
