"""Importers: turn another tool's inventory into a rocetune inventory (``rocetune init``).

Each importer reads one source (an Ansible inventory, a Nornir SimpleInventory, NetBox's REST
API, a plain host list, one switch's LLDP neighbours) into a :class:`Scaffold`, and
:func:`render` writes it as inventory YAML: the default intent, groups by platform and role,
devices with ``host:`` and ``platform:``. Passwords are never copied: the scaffold names the
environment variables rocetune reads them from (``username:`` may be a literal name).
"""

from __future__ import annotations

from rocetune.importers.scaffold import ImportedDevice, ImportedLink, Scaffold, platform_for, render

__all__ = ["ImportedDevice", "ImportedLink", "Scaffold", "platform_for", "render"]
