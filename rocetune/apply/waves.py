"""Canary and failure-domain-aware waves.

**Canary**: ``n`` devices (default 1) per (platform, role) among the devices with changes,
first by name, plus the hosts behind a canary switch (one per host platform and role, a
host linked to a canary switch when there is one). The canary goes first and alone.

**Waves**: ``--waves 1,10%,100%``: each entry is the size of the next wave, a count or a share
of the devices left after the canary; the last entry repeats until every device has had its
wave. A wave never takes every device of a failure domain:

- the *uplinks* of any device (its linked neighbours one tier up: a dual-homed host's two
  leaves, a leaf's spines) form a domain; at most ``len - 1`` of them (at least 1) go in
  the same wave. So both ends of a redundant pair never change together, nor every spine of
  a pod;
- two devices of the same tier linked to each other (an MLAG/peer link) are a pair.

Tiers come from the role: host 0, leaf/ToR 1, spine 2, super-spine/core 3 (unknown roles
are leaves). A device that does not fit waits for the next wave.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rocetune.apply.fleet import Topology
from rocetune.errors import ConfigError

_TIERS = {
    "host": 0,
    "gpu": 0,
    "server": 0,
    "leaf": 1,
    "tor": 1,
    "spine": 2,
    "superspine": 3,
    "super-spine": 3,
    "core": 3,
}


def tier(role: str | None) -> int:
    """The tier of a role (unknown roles count as leaves)."""
    return _TIERS.get((role or "").lower(), 1)


def _natural(name: str) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def parse_waves(text: str) -> list[str]:
    """``1,10%,100%`` -> its entries (checked)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise ConfigError("--waves: give sizes, e.g. 1,10%,100%")
    for p in parts:
        body = p[:-1] if p.endswith("%") else p
        if not body.isdigit() or int(body) <= 0 or (p.endswith("%") and int(body) > 100):
            raise ConfigError(f"--waves: {p!r} is not a count or a percentage (1..100%)")
    return parts


def _size(entry: str, total: int) -> int:
    if entry.endswith("%"):
        return max(1, -(-total * int(entry[:-1]) // 100))
    return int(entry)


@dataclass(frozen=True)
class Domain:
    """Devices of which at most ``cap`` may be in one wave."""

    members: frozenset[str]
    cap: int
    why: str


def domains(topology: Topology) -> list[Domain]:
    """The failure domains of the topology (see the module docstring)."""
    nodes = topology.nodes
    neighbours: dict[str, set[str]] = {}
    for a, b in topology.links:
        if a in nodes and b in nodes and a != b:
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
    out: list[Domain] = []
    seen: set[frozenset[str]] = set()
    for name in sorted(neighbours, key=_natural):
        mine = tier(nodes[name].role)
        ups = frozenset(n for n in neighbours[name] if tier(nodes[n].role) > mine)
        if len(ups) >= 2 and ups not in seen:
            seen.add(ups)
            out.append(Domain(ups, max(1, len(ups) - 1), f"uplinks of {name}"))
        for peer in neighbours[name]:
            pair = frozenset({name, peer})
            if tier(nodes[peer].role) == mine and pair not in seen:
                seen.add(pair)
                out.append(Domain(pair, 1, f"peers {name} and {peer}"))
    return out


def canary(topology: Topology, devices: Sequence[str], per_group: int = 1) -> list[str]:
    """The canary devices among ``devices`` (see the module docstring)."""
    if per_group <= 0:
        return []
    nodes = topology.nodes
    order = sorted(devices, key=_natural)
    switches = [d for d in order if tier(nodes[d].role) > 0]
    picked: list[str] = []
    taken: dict[tuple[str, str | None], int] = {}
    for d in switches:
        k = (nodes[d].platform, nodes[d].role)
        if taken.get(k, 0) < per_group:
            taken[k] = taken.get(k, 0) + 1
            picked.append(d)
    behind = {b if a in picked else a for a, b in topology.links if a in picked or b in picked}
    hosts = [d for d in order if tier(nodes[d].role) == 0]
    hosts.sort(key=lambda h: (h not in behind, _natural(h)))
    for h in hosts:
        k = (nodes[h].platform, nodes[h].role)
        if taken.get(k, 0) < per_group:
            taken[k] = taken.get(k, 0) + 1
            picked.append(h)
    return _fit(picked, domains(topology))[0]


def _fits(wave: Iterable[str], device: str, doms: Sequence[Domain]) -> bool:
    chosen = set(wave) | {device}
    return all(len(chosen & d.members) <= d.cap for d in doms if device in d.members)


def _fit(
    candidates: Sequence[str], doms: Sequence[Domain], limit: int | None = None
) -> tuple[list[str], list[str]]:
    wave: list[str] = []
    rest: list[str] = []
    for d in candidates:
        if (limit is None or len(wave) < limit) and _fits(wave, d, doms):
            wave.append(d)
        else:
            rest.append(d)
    return wave, rest


def plan_waves(
    topology: Topology,
    devices: Sequence[str],
    sizes: Sequence[str],
    canary_devices: Sequence[str] = (),
) -> list[list[str]]:
    """The waves after the canary (each a list of device names), failure domains respected."""
    doms = domains(topology)
    left = [d for d in sorted(devices, key=_natural) if d not in set(canary_devices)]
    total = len(left)
    waves: list[list[str]] = []
    i = 0
    while left:
        size = _size(sizes[min(i, len(sizes) - 1)], total)
        wave, left = _fit(left, doms, size)
        if not wave:  # cannot happen (cap >= 1), but never loop forever
            wave, left = left[:1], left[1:]
        waves.append(wave)
        i += 1
    return waves
