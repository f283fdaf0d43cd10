"""What rocetune collects from a SONiC switch.

``show runningconfiguration all`` prints the running CONFIG_DB as JSON (sonic-utilities
``show/main.py``): the nested ``{"TABLE": {"key": {...}}}`` form plus a ``bgpraw`` string
on single-ASIC switches, and ``{"localhost": {...}, "asic0": {...}}`` on multi-ASIC ones.
Everything the parser needs (ports, QoS maps, queues, WRED, buffers, cable lengths, PFC
watchdog, device metadata) is in it, so it is the only command.
"""

from __future__ import annotations

from rocetune.snapshot import Command

CONFIG_DB = Command(id="config_db", command="show runningconfiguration all", encoding="json")
"""The running CONFIG_DB (snapshot file ``show_runningconfiguration_all.json``)."""

COMMANDS: tuple[Command, ...] = (CONFIG_DB,)
"""Commands to collect, in order."""
