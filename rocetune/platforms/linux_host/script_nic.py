"""One command of a setup script -> the NIC values it sets (:class:`Effect`), or RT001.

Read (``docs/platforms/host-scripts.md`` lists them with their model fields):

- ``mlnx_qos -i IF`` with ``--trust``, ``--pfc``/``-f``, ``--dscp2prio set,D,P``,
  ``--prio_tc``/``-p``, ``--tsa``/``-s``, ``--tcbw``/``-t``, ``--cable_len``,
  ``--prio2buffer``, ``--buffer_size``, ``--dcbx``/``-d``;
- ``cma_roce_tos -d DEV -t TOS``, ``cma_roce_mode -d DEV -p 1 -m 1|2``;
- writes (``echo V > PATH``, ``echo V | tee PATH``) to ``/sys/class/net/IF/ecn/roce_np|roce_rp/
  enable/P``, ``.../roce_np/cnp_dscp``, ``cnp_802p_prio``, the other ``roce_np``/``roce_rp``
  parameter files, ``/sys/class/net/IF/mtu``, ``/sys/class/infiniband/DEV/tc/1/traffic_class``
  and rdma_cm configfs ``default_roce_tos`` / ``default_roce_mode``;
- ``mlxconfig -d DEV [-y] set K=V ...`` (firmware parameters, applied at the next reset);
- ``ip link set [dev] IF mtu N``, ``ifconfig IF mtu N``, ``ethtool -A IF rx off tx off``,
  ``ethtool -s IF speed N``.

A value or a target that is not known (a variable from the environment, a loop over command
output) gives an effect with ``None`` in its place: the overlay then forgets that field, so
the rules depending on it say RT000, and the command is RT001 with the reason. Commands that
look like NIC QoS configuration but are none of the above (``lldptool``, ``dcb``, ``tc qdisc
... mqprio``, other sysfs files under ``ecn/``) are RT001 too; everything else (package
installs, ``sysctl``, ``systemctl``, reads) is not NIC state and is passed over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from rocetune.model import Scheduler
from rocetune.platforms.linux_host.script_run import Run
from rocetune.platforms.linux_host.script_words import is_glob, is_unknown, plain

Scope = Literal["nic", "rdma", "pci"]


@dataclass(frozen=True)
class Effect:
    """One value a command sets (``value`` None: set to something not known)."""

    scope: Scope
    target: str | None
    field: str
    value: object | None
    line: int
    merge: bool = False
    """A dict field updated key by key (``dcqcn_np``, ``firmware``, ``dscp_to_priority``)."""
    unsure: str | None = None


@dataclass
class Reading:
    """Effects and RT001 notes of a whole script, in order."""

    effects: list[Effect] = field(default_factory=list)
    notes: list[tuple[int, str, str]] = field(default_factory=list)
    """(line, command, reason) for RT001."""
    facts: dict[str, str] = field(default_factory=dict)

    def note(self, run: Run, reason: str) -> None:
        """Record an RT001 for ``run``."""
        self.notes.append((run.line, run.text, reason))


_NET = re.compile(r"/sys/class/net/([^/]+)/(.+)")
_IB = re.compile(r"/sys/class/infiniband/([^/]+)/tc/(\d+)/traffic_class")
_CM = re.compile(
    r"/sys/kernel/config/rdma_cm/([^/]+)/(?:ports/(\d+)/)?(default_roce_tos|default_roce_mode)"
)
_ECN = re.compile(r"ecn/(roce_np|roce_rp)/(.+)")
_QOS_SYSFS = re.compile(
    r"/sys/(?:class/(?:net/[^/]+/(?:ecn|qos|settings)|infiniband)|kernel/(?:config/rdma_cm|debug/mlx5))/"
)
_NIC_TOOLS = {
    "lldptool", "dcbtool", "dcb", "devlink", "mlnx_tune", "niccli", "bnxtqos", "bnxt_setupcc.sh",
    "mlxreg", "mlnx_qcn", "tc_wrap.py", "roce_config",
}  # fmt: skip
_READERS = {
    "cat", "grep", "awk", "sed", "ls", "head", "tail", "less", "show_gids", "ibv_devinfo",
    "ibdev2netdev", "ibstat", "ibstatus", "lspci", "mst", "mlxlink", "mlxfwmanager", "flint",
    "rdma", "lldpctl", "lldpcli", "sysctl", "modprobe", "systemctl", "service", "sleep", "test",
    "[", "[[", "true", "false", ":", "wc", "cut", "tr", "sort", "basename", "dirname", "which",
    "type", "mkdir", "rmdir", "mount", "umount", "chmod", "chown", "cp", "mv", "rm", "ln",
    "touch", "ping", "ib_write_bw", "ib_send_lat", "ib_write_lat", "ib_read_bw", "nvidia-smi",
}  # fmt: skip
_QOS_TEXT = re.compile(r"\b(?:pfc|dscp|trust|roce|cnp|ecn|qos|ets|prio)", re.IGNORECASE)
_TSA = {"strict": "strict", "ets": "ets", "vendor": "vendor"}


def read_run(run: Run, out: Reading) -> None:
    """Add the effects (or RT001 notes) of one command."""
    before = len(out.effects)
    for path, data in run.writes:
        _write(run, plain(path) if not is_unknown(path) else path, data, out)
    if run.words:
        _command(run, out)
    if run.unsure is not None and len(out.effects) > before:
        out.note(run, f"{run.unsure}: whether it runs is not known, so its values are not used")
    elif len(out.effects) > before and any(
        e.value is None or e.target is None for e in out.effects[before:]
    ):
        out.note(
            run, "values not known: " + ("; ".join(dict.fromkeys(run.reasons)) or "see the line")
        )


def _put(
    run: Run,
    out: Reading,
    where: tuple[Scope, str | None, str],
    value: object | None,
    *,
    merge: bool = False,
) -> None:
    scope, target, name = where
    target = None if target is None or is_unknown(target) or is_glob(target) else target
    out.effects.append(Effect(scope, target, name, value, run.line, merge, run.unsure))


def _int(text: str | None, low: int, high: int) -> int | None:
    if text is None or is_unknown(text):
        return None
    value = plain(text).strip().strip("'\"")
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", value):
        number = int(value, 16)
    elif re.fullmatch(r"\d{1,12}", value):
        number = int(value)
    else:
        return None
    return number if low <= number <= high else None


_TAIL = re.compile(r"(?:.*/)?(ecn/(?:roce_np|roce_rp)/.+|mtu)")
"""The file part of a path whose directory is not known (``$ECN_ROOT/roce_np/enable/3``)."""


def _write(run: Run, path: str, data: str, out: Reading) -> None:
    known = not is_unknown(data)
    match = _NET.fullmatch(path)
    netdev, rest = (match.group(1), match.group(2)) if match is not None else (None, None)
    if match is None and is_unknown(path):
        tail = _TAIL.fullmatch(path.replace("ecn/", "/ecn/").replace("\x00/roce", "\x00/ecn/roce"))
        if tail is not None and ("/sys/class/net/" in path or "roce_" in path):
            netdev, rest = "\x00", tail.group(1)
    if rest is not None:
        ecn = _ECN.fullmatch(rest)
        if rest == "mtu":
            _value(run, out, ("nic", netdev, "mtu"), _int(data, 68, 65535), data)
            return
        if ecn is not None and _ecn(run, out, netdev or "\x00", ecn, data):
            return
    match = _IB.fullmatch(path)
    if match is not None and match.group(2) == "1":
        _value(run, out, ("rdma", match.group(1), "traffic_class"), _int(data, 0, 255), data)
        return
    match = _CM.fullmatch(path)
    if match is not None and match.group(2) in (None, "1"):
        if match.group(3) == "default_roce_tos":
            _value(run, out, ("rdma", match.group(1), "roce_tos"), _int(data, 0, 255), data)
        else:
            mode = _roce_mode(plain(data)) if known else None
            _value(run, out, ("rdma", match.group(1), "roce_mode"), mode, data)
        return
    if _QOS_SYSFS.match(path) or (is_unknown(path) and _QOS_TEXT.search(path)):
        out.note(run, "write to a NIC file rocetune does not read; its effect is not in the model")


def _value(
    run: Run, out: Reading, where: tuple[Scope, str | None, str], value: object | None, raw: str
) -> None:
    scope, target, name = where
    if value is None and not is_unknown(raw):
        out.note(run, f"{name}: value {plain(raw)!r} is not valid; the NIC rejects it")
        return
    _put(run, out, (scope, target, name), value)


def _ecn(run: Run, out: Reading, netdev: str, match: re.Match[str], data: str) -> bool:
    point, leaf = match.group(1), match.group(2)
    if leaf.startswith("enable/"):
        prio = _int(leaf.removeprefix("enable/"), 0, 7)
        flag = _int(data, 0, 1)
        field_name = "dcqcn_np" if point == "roce_np" else "dcqcn_rp"
        if prio is None:
            _put(run, out, ("nic", netdev, field_name), None)
            return True
        _value(
            run, out, ("nic", netdev, field_name), None if flag is None else {prio: flag == 1}, data
        )
        if out.effects and out.effects[-1].field == field_name:
            out.effects[-1] = Effect(**{**out.effects[-1].__dict__, "merge": True})
        return True
    if point == "roce_np" and leaf in ("cnp_dscp", "cnp_802p_prio"):
        name, high = ("cnp_dscp", 63) if leaf == "cnp_dscp" else ("cnp_priority", 7)
        _value(run, out, ("nic", netdev, name), _int(data, 0, high), data)
        return True
    if "/" in leaf or is_unknown(leaf):
        return False
    value = _int(data, 0, 2**32 - 1)
    if value is None and not is_unknown(data):
        return False
    _put(
        run,
        out,
        ("nic", netdev, "dcqcn_params"),
        None if value is None else {leaf: value},
        merge=True,
    )
    return True


def _roce_mode(text: str) -> str | None:
    words = text.strip().strip("'\"").lower()
    if words in ("2", "roce v2", "v2"):
        return "v2"
    if words in ("1", "ib/roce v1", "roce v1", "v1"):
        return "v1"
    return None


def _options(
    words: list[str], with_value: set[str]
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """(option, value) pairs and the positional words of a command line."""
    opts: list[tuple[str, str | None]] = []
    rest: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and len(word) > 1:
            name, eq, value = word.partition("=")
            if not eq and name in with_value and i + 1 < len(words):
                value, i = words[i + 1], i + 1
            elif not eq and len(name) > 2 and name[1] != "-" and name[:2] in with_value:
                name, value = name[:2], name[2:]
            opts.append((name, value if eq or name in with_value else None))
        else:
            rest.append(word)
        i += 1
    return opts, rest


def _command(run: Run, out: Reading) -> None:
    name = run.words[0].rsplit("/", 1)[-1]
    handler = _HANDLERS.get(name)
    if handler is not None:
        handler(run, out)
    elif name in _NIC_TOOLS or (name == "tc" and "mqprio" in run.words):
        out.note(
            run, f"{name}: NIC QoS command rocetune does not read; its effect is not in the model"
        )
    elif (
        name not in _READERS
        and name != "echo"
        and _QOS_TEXT.search(" ".join(run.words[1:]))
        and name.startswith(("mlx", "cma_", "dcb", "lldp"))
    ):
        out.note(run, "command not understood as NIC configuration; its effect is not in the model")


_MLNX_VALUE = {"-i", "--interface", "-f", "--pfc", "--trust", "--dscp2prio", "-p", "--prio_tc",
               "-s", "--tsa", "-t", "--tcbw", "-r", "--ratelimit", "-d", "--dcbx", "--cable_len",
               "--prio2buffer", "--buffer_size"}  # fmt: skip


def _mlnx_qos(run: Run, out: Reading) -> None:
    opts, _ = _options(run.words[1:], _MLNX_VALUE)
    target = next((v for o, v in opts if o in ("-i", "--interface")), None)
    if target is None:
        out.note(run, "mlnx_qos without -i: the interface it sets is not known")
        return
    sched: dict[str, list[Any] | None] = {}
    for opt, value in opts:
        if opt in ("-i", "--interface", "-a", "-r", "--ratelimit"):
            continue
        if value is None or is_unknown(value):
            if opt in _MLNX_FIELDS:
                _put(run, out, ("nic", target, _MLNX_FIELDS[opt]), None)
            else:
                out.note(run, f"mlnx_qos option {opt} not understood")
            continue
        _mlnx_option(run, out, (target, opt), plain(value).strip("'\""), sched)
    if sched:
        _schedule(run, out, target, sched.get("tsa"), sched.get("bw"))


_MLNX_FIELDS = {
    "-f": "pfc_priorities",
    "--pfc": "pfc_priorities",
    "--trust": "trust",
    "--dscp2prio": "dscp_to_priority",
    "-p": "priority_to_tc",
    "--prio_tc": "priority_to_tc",
    "-s": "tc_scheduler",
    "--tsa": "tc_scheduler",
    "-t": "tc_scheduler",
    "--tcbw": "tc_scheduler",
    "--cable_len": "cable_length_m",
    "--prio2buffer": "priority_to_buffer",
    "--buffer_size": "buffer_sizes_bytes",
    "-d": "dcbx_mode",
    "--dcbx": "dcbx_mode",
}
"""mlnx_qos option -> the NicPort field it sets."""


def _mlnx_option(
    run: Run, out: Reading, where: tuple[str, str], text: str, sched: dict[str, list[Any] | None]
) -> None:
    target, opt = where
    cells = [c.strip() for c in text.split(",")]
    field_name = _MLNX_FIELDS.get(opt)
    if opt in ("-f", "--pfc"):
        flags = [_int(c, 0, 1) for c in cells]
        if len(flags) != 8 or None in flags:
            out.note(run, "mlnx_qos --pfc takes eight 0/1 flags: mlnx_qos rejects it")
            return
        pfc = tuple(p for p, f in enumerate(flags) if f)
        _put(run, out, ("nic", target, "pfc_priorities"), pfc)
    elif opt == "--trust":
        if text not in ("dscp", "pcp"):
            out.note(run, "mlnx_qos --trust takes dscp or pcp")
            return
        _put(run, out, ("nic", target, "trust"), text)
    elif opt == "--dscp2prio":
        _dscp2prio(run, out, target, cells)
    elif opt in ("-p", "--prio_tc", "--prio2buffer"):
        values = [_int(c, 0, 7) for c in cells]
        if len(values) != 8 or None in values:
            out.note(run, f"mlnx_qos {opt} takes eight values 0..7")
            return
        _put(run, out, ("nic", target, str(field_name)), dict(enumerate(values)))
    elif opt in ("-s", "--tsa"):
        sched["tsa"] = [_TSA.get(c.lower(), "") for c in cells]
    elif opt in ("-t", "--tcbw"):
        weights = [_int(c, 0, 100) for c in cells]
        sched["bw"] = None if None in weights else weights
        if None in weights:
            out.note(run, "mlnx_qos --tcbw takes eight percentages")
    elif opt == "--cable_len":
        metres = _int(text, 0, 0xFFFF)
        value = None if metres is None else float(metres)
        _value(run, out, ("nic", target, "cable_length_m"), value, text)
    elif opt == "--buffer_size":
        sizes = [_int(c, 0, 2**40) for c in cells]
        if len(sizes) != 8 or None in sizes:
            out.note(run, "mlnx_qos --buffer_size takes eight byte counts")
            return
        _put(run, out, ("nic", target, "buffer_sizes_bytes"), dict(enumerate(sizes)))
    elif opt in ("-d", "--dcbx"):
        mode = {"os": "os", "fw": "firmware"}.get(text.lower())
        _value(run, out, ("nic", target, "dcbx_mode"), mode, text)
    else:
        out.note(run, f"mlnx_qos option {opt} not understood")


def _dscp2prio(run: Run, out: Reading, target: str, cells: list[str]) -> None:
    dscp = _int(cells[1], 0, 63) if len(cells) == 3 else None
    prio = _int(cells[2], 0, 7) if len(cells) == 3 else None
    if cells[0] != "set" or dscp is None or prio is None:
        out.note(run, "mlnx_qos --dscp2prio: only 'set,<dscp>,<priority>' is read")
        _put(run, out, ("nic", target, "dscp_to_priority"), None)
        return
    _put(run, out, ("nic", target, "dscp_to_priority"), {dscp: prio}, merge=True)


def _schedule(
    run: Run, out: Reading, target: str, tsa: list[str] | None, bw: list[int] | None
) -> None:
    if (tsa is not None and (len(tsa) != 8 or "" in tsa)) or (bw is not None and len(bw) != 8):
        out.note(run, "mlnx_qos --tsa/--tcbw take eight values (strict/ets/vendor, percentages)")
        _put(run, out, ("nic", target, "tc_scheduler"), None)
        return
    table = {}
    for tc in range(8):
        kind = tsa[tc] if tsa is not None else None
        weight = float(bw[tc]) if bw is not None and kind in (None, "ets") else None
        table[tc] = Scheduler(kind=kind, weight=weight)
    _put(run, out, ("nic", target, "tc_scheduler"), table, merge=True)


def _rdma_tool(run: Run, out: Reading) -> None:
    opts, _ = _options(run.words[1:], {"-d", "-p", "-t", "-m"})
    found = dict(opts)
    dev = found.get("-d") or "mlx5_0"
    port = found.get("-p") or "1"
    if run.words[0].endswith("cma_roce_tos"):
        if "-t" not in found:
            return
        raw = found["-t"] or ""
        if plain(port) != "1" and not is_unknown(port):
            out.note(run, "cma_roce_tos on a port other than 1 is not read")
            return
        _value(run, out, ("rdma", dev, "roce_tos"), _int(raw, 0, 255), raw)
        return
    if "-m" not in found:
        return
    raw = found["-m"] or ""
    _value(
        run,
        out,
        ("rdma", dev, "roce_mode"),
        None if is_unknown(raw) else _roce_mode(plain(raw)),
        raw,
    )


def _mlxconfig(run: Run, out: Reading) -> None:
    opts, rest = _options(run.words[1:], {"-d", "--dev", "-b", "--db", "-f", "--file"})
    dev = next((v for o, v in opts if o in ("-d", "--dev")), None)
    if not rest or rest[0] not in ("set", "s", "reset", "r", "set_raw"):
        return
    if rest[0] not in ("set", "s") or dev is None:
        out.note(run, "mlxconfig without -d or other than 'set': its firmware effect is not read")
        _put(run, out, ("pci", dev, "firmware"), None, merge=True)
        return
    values: dict[str, str] = {}
    for item in rest[1:]:
        key, eq, value = item.partition("=")
        if not eq or is_unknown(item):
            _put(run, out, ("pci", dev, "firmware"), None, merge=True)
            continue
        values[key.strip()] = _fw_value(value)
    out.facts["script.firmware"] = "mlxconfig set: firmware values apply after the next reset"
    if values:
        _put(run, out, ("pci", dev, "firmware"), values, merge=True)


def _fw_value(text: str) -> str:
    value = text.strip().strip("'\"")
    if value.lower() in ("true", "false"):
        return "1" if value.lower() == "true" else "0"
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", value):
        return str(int(value, 16))
    labelled = re.fullmatch(r".*\((\d+)\)", value)
    return labelled.group(1) if labelled else value


def _ip(run: Run, out: Reading) -> None:
    words = run.words[1:]
    while words and words[0].startswith("-"):
        words = words[1:]
    if words[:2] not in (["link", "set"], ["l", "set"], ["link", "s"]) or "mtu" not in words:
        return
    args = [w for w in words[2:] if w != "dev"]
    at = words.index("mtu")
    raw = words[at + 1] if at + 1 < len(words) else ""
    _value(run, out, ("nic", args[0] if args else None, "mtu"), _int(raw, 68, 65535), raw)


def _ifconfig(run: Run, out: Reading) -> None:
    words = run.words[1:]
    if "mtu" in words and words:
        at = words.index("mtu")
        raw = words[at + 1] if at + 1 < len(words) else ""
        _value(run, out, ("nic", words[0], "mtu"), _int(raw, 68, 65535), raw)


def _ethtool(run: Run, out: Reading) -> None:
    words = run.words[1:]
    if len(words) < 2:
        return
    if words[0] in ("-A", "--pause"):
        pairs = dict(zip(words[2::2], words[3::2], strict=False))
        for key, name in (("rx", "global_pause_rx"), ("tx", "global_pause_tx")):
            if key in pairs:
                raw = pairs[key]
                value = {"on": True, "off": False}.get(plain(raw)) if not is_unknown(raw) else None
                _value(run, out, ("nic", words[1], name), value, raw)
    elif words[0] in ("-s", "--change") and "speed" in words:
        at = words.index("speed")
        raw = words[at + 1] if at + 1 < len(words) else ""
        _value(run, out, ("nic", words[1], "speed_mbps"), _int(raw, 1, 10**7), raw)


_HANDLERS = {
    "mlnx_qos": _mlnx_qos,
    "cma_roce_tos": _rdma_tool,
    "cma_roce_mode": _rdma_tool,
    "mlxconfig": _mlxconfig,
    "mstconfig": _mlxconfig,
    "ip": _ip,
    "ifconfig": _ifconfig,
    "ethtool": _ethtool,
}
