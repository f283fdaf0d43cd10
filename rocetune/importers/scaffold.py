"""The imported inventory (:class:`Scaffold`) and its YAML text (:func:`render`).

The text is written by hand, not dumped, so it carries comments: where each device came from,
what the importer could not tell (an unknown platform, a dropped password) and what the user
still has to fill in. Every string is written as a JSON string, which is valid YAML, so a name
or address can never change the structure of the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

# Platform names other tools use, normalised (lower case, separators removed) -> rocetune's.
_PLATFORMS: dict[str, str] = {
    "eos": "eos",
    "aristaeos": "eos",
    "aristaeoseos": "eos",
    "nxos": "nxos",
    "cisconxos": "nxos",
    "cisconxosnxos": "nxos",
    "sonic": "sonic",
    "enterprisesonic": "sonic",
    "dellemcenterprisesonicsonic": "sonic",
    "dellemcenterprisesonic": "sonic",
    "cumulus": "cumulus",
    "cumuluslinux": "cumulus",
    "nvidiacumulus": "cumulus",
    "nvidiacumuluslinux": "cumulus",
    "nvue": "cumulus",
    "linux": "linux_host",
    "linuxhost": "linux_host",
    "ubuntu": "linux_host",
    "rhel": "linux_host",
    "redhat": "linux_host",
    "rocky": "linux_host",
    "debian": "linux_host",
}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
"""Device names the inventory accepts (as :mod:`rocetune.inventory` checks them)."""
HOST_RE = re.compile(r"^[A-Za-z0-9._:%-]{1,253}$")
_PREFIXES: tuple[tuple[str, str], ...] = (("nvidianvue", "cumulus"),)

SCHEMA_URL = "https://github.com/rocetune/rocetune/raw/main/schemas/inventory.schema.json"

INTENT_TEXT = """\
# The lossless plan every rule checks against. These are rocetune's defaults (RoCE DSCP 26 on
# lossless priority 3, CNPs on DSCP 48 / priority 6, DCQCN, host MTU 9000): edit to your plan.
# Every key: docs/inventory.md.
intent:
  lossless_priorities: [3]
  roce_dscp: [26]
  cnp: {dscp: 48, priority: 6}
  congestion_control: dcqcn
  mtu: {host: 9000, roce: 4096}
"""


def platform_for(name: str | None) -> str | None:
    """rocetune's platform for another tool's name of it (``arista.eos.eos``, ``nxos``,
    ``dellemc.enterprise_sonic.sonic``, ``nvidia.nvue...``, ``cumulus``, ``linux``), or None."""
    if not name:
        return None
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    if key in _PLATFORMS:
        return _PLATFORMS[key]
    for prefix, platform in _PREFIXES:
        if key.startswith(prefix):
            return platform
    return None


@dataclass
class ImportedDevice:
    """One device as an importer found it."""

    name: str
    host: str | None = None
    platform: str | None = None
    role: str | None = None
    username: str | None = None
    port: int | None = None
    notes: list[str] = field(default_factory=list)
    """Comments written above the device (what the importer could not tell)."""


@dataclass(frozen=True)
class ImportedLink:
    """A link found by the importer (LLDP), ``device:port`` on each end."""

    a: str
    b: str


@dataclass
class Scaffold:
    """An imported inventory before it is written."""

    source: str
    """Where it came from (``Ansible inventory hosts.ini``), for the header comment."""
    devices: dict[str, ImportedDevice] = field(default_factory=dict)
    links: list[ImportedLink] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Comments for the whole file (dropped passwords, skipped entries)."""
    username: str | None = None
    """A literal SSH user name every device shares (``defaults: username:``)."""

    def add(self, device: ImportedDevice) -> ImportedDevice:
        """Add ``device``, or merge it into the one of the same name (first value wins).

        A name rocetune does not accept is left out with a file note; an address it does not
        accept is dropped with a device note."""
        if not NAME_RE.match(device.name):
            self.notes.append(f"left out {device.name!r}: not a device name rocetune accepts")
            return device
        if device.host is not None and not HOST_RE.match(device.host):
            device.notes.append(f"address {device.host!r} is not a host name or address: set host:")
            device.host = None
        have = self.devices.get(device.name)
        if have is None:
            self.devices[device.name] = device
            return device
        for attr in ("host", "platform", "role", "username", "port"):
            if getattr(have, attr) is None:
                setattr(have, attr, getattr(device, attr))
        have.notes.extend(n for n in device.notes if n not in have.notes)
        return have


def _s(text: str) -> str:
    """A YAML scalar for ``text``: plain when safe, else a JSON (double-quoted) string."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]*", text) and not re.fullmatch(
        r"(?i)(y|n|yes|no|true|false|on|off|null|~|[0-9._-]+)", text
    ):
        return text
    return json.dumps(text)


def _group_name(kind: str, value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "-", f"{kind}-{value}")


def _comment(text: str, indent: str = "") -> list[str]:
    return [f"{indent}# {line}".rstrip() for line in text.splitlines()]


def _device_line(dev: ImportedDevice, shared_user: str | None) -> str:
    parts: list[str] = []
    if dev.host:
        parts.append(f"host: {_s(dev.host)}")
    groups = []
    if dev.role:
        groups.append(_group_name("role", dev.role))
    if dev.platform:
        groups.append(_group_name("platform", dev.platform))
    if groups:
        parts.append(f"groups: [{', '.join(_s(g) for g in groups)}]")
    if dev.username and dev.username != shared_user:
        parts.append(f"username: {_s(dev.username)}")
    if dev.port is not None and dev.port != 22:
        parts.append(f"port: {dev.port}")
    return f"  {_s(dev.name)}: {{{', '.join(parts)}}}"


def render(scaffold: Scaffold) -> str:
    """The scaffold as inventory YAML text (it loads with ``load_inventory``)."""
    out = [
        f"# yaml-language-server: $schema={SCHEMA_URL}",
        f"# Written by `rocetune init` from {scaffold.source}.",
        "# Review it: set each device's platform and role where a comment says so, then run",
        "#   rocetune audit <this file>",
    ]
    for note in scaffold.notes:
        out.extend(_comment(note))
    out.append("")
    out.append(INTENT_TEXT.rstrip("\n"))
    out.append("")
    out.append("# SSH access: user names and passwords come from these environment variables")
    out.append("# (a password is never written here).")
    out.append("defaults:")
    if scaffold.username:
        out.append(f"  username: {_s(scaffold.username)}")
    else:
        out.append("  username_env: ROCETUNE_USER")
    out.append("  password_env: ROCETUNE_PASSWORD")
    devices = sorted(scaffold.devices.values(), key=lambda d: d.name)
    roles = sorted({d.role for d in devices if d.role})
    platforms = sorted({d.platform for d in devices if d.platform})
    if roles or platforms:
        out.append("")
        out.append("groups:")
        out.extend(f"  {_s(_group_name('role', r))}: {{role: {_s(r)}}}" for r in roles)
        out.extend(f"  {_s(_group_name('platform', p))}: {{platform: {_s(p)}}}" for p in platforms)
    out.append("")
    out.append("devices:" if devices else "devices: {}")
    for dev in devices:
        for note in dev.notes:
            out.extend(_comment(note, "  "))
        out.append(_device_line(dev, scaffold.username))
    if scaffold.links:
        out.append("")
        out.append("# Links seen by LLDP; add each one's length_m (metres) for headroom sizing.")
        out.append("links:")
        out.extend(f"  - {{a: {_s(link.a)}, b: {_s(link.b)}}}" for link in scaffold.links)
    return "\n".join(out) + "\n"
