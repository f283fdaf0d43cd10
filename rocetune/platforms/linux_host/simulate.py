"""Replay host remediation commands on a collected snapshot (to check a plan and its rollback).

Each command rewrites the output the collector would read afterwards: ``mlnx_qos -i X
--trust/--pfc/--dscp2prio`` edit ``mlnx_qos -i X``'s report, ``echo V > /sys/...`` the file
the collector ``cat``s, ``ip link set dev X mtu N`` the ``mtu`` file, ``mlxconfig -d PCI set
P=V`` the ``mlxconfig -d PCI q`` report. Switching the trust to ``dscp`` makes ``mlnx_qos``
print its DSCP map; when none was printed before, the driver's default (DSCP >> 3) is
assumed. Comment lines (``# ...``) do nothing. Anything else raises ValueError.
"""

from __future__ import annotations

import re

from rocetune.snapshot import Snapshot, SourceFile, command_filename

_QOS = re.compile(r"^mlnx_qos -i (\S+) --(trust|pfc|dscp2prio|prio2buffer) (\S+)$")
_ECHO = re.compile(r"^echo (\S+) > /sys/class/net/(\S+?)/(\S+)$")
_MTU = re.compile(r"^ip link set dev (\S+) mtu (\d+)$")
_FW = re.compile(r"^mlxconfig -d (\S+) -y set (\w+)=(\S+)$")
_MAP_HEAD = "dscp2prio mapping:"


def _map_lines(mapping: dict[int, int]) -> list[str]:
    out: list[str] = []
    for prio in range(8):
        dscps = sorted((d for d, p in mapping.items() if p == prio), reverse=True)
        for i in range(0, len(dscps), 8):
            out.append(f"\tprio:{prio} dscp:" + "".join(f"{d:02d}," for d in dscps[i : i + 8]))
    return out


def _read_map(lines: list[str]) -> dict[int, int]:
    mapping: dict[int, int] = {}
    for line in lines:
        m = re.match(r"\s*prio:(\d) dscp:([\d,]*)", line)
        if m:
            mapping.update({int(d): int(m[1]) for d in m[2].split(",") if d})
    return mapping


def _line(lines: list[str], prefix: str) -> int:
    for i, ln in enumerate(lines):
        if ln.strip().startswith(prefix):
            return i
    raise ValueError(f"mlnx_qos output has no {prefix.strip()!r} line")


def _qos(text: str, what: str, value: str) -> str:
    lines = text.splitlines()
    head = next((i for i, ln in enumerate(lines) if ln.strip() == _MAP_HEAD), None)
    end = head
    if head is not None:
        end = head + 1
        while end < len(lines) and lines[end].strip().startswith("prio:"):
            end += 1
    if what == "trust":
        i = _line(lines, "Priority trust state:")
        lines[i] = f"Priority trust state: {value}"
        if value == "dscp" and head is None:
            default = {d: d >> 3 for d in range(64)}
            lines[i + 1 : i + 1] = [_MAP_HEAD, *_map_lines(default)]
        elif value != "dscp" and head is not None and end is not None:
            del lines[head:end]
    elif what == "dscp2prio":
        if head is None or end is None:
            raise ValueError("mlnx_qos --dscp2prio: no DSCP map printed (trust is not dscp)")
        _, dscp, prio = value.split(",")
        mapping = _read_map(lines[head + 1 : end])
        mapping[int(dscp)] = int(prio)
        lines[head + 1 : end] = _map_lines(mapping)
    else:
        row = "enabled" if what == "pfc" else "buffer"
        i = _line(lines, row + " ")
        flags = value.split(",")
        lines[i] = f"\t{row:<12}" + "".join(f"{f}   " for f in flags)
    return "\n".join(lines) + "\n"


def _edit(files: dict[str, SourceFile], command: str, change: object) -> None:
    name = command_filename(command, "text")
    source = files.get(name)
    if source is None:
        raise ValueError(f"the snapshot has no output of {command!r}")
    files[name] = SourceFile(source.path, change(source.text))  # type: ignore[operator]


def simulate(snapshot: Snapshot, commands: list[str]) -> Snapshot:
    """The snapshot as the collector would read it after ``commands``."""
    files = dict(snapshot.files)
    for text in commands:
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if m := _QOS.match(line):
                nic, what, value = m[1], m[2], m[3]
                _edit(files, f"mlnx_qos -i {nic}", lambda t, w=what, v=value: _qos(t, w, v))
            elif m := _ECHO.match(line):
                value, nic, rel = m[1], m[2], m[3]
                _edit(files, f"cat /sys/class/net/{nic}/{rel}", lambda t, v=value: v + "\n")
            elif m := _MTU.match(line):
                _edit(files, f"cat /sys/class/net/{m[1]}/mtu", lambda t, v=m[2]: v + "\n")
            elif m := _FW.match(line):
                pattern = re.compile(rf"^(\s*{m[2]}\s+)\S+", re.M)
                _edit(
                    files,
                    f"mlxconfig -d {m[1]} q",
                    lambda t, p=pattern, v=m[3]: p.sub(lambda x: x[1] + v, t),
                )
            else:
                raise ValueError(f"cannot replay host command {line!r}")
    return Snapshot(files=files, meta=snapshot.meta, origin=snapshot.origin)
