"""Enterprise SONiC platform (Dell / Broadcom distributions, ``sonic-cli`` Klish).

Input: ``show running-configuration`` of sonic-cli, saved or collected; also sonic-cli
transcripts and runbooks (Klish prompts are understood). The text is read into the
CONFIG_DB tables its commands write and the SONiC model builder does the rest
(:mod:`.parse`). Modules: :mod:`.commands` (what to collect, sniffing), :mod:`.grammar`
(CLI modes), :mod:`.names` (native and standard interface names), :mod:`.reader` and
:mod:`.interfaces` (lines -> tables), :mod:`.values`, :mod:`.redact`, :mod:`.context`
(render), :mod:`.remediate` and :mod:`.changeset` (plan).

Syntax covered and not covered, with sources: docs/platforms/enterprise_sonic.md.
"""

from __future__ import annotations

from rocetune.model import PlatformLimits, WatchdogLimits
from rocetune.platforms.base import Platform, fixed_commands, text_sniffer
from rocetune.platforms.changes import Planner, lazy_changeset
from rocetune.platforms.common.cli_errors import CISCO
from rocetune.platforms.enterprise_sonic import commands, context, redact, remediate
from rocetune.platforms.enterprise_sonic.parse import parse_snapshot

__all__ = ["PLATFORM"]


PLATFORM = Platform(
    name="enterprise_sonic",
    kind="switch",
    description="Enterprise SONiC (Dell/Broadcom sonic-cli running configuration)",
    commands=fixed_commands(commands.COMMANDS),
    sniff=text_sniffer(commands.sniff),
    parser=parse_snapshot,  # ParseError when the running configuration is missing
    # netmiko's DellSonicSSH logs in to bash, runs `sonic-cli` and `terminal length 0`
    device_type="dell_sonic",
    redactor=redact.redact,
    error_marker=CISCO,  # `%Error: Invalid input detected at "^" marker.`
    limits=PlatformLimits(
        mtu_max=9216,  # PORT.mtu, as community SONiC (docs/mtu.md)
        watchdog=WatchdogLimits(
            detection_ms=(100, 5000),
            restoration_ms=(100, 60000),
            poll_ms=(100, 3000),
            source=(
                "Dell enterprise_sonic Ansible collection (S49): qos_interfaces detect "
                "100-5000 ms, restore 100-60000 ms; qos_pfc polling interval 100-3000 ms"
            ),
        ),
    ),
    render=context.RENDER,
    planner=Planner(
        remediate=remediate.remediate,
        simulate=remediate.simulate,
        changeset=lazy_changeset("rocetune.platforms.enterprise_sonic.changeset"),
        safe_apply="paste-verify-write-memory",
        fix_ext="esonic.cfg",
        comment="!",
    ),
)
"""Enterprise SONiC switches (``platform: enterprise_sonic`` in the inventory)."""
