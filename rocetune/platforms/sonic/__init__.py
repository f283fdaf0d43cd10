"""SONiC platform driver: CONFIG_DB JSON -> vendor-neutral Device.

Modules: :mod:`.commands` (what to collect), :mod:`.detect` (recognise a saved file),
:mod:`.tables` (JSON -> raw tables), ``norm_*`` + :mod:`.shape` (typed SONiC shape),
:mod:`.resolve`, :mod:`.build_port`, :mod:`.alike` (ports configured alike), :mod:`.build`
(-> model), :mod:`.parse` (entry point), :mod:`.asic` (ASIC family), :mod:`.pfc_priority`
(the optional ``show pfc priority``). The semantics decisions are in each module's
docstring.
"""

from __future__ import annotations

from rocetune.model import PlatformLimits, WatchdogLimits
from rocetune.platforms.base import Platform, fixed_commands, lazy_transaction
from rocetune.platforms.changes import Planner
from rocetune.platforms.common.cli_errors import SHELL
from rocetune.platforms.sonic import changeset, context, counters, redact, remediate
from rocetune.platforms.sonic.commands import COMMANDS, CONFIG_DB
from rocetune.platforms.sonic.detect import looks_like_config_db
from rocetune.platforms.sonic.parse import parse_snapshot
from rocetune.snapshot import Command

__all__ = ["PLATFORM"]


def sniff(path: str, text: str) -> Command | None:
    """The config_db command when ``text`` is a SONiC CONFIG_DB JSON file."""
    del path
    return CONFIG_DB if looks_like_config_db(text) else None


PLATFORM = Platform(
    name="sonic",
    kind="switch",
    description="SONiC (config_db.json)",
    commands=fixed_commands(COMMANDS),
    sniff=sniff,
    parser=parse_snapshot,  # only invalid JSON raises ParseError
    # Community SONiC lands in bash: netmiko has no generic ``sonic`` (``dell_sonic`` is
    # Enterprise SONiC's sonic-cli).
    device_type="linux",
    redactor=redact.redact,
    error_marker=SHELL,
    shell_setup=(),  # a bash login, as netmiko's linux session preparation: none
    limits=PlatformLimits(
        mtu_max=9216,  # PORT.mtu up to 9216 (docs/mtu.md)
        watchdog=WatchdogLimits(
            detection_ms=(100, 5000),
            restoration_ms=(100, 60000),
            poll_ms=(100, 1000),
            source="SONiC sonic-pfcwd.yang / pfcwd CLI (S7, S8)",
        ),
    ),
    render=context.RENDER,
    planner=Planner(
        remediate=remediate.remediate,
        simulate=remediate.simulate,
        changeset=changeset.changeset,
        safe_apply="gcu-checkpoint-apply-patch",
        native="patch",
        fix_ext="patch.json",
    ),
    transaction_factory=lazy_transaction(
        "rocetune.platforms.sonic.transaction", "SonicTransaction"
    ),
    counter_reader=counters.READER,
)
"""SONiC switches (``platform: sonic`` in the inventory)."""
