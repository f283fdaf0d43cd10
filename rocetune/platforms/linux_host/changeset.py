"""Linux host change set: the lines of the rendered script whose target differs from the host.

The rendered ``apply/<device>.host.sh`` is the change form; each command line after the
"before" capture is matched to the NIC setting it writes and compared with the value collected
in the snapshot (the parsed :class:`~rocetune.model.NicPort`). Lines whose value is already in
place are left out; lines whose current value is unknown are kept (never assumed equal). The
rollback is the script's own "before" capture (``$ROCETUNE_ROLLBACK``): the state to restore,
not an executable undo.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rocetune.model import Device, NicPort
from rocetune.platforms.changes import Change, PlatformPlan
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget

Check = Callable[[NicPort, re.Match[str]], bool | None]
"""True when the line would change the NIC, False when in place, None when unknown."""


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def _trust(n: NicPort, m: re.Match[str]) -> bool | None:
    return None if n.trust is None else n.trust != m["v"]


def _dscp(n: NicPort, m: re.Match[str]) -> bool | None:
    got = n.dscp_to_priority
    return None if got is None else got.get(int(m["d"])) != int(m["p"])


def _pfc(n: NicPort, m: re.Match[str]) -> bool | None:
    if n.pfc_priorities is None or n.priority_to_tc is None:
        return None
    flags = _ints(m["pfc"])
    want_tc = dict(enumerate(_ints(m["tc"])))
    return set(n.pfc_priorities) != {p for p, f in enumerate(flags) if f} or any(
        n.priority_to_tc.get(p) != tc for p, tc in want_tc.items()
    )


def _ets(n: NicPort, m: re.Match[str]) -> bool | None:
    if n.tc_scheduler is None:
        return None
    for tc, (tsa, bw) in enumerate(zip(m["tsa"].split(","), _ints(m["bw"]), strict=False)):
        got = n.tc_scheduler.get(tc)
        if got is None or got.kind is None:
            return None
        if (got.kind == "strict") != (tsa == "strict") or (tsa != "strict" and got.weight != bw):
            return True
    return False


def _flag(attr: str) -> Check:
    def check(n: NicPort, m: re.Match[str]) -> bool | None:
        got = getattr(n, attr)
        return None if got is None else got.get(int(m["p"])) is not (m["v"] == "1")

    return check


def _value(attr: str, convert: Callable[[str], object] = int) -> Check:
    def check(n: NicPort, m: re.Match[str]) -> bool | None:
        got = getattr(n, attr)
        return None if got is None else got != convert(m["v"])

    return check


def _pause(n: NicPort, m: re.Match[str]) -> bool | None:
    del m
    if n.global_pause_rx is None or n.global_pause_tx is None:
        return None
    return n.global_pause_rx or n.global_pause_tx


NIC = r"(?P<nic>[A-Za-z0-9_.:-]+)"
LINES: tuple[tuple[re.Pattern[str], str, Check], ...] = (
    (re.compile(rf"mlnx_qos -i {NIC} --trust (?P<v>\w+)$"), "trust", _trust),
    (re.compile(rf"mlnx_qos -i {NIC} --dscp2prio set,(?P<d>\d+),(?P<p>\d+)$"), "dscp_map", _dscp),
    (
        re.compile(rf"mlnx_qos -i {NIC} --pfc (?P<pfc>[\d,]+) --prio_tc (?P<tc>[\d,]+)$"),
        "pfc",
        _pfc,
    ),
    (
        re.compile(rf"mlnx_qos -i {NIC} --tsa (?P<tsa>[a-z,]+) --tcbw (?P<bw>[\d,]+)$"),
        "scheduling",
        _ets,
    ),
    (
        re.compile(rf"mlnx_qos -i {NIC} --cable_len (?P<v>\d+)$"),
        "buffers",
        _value("cable_length_m", float),
    ),
    (
        re.compile(rf"echo (?P<v>[01]) > /sys/class/net/{NIC}/ecn/roce_rp/enable/(?P<p>\d)$"),
        "ecn",
        _flag("dcqcn_rp"),
    ),
    (
        re.compile(rf"echo (?P<v>[01]) > /sys/class/net/{NIC}/ecn/roce_np/enable/(?P<p>\d)$"),
        "ecn",
        _flag("dcqcn_np"),
    ),
    (
        re.compile(rf"echo (?P<v>\d+) > /sys/class/net/{NIC}/ecn/roce_np/cnp_dscp$"),
        "ecn",
        _value("cnp_dscp"),
    ),
    (
        re.compile(rf"echo (?P<v>\d+) > /sys/class/net/{NIC}/ecn/roce_np/cnp_802p_prio$"),
        "ecn",
        _value("cnp_priority"),
    ),
    (
        re.compile(rf'cma_roce_tos -d "\$\(rdma_dev {NIC}\)" -t (?P<v>\d+)$'),
        "dscp_map",
        _value("roce_tos"),
    ),
    (
        re.compile(rf'cma_roce_mode -d "\$\(rdma_dev {NIC}\)" -p 1 -m 2$'),
        "roce_mode",
        lambda n, m: None if n.roce_mode is None else n.roce_mode != "v2",
    ),
    (re.compile(rf"ip link set dev {NIC} mtu (?P<v>\d+)$"), "mtu", _value("mtu")),
    (re.compile(rf"ethtool -A {NIC} autoneg off rx off tx off$"), "pause", _pause),
)


def _split(script: str) -> tuple[list[str], list[str]]:
    """(capture lines, command lines) of the rendered script."""
    capture: list[str] = []
    commands: list[str] = []
    state = "head"
    for raw in script.splitlines():
        line = raw.strip()
        if state == "head" and line == "{":
            state = "capture"
        elif state == "capture" and line.startswith("}"):
            state = "commands"
        elif state == "capture" and line:
            capture.append(line)
        elif state == "commands" and line and not line.startswith("#"):
            commands.append(line)
    return capture, commands


def _change(device: Device, line: str) -> Change | None:
    for pattern, kind, check in LINES:
        m = pattern.match(line)
        if m is None:
            continue
        nic = device.nics.get(m["nic"])
        differs = None if nic is None else check(nic, m)
        return None if differs is False else Change(line, kind, m["nic"])
    return Change(line, "other")


def changeset(
    snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
) -> PlatformPlan:
    """The script lines that change ``device``; rollback = the script's before capture."""
    del snapshot, target
    script = next(t for p, t in rendered.items() if p.endswith(".host.sh"))
    capture, commands = _split(script)
    plan = PlatformPlan(
        hint="run the rendered apply/<device>.host.sh (it captures the state first)",
        rollback=["# restore the values captured into $ROCETUNE_ROLLBACK by:", *capture],
    )
    for line in commands:
        change = _change(device, line)
        if change is not None:
            plan.changes.append(change)
    return plan
