"""Snapshot -> typed outputs: which command every file (and transcript part) is, parsed.

A file's command comes from ``meta.json`` (exact names), else from its file name (names as
keys, see :func:`~.names.key_of`), else it is reported as not recognised. Every file is
split into segments (:mod:`.segments`); the first belongs to the file's own command, the
others to the command lines of a transcript. Each segment goes to its kind's parser; the
results are collected in :class:`Outputs` for :mod:`.assemble` to map onto NIC ports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePath

from rocetune.model import Unparsed
from rocetune.platforms.linux_host import commands as c
from rocetune.platforms.linux_host import ethtool, mlnx_qos, rdma, sets, sysfs
from rocetune.platforms.linux_host.base import Found, Notes, take_errors
from rocetune.platforms.linux_host.mlxconfig import Section, parse_mlxconfig
from rocetune.platforms.linux_host.names import (
    key_of,
    pci_from_key,
    pci_or_none,
    valid_netdev,
    valid_rdma,
)
from rocetune.platforms.linux_host.segments import Segment, prompt_host, split
from rocetune.platforms.linux_host.unsupported import operator_items
from rocetune.snapshot import CommandRecord, Snapshot, SourceFile

_QOS_WORDS = re.compile(
    r"tos\b|tclass|traffic_class|dscp|pfc|trust|roce|mlnx_qos|mlxconfig|cnp|prio|/ecn/"
    r"|ethtool\s+-A",
    re.IGNORECASE,
)
_HOSTNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,252}")
_OPERATOR_FILE = c.OPERATOR_TEMPLATE.filename
_TRANSCRIPT_FILE = c.TRANSCRIPT.filename
RANK_FILE, RANK_CONTENT, RANK_MAP, RANK_COMMAND = 0, 1, 2, 3
"""How sure a NIC's display name is: file-name key < output < ibdev2netdev < command line."""


@dataclass
class Part:
    """Values one output gives for one netdev, RDMA device or PCI function."""

    scope: c.Scope
    key: str | None
    name: str | None
    rank: int
    found: Found
    file: str
    order: int
    kind: str
    line: int | None = None
    """Line of the command (transcripts) or of the output's first line."""


@dataclass
class Outputs:
    """Everything read from one snapshot, before it is mapped onto NIC ports."""

    parts: list[Part] = field(default_factory=list)
    nics: list[tuple[str, str, int]] = field(default_factory=list)
    """(key, name, rank) of every netdev a per-NIC command names (failed ones included)."""
    mappings: list[tuple[rdma.Mapping, str]] = field(default_factory=list)
    pcis: dict[str, tuple[str, str, int | None]] = field(default_factory=dict)
    gids: list[tuple[rdma.GidTable, str, int, int | None]] = field(default_factory=list)
    sections: list[tuple[Section, str, int]] = field(default_factory=list)
    hostname: tuple[str, str, int] | None = None
    lldp: list[SourceFile] = field(default_factory=list)
    unparsed: list[Unparsed] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    order: int = 0


@dataclass(frozen=True)
class _Target:
    kind: c.Kind
    name: str | None
    rank: int


def read_outputs(snapshot: Snapshot) -> Outputs:
    """Parse every file of ``snapshot``."""
    out = Outputs()
    meta = {r.file: r for r in snapshot.meta.commands}
    for filename, source in sorted(snapshot.files.items()):
        _read_file(out, filename, source, meta.get(filename))
    return out


def _read_file(
    out: Outputs, filename: str, source: SourceFile, record: CommandRecord | None
) -> None:
    notes = Notes(source.path)
    if filename == _OPERATOR_FILE:
        out.unparsed.extend(operator_items(source.text, source.path))
        return
    target = _file_target(filename, None if record is None else record.command)
    if target is None and filename != _TRANSCRIPT_FILE:
        reason = "not recognised as a Linux host output (no meta.json entry, unknown file name)"
        notes.add(filename, reason, None)
    elif target is not None and record is not None and record.status == "error":
        out.facts[f"error.{filename}"] = record.error or "command failed"
        _register(out, target)
    elif target is not None and target.kind.encoding == "json":
        out.lldp.append(source)
    else:
        segments = split(source.text, source.path)
        _read_segments(out, segments, target, notes)
        host = prompt_host(source.text) if out.hostname is None and len(segments) > 1 else None
        if host is not None:
            out.hostname = (host[0], source.path, host[1])
    out.unparsed.extend(notes.items)
    where = PurePath(source.path).name if notes.errors else ""
    for line, text in notes.errors:
        out.facts.setdefault(f"error.{where}" + (f":{line}" if line else ""), text)


@lru_cache(maxsize=4096)
def _file_target(filename: str, command: str | None) -> _Target | None:
    """The command of a file, from its meta.json command line else its name (memoised: every
    host of a fleet saves the same files)."""
    if command is not None:
        found = c.identify(command)
        if found is not None:
            return _Target(found[0], _valid(found[0], found[1]), RANK_COMMAND)
    found = c.identify_file(filename)
    if found is None:
        return None
    kind, key = found
    if key is not None and kind.scope == "pci":
        return _Target(kind, pci_from_key(key), RANK_COMMAND)
    return _Target(kind, key, RANK_FILE)


def _valid(kind: c.Kind, name: str | None) -> str | None:
    if name is None:
        return None
    if kind.scope == "nic":
        return name if valid_netdev(name) else None
    if kind.scope == "rdma":
        return name if valid_rdma(name) else None
    if kind.scope == "pci":
        return pci_or_none(name)
    return None


def _register(out: Outputs, target: _Target) -> None:
    if target.kind.scope == "nic" and target.name is not None:
        out.nics.append((key_of(target.name), target.name, target.rank))


def _read_segments(
    out: Outputs, segments: list[Segment], target: _Target | None, notes: Notes
) -> None:
    for index, segment in enumerate(segments):
        out.order += 1
        if index == 0 and target is None:
            _preamble(segment, notes)
            continue
        if index > 0:
            assert segment.command is not None
            found = c.identify(segment.command)
            echoed = sets.echo_traffic_class(segment.command) if found is None else None
            if echoed is not None:
                target = _Target(c.TCLASS, _valid(c.TCLASS, echoed[0]), RANK_COMMAND)
                _register(out, target)
                value = sets.traffic_class_set(echoed[1], segment.command_line, notes)
                _part(out, segment, target, value)
                continue
            if found is None:
                _other_command(segment, notes)
                continue
            target = _Target(found[0], _valid(found[0], found[1]), RANK_COMMAND)
        if target is not None:
            _register(out, target)
            named = target.kind.scope == "nic" and target.name is not None
            notes.ports = (target.name,) if named and target.name else None
            _dispatch(out, segment, target, notes)
            notes.ports = None


def _preamble(segment: Segment, notes: Notes) -> None:
    text = [(n, t) for n, t in segment.meaningful()]
    if text:
        number, line = text[0]
        notes.add(line, "text before the first recognised command line", number)


def _other_command(segment: Segment, notes: Notes) -> None:
    command = segment.command or ""
    if _QOS_WORDS.search(command):
        reason = "command not understood as a host read command; its effect is not in the model"
        notes.add(command, reason, segment.command_line)


def _dispatch(out: Outputs, segment: Segment, target: _Target, notes: Notes) -> None:
    kind = target.kind
    if kind.scope == "host":
        _host(out, segment, kind, notes)
    elif kind.id in ("show_gids", "ibv_devinfo"):
        if kind.id == "show_gids":
            table = rdma.parse_show_gids(segment, notes, all_devices=target.name is None)
        else:
            table = rdma.parse_devinfo(segment, notes, target.name)
        out.gids.append((table, segment.file, out.order, segment.first_line))
    elif kind.id == "mlxconfig":
        for section in parse_mlxconfig(segment, notes, target.name):
            out.sections.append((section, segment.file, out.order))
    elif kind.id == "ethtool_driver":
        info = ethtool.parse_driver(segment, notes)
        if target.name is not None and info.pci is not None:
            out.pcis[key_of(target.name)] = (info.pci, segment.file, info.pci_line)
        _part(out, segment, target, info.found)
    elif kind.id in ("ethtool_stats", "hw_counters"):
        ethtool.parse_stats(segment, notes)  # counters: read by the counter rules later
        _part(out, segment, target, Found())
    else:
        found = _parse(kind.id, segment, notes)
        command, line = segment.command or "", segment.command_line
        if kind.id == "roce_tos":
            found = sets.merge(found, sets.roce_tos_set(command, line, notes))
        elif kind.id == "mlnx_qos":
            found = sets.merge(found, sets.mlnx_qos_set(command, line, notes))
        _part(out, segment, target, found)


def _parse(kind: str, segment: Segment, notes: Notes) -> Found:
    """``_PARSERS[kind]`` of the segment, memoised by its numbered lines (see :data:`_MEMO`)."""
    key = (kind, segment.lines)
    known = _MEMO.get(key)
    if known is not None:
        return _copy(known)
    items, errors = len(notes.items), len(notes.errors)
    found = _PARSERS[kind](segment, notes)
    if len(notes.items) == items and len(notes.errors) == errors and _small(segment):
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()  # start over: a fabric has a few distinct outputs per command
        _MEMO[key] = _copy(found)
    return found


def _small(segment: Segment) -> bool:
    lines = segment.lines
    return len(lines) <= _MEMO_LINES and sum(len(t) for _, t in lines) <= _MEMO_TEXT


def _copy(found: Found) -> Found:
    """A Found that shares no dict with ``found`` (callers add values to theirs)."""
    values = {k: v.copy() if isinstance(v, dict | list) else v for k, v in found.values.items()}
    return Found(values, dict(found.lines), found.name, dict(found.facts))


def _part(out: Outputs, segment: Segment, target: _Target, found: Found) -> None:
    name, rank = target.name, target.rank
    same = name is None or (found.name is not None and key_of(found.name) == key_of(name))
    if found.name is not None and same and rank <= RANK_CONTENT:
        name, rank = found.name, RANK_CONTENT
    key = None if name is None else (name if target.kind.scope == "pci" else key_of(name))
    if target.kind.scope == "nic" and name is not None and key is not None:
        out.nics.append((key, name, rank))
    out.parts.append(
        Part(
            target.kind.scope,
            key,
            name,
            rank,
            found,
            segment.file,
            out.order,
            target.kind.id,
            segment.first_line,
        )
    )


def _host(out: Outputs, segment: Segment, kind: c.Kind, notes: Notes) -> None:
    if kind.id == "ibdev2netdev":
        for mapping in rdma.parse_ibdev2netdev(segment, notes):
            out.mappings.append((mapping, segment.file))
        return
    lines = take_errors(segment, notes)
    if lines and _HOSTNAME.fullmatch(lines[0][1].strip()):
        out.hostname = (lines[0][1].strip(), segment.file, lines[0][0])
    elif lines:
        notes.add(lines[0][1], "hostname output not understood", lines[0][0])


def _mtu(segment: Segment, notes: Notes) -> Found:
    return sysfs.parse_value("mtu", 1_000_000, segment, notes)


def _cnp_dscp(segment: Segment, notes: Notes) -> Found:
    return sysfs.parse_value("cnp_dscp", 63, segment, notes)


def _cnp_prio(segment: Segment, notes: Notes) -> Found:
    return sysfs.parse_value("cnp_priority", 7, segment, notes)


def _dcqcn_params(segment: Segment, notes: Notes) -> Found:
    """The DCQCN parameter listing: its CNP lines are left to the dedicated ``cat`` files."""
    found = sysfs.parse_ecn(segment, notes)
    for name in ("cnp_dscp", "cnp_priority"):
        found.values.pop(name, None)
        found.lines.pop(name, None)
    return found


_MEMO: dict[tuple[str, tuple[tuple[int, str], ...]], Found] = {}
"""Parse results of :data:`_PARSERS` by (kind, numbered lines): the hosts of a fabric print
the same ``mlnx_qos`` / ECN / ``ethtool`` output for every NIC of the same configuration
(and the same NIC of every host); these parsers were about half of a host snapshot's parse.
They read only the lines, so the same lines give the same Found; a parse that recorded an
Unparsed item or a tool error is not kept (those go to the notes of the file being read)."""
_MEMO_SIZE = 1024
_MEMO_LINES, _MEMO_TEXT = 256, 16_384
"""Longer outputs are not kept (a fabric's per-NIC outputs are a few dozen short lines)."""

_PARSERS = {
    "mlnx_qos": mlnx_qos.parse_mlnx_qos,
    "mtu": _mtu,
    "ethtool": ethtool.parse_settings,
    "ethtool_pause": ethtool.parse_pause,
    "ecn_enable": sysfs.parse_ecn,
    "dcqcn_params": _dcqcn_params,
    "cnp_dscp": _cnp_dscp,
    "cnp_prio": _cnp_prio,
    "roce_tos": rdma.parse_roce_tos,
    "roce_mode": rdma.parse_roce_mode,
    "traffic_class": sysfs.parse_traffic_class,
}
