"""The shipped example fabric: every planted fault of inventories/lab/README.md is found."""

from __future__ import annotations

import json
import re
from collections import Counter

from tests.cli.conftest import ROOT, run_cli

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
SNAPSHOTS = "inventories/lab/snapshots"

# (code, device, port, link) of every error/warning; the README's table lists each one.
PLANTED = {
    # 1 leaf1: no PFC on the uplink to spine2
    ("RT201", "leaf1", "Ethernet8", None),
    ("RT701", "leaf1", "Ethernet8", "leaf1:Ethernet8--spine2:Ethernet1/1"),
    ("RT705", "leaf1", "Ethernet8", None),
    # 2 leaf2: 100 m uplink with the 30 m headroom profile
    ("RT501", "leaf2", "Ethernet8", None),
    ("RT503", "leaf2", "Ethernet8", "leaf2:Ethernet8--spine2:Ethernet1/2"),
    # 3 spine1 (EOS): watchdog action no-drop
    ("RT207", "spine1", None, None),
    # 4 spine2 (NX-OS): WRED without ecn on the RoCE queue
    ("RT303", "spine2", None, None),
    *(("RT301", "spine2", f"Ethernet1/{n}", None) for n in range(1, 5)),
    ("RT706", "spine2", "Ethernet1/1", "leaf1:Ethernet8--spine2:Ethernet1/1"),
    ("RT706", "spine2", "Ethernet1/2", "leaf2:Ethernet8--spine2:Ethernet1/2"),
    ("RT706", "spine2", "Ethernet1/3", "leaf3:swp32--spine2:Ethernet1/3"),
    ("RT706", "spine2", "Ethernet1/4", "leaf4:swp32--spine2:Ethernet1/4"),
    # 5 spine2 (NX-OS): no PFC watchdog on the leaf-facing ports
    *(("RT205", "spine2", f"Ethernet1/{n}", None) for n in range(1, 5)),
    # 6 leaf3: DSCP 26 -> switch priority 0
    *(("RT102", "leaf3", p, None) for p in ("swp1", "swp2", "swp31", "swp32")),
    ("RT702", "leaf3", "swp31", "leaf3:swp31--spine1:Ethernet3/1"),
    ("RT702", "leaf3", "swp32", "leaf3:swp32--spine2:Ethernet1/3"),
    ("RT702", "leaf3", "swp1", "gpu01:eth2--leaf3:swp1"),
    ("RT707", "leaf3", "swp1", None),
    ("RT707", "leaf3", "swp2", None),
    ("RT705", "leaf3", None, None),
    # 7 leaf4: uplink MTU 1500
    ("RT601", "leaf4", "swp32", None),
    ("RT703", "leaf4", "swp32", "leaf4:swp32--spine2:Ethernet1/4"),
    # 8 leaf4: NVUE's default DSCP >> 3 map
    *(("RT104", "leaf4", p, None) for p in ("swp1", "swp2", "swp31", "swp32")),
    # 9 gpu02 eth2: trust pcp
    ("RT101", "gpu02", "eth2", None),
    ("RT702", "gpu02", "eth2", "gpu02:eth2--leaf3:swp2"),
    ("RT707", "gpu02", "eth2", None),
    ("RT705", "gpu02", "eth2", None),
    # 10 gpu03 eth2: CNP DSCP 4 (runtime and firmware)
    ("RT313", "gpu03", "eth2", "gpu03:eth2--leaf1:Ethernet16"),
    ("RT316", "gpu03", "eth2", None),
    ("RT705", "gpu03", "eth2", None),
    # 11 gpu04 eth3: PFC on priority 4 instead of 3
    ("RT201", "gpu04", "eth3", None),
    ("RT202", "gpu04", "eth3", None),
    ("RT506", "gpu04", "eth3", None),
    ("RT701", "gpu04", "eth3", "gpu04:eth3--leaf2:Ethernet24"),
    ("RT707", "gpu04", "eth3", None),
    ("RT705", "gpu04", "eth3", None),
    # 12 the fabric: no PFC watchdog policy used by more than half of the switches (1, 3, 5)
    ("RT705", None, None, None),
    # 13 spine1 (EOS): only tx-queues 0, 3, 6 configured; queues 1, 2, 4, 5, 7 stay strict
    *(("RT404", "spine1", f"Ethernet{n}/1", None) for n in range(1, 5)),
}

# (code, device, rules that could not run) of every info finding, as the README lists them.
INFO = sorted(
    [
        ("RT000", "gpu02", ("RT102", "RT104", "RT404", "RT702", "RT705", "RT707")),
        *(("RT000", d, (c,)) for d in ("leaf1", "leaf2") for c in ("RT208", "RT504", "RT709")),
        *(
            ("RT000", d, rules)
            for d in ("leaf3", "leaf4")
            for rules in (("RT208",), ("RT305",), ("RT501", "RT502"), ("RT504",), ("RT505",))
        ),
        *(
            ("RT000", d, rules)
            for d in ("spine1", "spine2")
            for rules in (
                ("RT208",),
                ("RT305", "RT501", "RT502"),
                ("RT503",),
                ("RT504",),
                ("RT505",),
                ("RT709",),
            )
        ),
        ("RT000", "spine1", ("RT106",)),
        ("RT000", "spine2", ("RT107",)),
        ("RT709", "leaf3", ()),
    ]
)
DEVICES = {
    "gpu01": "linux_host",
    "gpu02": "linux_host",
    "gpu03": "linux_host",
    "gpu04": "linux_host",
    "leaf1": "sonic",
    "leaf2": "sonic",
    "leaf3": "cumulus",
    "leaf4": "cumulus",
    "spine1": "eos",
    "spine2": "nxos",
}
FINDING_KEYS = [
    "code",
    "name",
    "severity",
    "device",
    "port",
    "link",
    "message",
    "observed",
    "expected",
    "file",
    "line",
]
_COULD_NOT_RUN = re.compile(r"^((?:RT\d{3} [a-z0-9-]+(?:, )?)+) could not run:")


def audit_json() -> dict:  # type: ignore[type-arg]
    res = run_cli("audit", LAB, "--format", "json")
    assert res.code == 1, res.err
    assert res.err == ""
    return json.loads(res.out)  # type: ignore[no-any-return]


def _info_key(f: dict) -> tuple[str, str, tuple[str, ...]]:  # type: ignore[type-arg]
    match = _COULD_NOT_RUN.match(f["message"]) if f["code"] == "RT000" else None
    rules = tuple(re.findall(r"RT\d{3}", match.group(1))) if match else ()
    return f["code"], f["device"], rules


def test_every_planted_fault_is_found_and_nothing_else() -> None:
    data = audit_json()
    got = {
        (f["code"], f["device"], f["port"], f["link"])
        for f in data["findings"]
        if f["severity"] in {"error", "warning"}
    }
    assert got == PLANTED
    infos = sorted(_info_key(f) for f in data["findings"] if f["severity"] == "info")
    assert infos == INFO, "only the documented gaps of the snapshots are info findings"


def test_host_link_faults_name_both_ends() -> None:
    by_key = {(f["code"], f["device"], f["port"]): f for f in audit_json()["findings"]}
    for code, device, port, ends in [
        ("RT702", "gpu02", "eth2", ("gpu02:eth2", "leaf3:swp2")),
        ("RT313", "gpu03", "eth2", ("gpu03:eth2", "leaf1:Ethernet16")),
        ("RT701", "gpu04", "eth3", ("gpu04:eth3", "leaf2:Ethernet24")),
    ]:
        message = by_key[(code, device, port)]["message"]
        assert all(end in message for end in ends), (code, message)


def test_json_shape() -> None:
    data = audit_json()
    assert list(data) == [
        "version",
        "findings",
        "devices",
        "summary",
        "coverage",
        "root_causes",
        "root_cause_summary",
    ]
    assert data["version"] == 1  # root causes are added, nothing changed
    rt000 = [f for f in data["findings"] if f["code"] == "RT000"]
    assert len(data["coverage"]) == len(rt000)
    assert {c["message"] for c in data["coverage"]} == {f["message"] for f in rt000}
    assert all(set(c["rules"]) and c["kind"] == "missing-data" for c in data["coverage"])
    ids = {rc["id"] for rc in data["root_causes"]}
    for f in data["findings"]:
        assert list(f) == [*FINDING_KEYS, "fingerprint", "root_cause"]
        assert (f["root_cause"] is None) == (f["code"] == "RT000")
        assert f["root_cause"] is None or f["root_cause"] in ids
        assert f["severity"] in {"error", "warning", "info"}
        assert isinstance(f["message"], str)
        assert f["message"]
        assert f["file"] is None or not f["file"].startswith("/")
        assert f["line"] is None or isinstance(f["line"], int)
        assert f["link"] is None or "--" in f["link"]
    assert data["devices"] == {
        name: {"platform": platform, "status": "ok", "error": None}
        for name, platform in DEVICES.items()
    }
    counts = Counter(f["severity"] for f in data["findings"])
    assert data["summary"] == {s: counts.get(s, 0) for s in ("error", "warning", "info")}
    members = [fp for rc in data["root_causes"] for fp in rc["findings"]]
    members += [
        fp for rc in data["root_causes"] for c in rc["consequences"] for fp in c["findings"]
    ]
    real = [f["fingerprint"] for f in data["findings"] if f["code"] != "RT000"]
    assert sorted(members) == sorted(real)  # every finding in exactly one root cause
    assert data["root_cause_summary"]["findings"] == len(real)
    assert data["root_cause_summary"]["root_causes"] == len(data["root_causes"])


def _line(finding: dict) -> str:  # type: ignore[type-arg]
    lines = (ROOT / str(finding["file"])).read_text().splitlines()
    return lines[int(finding["line"]) - 1].strip()


def test_findings_point_at_config_lines() -> None:
    data = audit_json()
    by_key = {(f["code"], f["device"], f["port"]): f for f in data["findings"]}
    rt201 = by_key[("RT201", "leaf1", "Ethernet8")]
    assert rt201["file"] == f"{SNAPSHOTS}/leaf1/show_runningconfiguration_all.json"
    assert '"Ethernet8"' in _line(rt201)
    rt601 = by_key[("RT601", "leaf4", "swp32")]
    assert rt601["file"] == "inventories/lab/configs/leaf4.yaml"
    assert _line(rt601) == "mtu: 1500"
    rt207 = by_key[("RT207", "spine1", None)]
    assert rt207["file"] == f"{SNAPSHOTS}/spine1/show_running_config.txt"
    assert _line(rt207) == "priority-flow-control pause watchdog action no-drop"
    rt301 = by_key[("RT301", "spine2", "Ethernet1/3")]
    assert rt301["file"] == f"{SNAPSHOTS}/spine2/show_running_config.txt"
    assert _line(rt301).startswith("random-detect minimum-threshold 1600 kbytes")
    assert not _line(rt301).endswith(" ecn")
    rt101 = by_key[("RT101", "gpu02", "eth2")]
    assert rt101["file"] == f"{SNAPSHOTS}/gpu02/mlnx_qos_i_eth2.txt"
    assert _line(rt101) == "Priority trust state: pcp"
    rt313 = by_key[("RT313", "gpu03", "eth2")]
    assert rt313["file"] == f"{SNAPSHOTS}/gpu03/cat_sys_class_net_eth2_ecn_roce_np_cnp_dscp.txt"
    assert _line(rt313) == "4"
    rt202 = by_key[("RT202", "gpu04", "eth3")]
    assert rt202["file"] == f"{SNAPSHOTS}/gpu04/mlnx_qos_i_eth3.txt"
    assert _line(rt202).split() == ["enabled", "0", "0", "0", "0", "1", "0", "0", "0"]
    rt707 = by_key[("RT707", "gpu04", "eth3")]  # the NIC's PFC line, not its first line
    assert (rt707["file"], rt707["line"]) == (rt202["file"], rt202["line"])


def test_text_output_groups_by_device() -> None:
    res = run_cli("audit", LAB)
    assert res.code == 1
    findings, _, coverage = res.out.partition("\nCoverage: ")
    headers = {line.split("  ")[0] for line in findings.splitlines() if line[:1].isalpha()}
    with_findings = {f"{d} ({p})" for d, p in DEVICES.items() if d != "gpu01"}  # gpu01 is clean
    assert headers == {*with_findings, "fabric"}  # link faults under the device at fault
    assert "RT501 headroom-sufficient" in findings
    assert "147355 B" in findings  # the computation is shown (400G, 100 m, MTU 9214)
    assert "RT000" not in findings  # coverage is apart
    assert coverage.startswith("16 rules not checked on 7 devices\n")
    assert "  leaf3\n    not checked: RT208 pfc-oper-state: " in coverage
    assert "\x1b[" not in res.out  # no colour when not a TTY
    summary = [line for line in res.out.splitlines() if "device(s) checked" in line]
    assert summary == [
        "10 error(s), 9 warning(s), 1 info in 10 of 10 device(s) checked (20 root causes on 21"
        " ports; 55 findings). Coverage: 16 rules not checked on 7 devices."
    ]
    assert res.out.splitlines()[-3] == (
        "Next: run `rocetune plan inventories/lab/inventory.yaml` to see the fixes."
    )


def test_select_ignore_and_fail_on() -> None:
    res = run_cli("audit", LAB, "--format", "json", "--select", "RT2", "--ignore", "RT205,RT201")
    codes = {f["code"] for f in json.loads(res.out)["findings"]}
    assert codes == {"RT202", "RT207"}
    assert res.code == 0  # both are warnings, below the default --fail-on error
    res = run_cli("audit", LAB, "--select", "pfc-watchdog-action", "--fail-on", "warning")
    assert res.code == 1
    res = run_cli("audit", LAB, "--select", "RT6", "--ignore", "RT601,RT000")
    assert res.code == 0


def test_output_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "report.json"
    res = run_cli("audit", LAB, "--format", "json", "-o", out)
    assert res.code == 1
    assert res.out == ""
    assert json.loads(out.read_text())["version"] == 1
