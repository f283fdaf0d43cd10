"""A plain host list -> :class:`Scaffold`: one ``name [address]`` per line.

Blank lines and ``#`` comments are skipped. The platform and role of each device are left
for the user (a comment says so): a host list does not tell them.
"""

from __future__ import annotations

import re
from pathlib import Path

from rocetune.errors import RocetuneError
from rocetune.importers.scaffold import ImportedDevice, Scaffold

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_HOST = re.compile(r"^[A-Za-z0-9._:%-]{1,253}$")


def parse_hosts(text: str, path: Path) -> Scaffold:
    """The devices of a host list's text (errors name ``path`` and the line)."""
    scaffold = Scaffold(source=f"the host list {path.name}")
    for no, raw in enumerate(text.splitlines(), 1):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) > 2:
            raise RocetuneError(
                f"expected `name [address]`, got {len(fields)} fields", file=path, line=no
            )
        name = fields[0]
        if not _NAME.match(name):
            raise RocetuneError(f"{name!r} is not a device name", file=path, line=no)
        host = fields[1] if len(fields) == 2 else None
        if host is not None and not _HOST.match(host):
            raise RocetuneError(f"{host!r} is not a host name or address", file=path, line=no)
        if name in scaffold.devices:
            raise RocetuneError(f"{name} is listed twice", file=path, line=no)
        dev = ImportedDevice(name=name, host=host)
        dev.notes.append("set platform: (sonic, cumulus, eos, nxos, linux_host) and role:")
        scaffold.add(dev)
    return scaffold


def import_hosts(path: Path) -> Scaffold:
    """Read a host list file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RocetuneError(f"cannot read the host list: {exc}", file=path) from None
    return parse_hosts(text, path)
