"""Issue 12 items 3 and 4 checked on real configurations (tests/realworld/configs).

Each test takes a real file, changes or adds only the line under test (the vendor's own
syntax, where the file shows how it is entered) and lints it as the CLI does:

- NX-OS ``priority-flow-control mode auto`` (the default) on a RoCE port is RT201, not RT000;
- EOS: no watchdog line -> RT205 could not run (RT000), never "off"; ``flowcontrol receive
  on`` on a PFC port is RT204; ``mtu 9216`` is above EOS's 9214 maximum (RT601); ``qos map cos
  N to traffic-class <lossless TC>`` for a CoS that is not lossless is RT104;
- the per-class MTU of an NX-OS no-drop network-qos class is checked (RT601) and the
  unindented Microsoft script's class MTU 2240 is reported.
"""

from __future__ import annotations

import re
from pathlib import Path

from rocetune import api
from rocetune.model import Finding

CONFIGS = Path(__file__).parent / "configs"
AZURE = CONFIGS / "nxos" / "azurelocal_tor_qos_policy_nxos.cfg"
ARISTA_STEPS = CONFIGS / "eos" / "msdocs_cnic_arista7050_numbered_steps.txt"
N3132_SCRIPT = CONFIGS / "nxos" / "msdocs_cnic_n3132_unindented_script.cfg"
EOS_PORTS = ("Ethernet14/1", "Ethernet15/1", "Ethernet16/1", "Ethernet17/1")


def _lint(path: Path, platform: str) -> list[Finding]:
    return list(api.lint([path], platform=platform).findings)


def _steps(extra: dict[int, str]) -> str:
    """The Arista numbered steps with ``extra`` lines inserted before step N (renumbered)."""
    out: list[str] = []
    for line in ARISTA_STEPS.read_text().splitlines():
        match = re.match(r"(\d+)\.\t(.*)", line)
        assert match is not None, line
        n = int(match.group(1))
        if n in extra:
            out.append(f"{len(out) + 1}.\t{extra[n]}")
        out.append(f"{len(out) + 1}.\t{match.group(2)}")
    return "\n".join(out) + "\n"


def test_nxos_mode_auto_on_a_roce_port_is_rt201(tmp_path: Path) -> None:
    text = AZURE.read_text()
    assert "  priority-flow-control mode on send-tlv\n" in text
    path = tmp_path / "auto.cfg"
    path.write_text(text.replace("mode on send-tlv", "mode auto"))
    got = [f for f in _lint(path, "nxos") if f.code == "RT201"]
    assert [(f.port, f.severity.value) for f in got] == [("Ethernet1/17", "error")]
    assert "DCBX" in got[0].message
    # unchanged, the real file's `mode on` port has no RT201
    assert not [f for f in _lint(AZURE, "nxos") if f.code == "RT201"]


def test_eos_watchdog_without_a_line_is_not_verified() -> None:
    found = _lint(ARISTA_STEPS, "eos")
    assert not [f for f in found if f.code in ("RT205", "RT207")]
    unknown = [f for f in found if f.code == "RT000" and "RT205 pfc-watchdog-on" in f.message]
    assert unknown
    assert "PFC watchdog state not in snapshot" in unknown[0].message


def test_eos_flowcontrol_on_and_mtu_9216_on_pfc_ports(tmp_path: Path) -> None:
    path = tmp_path / "steps.txt"
    path.write_text(_steps({13: "flowcontrol receive on", 14: "mtu 9216"}))
    found = _lint(path, "eos")
    assert sorted(f.port or "" for f in found if f.code == "RT204") == list(EOS_PORTS)
    mtu = [f for f in found if f.code == "RT601"]
    assert sorted(f.port or "" for f in mtu) == list(EOS_PORTS)
    assert all(f.severity.value == "error" and "9214" in f.message for f in mtu)
    assert "(IP MTU, without the 22 B Ethernet header" in mtu[0].message  # the unit is named
    assert not [f for f in found if f.code == "RT001" and f.line in (13, 14)]


def test_eos_cos_map_into_the_lossless_tc_is_stray(tmp_path: Path) -> None:
    path = tmp_path / "steps.txt"
    path.write_text(_steps({5: "qos map cos 4 to traffic-class 3"}))
    stray = [
        f for f in _lint(path, "eos") if f.code == "RT104" and str(f.observed) == "CoS 4 -> TC 3"
    ]
    assert sorted(f.port or "" for f in stray) == list(EOS_PORTS)
    assert "every frame the port classifies by CoS" in stray[0].message  # qos trust cos
    # the lossless CoS itself is fine
    path.write_text(_steps({5: "qos map cos 3 to traffic-class 3"}))
    assert not [f for f in _lint(path, "eos") if f.code == "RT104" and "CoS" in str(f.observed)]


def test_nxos_no_drop_class_mtu_below_the_roce_frame(tmp_path: Path) -> None:
    found = [f for f in _lint(N3132_SCRIPT, "nxos") if f.code == "RT601"]
    assert found
    assert any("2240" in f.message for f in found)
    assert "both IP MTU" in found[0].message
    assert "9022 B on the wire" in found[0].message
    # the Azure Local TOR sets mtu 9216 on every class: no RT601; a class lowered is reported
    assert not [f for f in _lint(AZURE, "nxos") if f.code == "RT601"]
    text = AZURE.read_text()
    assert text.count("    mtu 9216\n") >= 1
    path = tmp_path / "class_mtu.cfg"
    path.write_text(text.replace("    mtu 9216\n", "    mtu 1500\n"))
    low = [f for f in _lint(path, "nxos") if f.code == "RT601"]
    assert [f.port for f in low] == ["Ethernet1/17"]
    assert "1500" in low[0].message


def test_sonic_port_mtu_is_an_ip_mtu_like_the_hosts() -> None:
    from rocetune.model import Intent

    # PORT.mtu 9100 on every port of a real SONiC CONFIG_DB: it excludes the 22 B the switch
    # adds, so hosts at IP MTU 9100 fit (no RT601) and 9101 do not; the message names the unit
    config = CONFIGS / "sonic" / "su_dbmigrator_acs_msn2700_t0_v3_0_3_flat.json"
    fits = Intent.model_validate({"mtu": {"host": 9100, "roce": 4096}})
    found = api.lint([config], platform="sonic", intent=fits).findings
    assert not [f for f in found if f.code == "RT601"]
    above = Intent.model_validate({"mtu": {"host": 9101, "roce": 4096}})
    found = api.lint([config], platform="sonic", intent=above).findings
    mtu = [f for f in found if f.code == "RT601"]
    assert len(mtu) == 32
    assert "both IP MTU, without the 22 B Ethernet header" in mtu[0].message
