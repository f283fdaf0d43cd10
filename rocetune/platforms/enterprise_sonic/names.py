"""Interface names of Enterprise SONiC and their kinds.

Two naming modes exist (``interface-naming standard [extended]`` or the default native
mode): native names are the CONFIG_DB port names (``Ethernet0``, ``Ethernet4``); standard
names follow the front panel (``Eth1/1``, breakout children ``Eth1/49/1``; the extended form
gives every port three parts). The CLI also accepts a blank between the type and the number
(``interface Eth 1/5``, ``interface Ethernet 4``) and ranges (``interface range Eth
1/1-1/32``). Sources: the Dell Ansible collection's examples (``interface Eth1/5``), the
SONiC management framework HLDs (``interface Ethernet0``, ``interface-naming standard``,
breakout ``Eth1/49``) and AMD's ROCm cluster networking guide (``interface range Eth
1/1-1/32``); docs/platforms/enterprise_sonic.md.
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["port", "portchannel", "other", "invalid"]

_NATIVE = re.compile(r"Ethernet\s*(\d+)")
_STANDARD = re.compile(r"Eth\s*(\d+)/(\d+)(?:/(\d+))?")
_RANGE = re.compile(r"Eth\s*(\d+)/(\d+)(?:/(\d+))?\s*-\s*(?:(\d+)/)?(\d+)(?:/(\d+))?")
_PORTCHANNEL = re.compile(r"(?i)port-?channel\s*(\d+)")
_OTHER = re.compile(
    r"(?i)(?:vlan|loopback|management|mgmt|tunnel|vxlan|vtep|eth0|po\b|subinterface|cpu)"
)
MAX_RANGE = 512


def classify(spec: str) -> tuple[Kind, str]:
    """``Eth 1/5`` -> (``port``, ``Eth1/5``); ``PortChannel 5`` -> (``portchannel``, ...)."""
    text = spec.strip()
    match = _NATIVE.fullmatch(text)
    if match:
        return "port", f"Ethernet{int(match.group(1))}"
    match = _STANDARD.fullmatch(text)
    if match:
        return "port", _standard(match.group(1), match.group(2), match.group(3))
    match = _PORTCHANNEL.fullmatch(text)
    if match:
        return "portchannel", f"PortChannel{int(match.group(1))}"
    if _OTHER.match(text):
        return "other", text
    return "invalid", text


def expand_range(spec: str) -> list[str] | None:
    """``Eth 1/1-1/32`` (or ``Eth1/1-32``) -> the port names; None when not a port range.

    Only standard names are expanded: native names step by the lane count of the port,
    which the configuration does not say."""
    text = spec.strip()
    kind, name = classify(text)
    if kind == "port":
        return [name]
    out: list[str] = []
    for part in text.split(","):
        match = _RANGE.fullmatch(part.strip())
        if match is None:
            kind, name = classify(part)
            if kind != "port":
                return None
            out.append(name)
            continue
        slot, first, sub, slot2, last, sub2 = match.groups()
        if slot2 is not None and slot2 != slot:
            return None
        if sub is not None or sub2 is not None:
            if sub is None or sub2 is None or first != last:
                return None
            lo, hi = int(sub), int(sub2)
            if hi < lo or hi - lo >= MAX_RANGE:
                return None
            out.extend(_standard(slot, first, str(n)) for n in range(lo, hi + 1))
            continue
        lo, hi = int(first), int(last)
        if hi < lo or hi - lo >= MAX_RANGE:
            return None
        out.extend(_standard(slot, str(n), None) for n in range(lo, hi + 1))
    return out or None


def _standard(slot: str, port: str, sub: str | None) -> str:
    base = f"Eth{int(slot)}/{int(port)}"
    return f"{base}/{int(sub)}" if sub is not None else base


def parent_of(name: str) -> str | None:
    """``Eth1/49/2`` -> ``Eth1/49`` (a breakout child's panel port); None otherwise."""
    match = _STANDARD.fullmatch(name)
    if match and match.group(3) is not None:
        return f"Eth{match.group(1)}/{match.group(2)}"
    return None
