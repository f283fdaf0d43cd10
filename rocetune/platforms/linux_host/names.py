"""Names that reach host commands: netdevs, RDMA devices and PCI addresses.

Every name that becomes part of a command (an inventory NIC name, an RDMA device or PCI
address read from ``ibdev2netdev`` / ``ethtool -i``) is checked against a strict pattern
first, so a name with a newline, a space, ``;``, ``$``, ``*`` or ``/`` never becomes a
command, a second command or another path. A leading ``-`` is refused too (it would be read
as an option), and so are names made of dots only (``..`` would climb out of
``/sys/class/net``).

Snapshot file names lose case and punctuation (``command_filename``), so outputs are grouped
by :func:`key_of` (the same lower-case, ``_``-joined form); the exact name comes from the
snapshot metadata, the command line of a transcript, or the output itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

NETDEV = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14}")
"""Linux netdev name: at most 15 characters (IFNAMSIZ - 1), no leading ``-``."""
RDMA = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
"""RDMA (verbs) device name such as ``mlx5_0`` or ``rocep23s0f0`` (IB_DEVICE_NAME_MAX 64)."""
PCI = re.compile(r"(?:([0-9A-Fa-f]{4}):)?([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])")
"""PCI address ``[domain:]bus:device.function``."""
_KEY = re.compile(r"[^a-z0-9]+")
_PCI_KEY = re.compile(r"([0-9a-f]{4})_([0-9a-f]{2})_([0-9a-f]{2})_([0-7])")


def check_netdev(name: str) -> str:
    """Return ``name`` when it is a valid netdev name; raise ValueError otherwise."""
    if not isinstance(name, str) or NETDEV.fullmatch(name) is None:
        msg = f"invalid network interface name {name!r} (expected [A-Za-z0-9_.:@-], 1-15)"
        raise ValueError(msg)
    return name


def check_rdma(name: str) -> str:
    """Return ``name`` when it is a valid RDMA device name; raise ValueError otherwise."""
    if not isinstance(name, str) or RDMA.fullmatch(name) is None:
        msg = f"invalid RDMA device name {name!r}"
        raise ValueError(msg)
    return name


def check_pci(address: str) -> str:
    """Return the canonical ``dddd:bb:dd.f`` form of a PCI address; raise ValueError."""
    match = PCI.fullmatch(address) if isinstance(address, str) else None
    if match is None:
        msg = f"invalid PCI address {address!r}"
        raise ValueError(msg)
    domain, bus, dev, func = match.groups()
    return f"{(domain or '0000').lower()}:{bus.lower()}:{dev.lower()}.{func}"


def valid_netdev(name: str) -> bool:
    """True when ``name`` is a valid netdev name."""
    return NETDEV.fullmatch(name) is not None


def valid_rdma(name: str) -> bool:
    """True when ``name`` is a valid RDMA device name."""
    return RDMA.fullmatch(name) is not None


def pci_or_none(address: str) -> str | None:
    """The canonical PCI address, or None when ``address`` is not one."""
    try:
        return check_pci(address)
    except ValueError:
        return None


@lru_cache(maxsize=4096)
def key_of(name: str) -> str:
    """The grouping key of a name: what the snapshot file-name rule keeps of it (memoised:
    the same few NIC names are keyed for every output of a host)."""
    return _KEY.sub("_", name.lower()).strip("_")


def pci_from_key(key: str) -> str | None:
    """Rebuild a PCI address from its file-name key (``0000_17_00_0`` -> ``0000:17:00.0``)."""
    match = _PCI_KEY.fullmatch(key)
    if match is None:
        return None
    domain, bus, dev, func = match.groups()
    return f"{domain}:{bus}:{dev}.{func}"


def pci_function(address: str) -> int | None:
    """The PCI function number of a canonical address (``0000:17:00.1`` -> 1)."""
    match = PCI.fullmatch(address)
    return None if match is None else int(match.group(4))
