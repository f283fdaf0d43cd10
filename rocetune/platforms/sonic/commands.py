"""What rocetune collects from a SONiC switch.

``show runningconfiguration all`` prints the running CONFIG_DB as JSON (sonic-utilities
``show/main.py``): the nested ``{"TABLE": {"key": {...}}}`` form plus a ``bgpraw`` string
on single-ASIC switches, and ``{"localhost": {...}, "asic0": {...}}`` on multi-ASIC ones.
Everything the parser needs (ports, QoS maps, queues, WRED, buffers, cable lengths, PFC
watchdog, device metadata) is in it; the only other command is the optional LLDP one.
"""

from __future__ import annotations

from rocetune.snapshot import Command

CONFIG_DB = Command(id="config_db", command="show runningconfiguration all", encoding="json")
"""The running CONFIG_DB (snapshot file ``show_runningconfiguration_all.json``)."""

LLDP = Command(
    id="lldp", command="docker exec lldp lldpctl -f json", encoding="json", required=False
)
"""LLDP neighbours from lldpd in the ``lldp`` container (optional; snapshot file
``docker_exec_lldp_lldpctl_f_json.json``). sonic-utilities ``scripts/lldpshow`` (``show lldp
table``) runs ``docker exec -i lldp lldpctl`` the same way; the default user is in the
``docker`` group (sonic-buildimage ``build_debian.sh``). On multi-ASIC switches the
front-panel neighbours live in the per-ASIC ``lldp<N>`` containers, which are not collected
yet. A SONiC neighbour advertises its ``PORT`` alias as a ``local`` port ID (lldpmgrd)."""

PFC_PRIORITY = Command(
    id="pfc_priority", command="show pfc priority", encoding="text", required=False
)
"""The PFC priorities the switch reports per port (optional; snapshot file
``show_pfc_priority.txt``): sonic-utilities ``pfc/main.py`` prints ``pfc_enable`` of every
``PORT_QOS_MAP`` key of the running CONFIG_DB (``N/A`` when unset), one table per namespace
on multi-ASIC switches. It fills ``Port.pfc_oper`` (RT208)."""

COMMANDS: tuple[Command, ...] = (CONFIG_DB, LLDP, PFC_PRIORITY)
"""Commands to collect, in order."""
