"""Enterprise SONiC buffers follow the Broadcom model (issue 19 item 1, issue 12 item 1).

``buffer init lossless`` creates the shared headroom pool and the lossless PG 3-4 profiles at
runtime; the running configuration does not print them. rocetune adds those objects, checks
what the text gives, and says exactly what is missing (RT000), never a silent pass."""

from __future__ import annotations

from pathlib import Path

from rocetune.api import lint
from rocetune.model import Intent, Severity
from rocetune.platforms.enterprise_sonic.parse import parse_text
from tests.paths import CORPUS

HLD = CORPUS / "enterprise_sonic" / "sonic_hld_rocev2_buffer_transcript.txt"
INTENT = Intent(lossless_priorities=[3, 4], roce_dscp=[26])

BASE = """\
qos map dscp-tc RDMA
 dscp 26 traffic-class 3
 dscp 48 traffic-class 6
!
qos map tc-pg RDMA
 traffic-class 3 priority-group 3
 traffic-class 4 priority-group 4
!
"""
PORT = """\
interface Eth1/{n}
 mtu 9100
 speed 100000
 cable-length 40m
 qos-map dscp-tc RDMA
 qos-map tc-pg RDMA
 priority-flow-control priority 3
 priority-flow-control priority 4
{extra}!
"""
PROFILE = (
    "buffer profile pg_lossless_100000_40m ingress_lossless_pool 1248 dynamic-threshold -3"
    " pause pause-threshold 177632 resume-threshold 2288 resume-offset-threshold 2288\n"
)


def _config(head: str, ports: int = 2, extra: str = "") -> str:
    return head + BASE + "".join(PORT.format(n=n, extra=extra) for n in range(1, ports + 1))


def _lint(tmp_path: Path, text: str) -> list:
    path = tmp_path / "running.txt"
    path.write_text(text, encoding="utf-8")
    return lint([path], platform="enterprise_sonic", intent=INTENT).findings


def _rt000(findings: list, code: str) -> str:
    return " ".join(f.message for f in findings if f.code == "RT000" and code in f.message)


def test_buffer_init_creates_the_runtime_pgs_with_unknown_values() -> None:
    dev = parse_text(HLD.read_text(encoding="utf-8"), str(HLD), "sw", None).device
    assert dev.asic == "broadcom"
    pool = (dev.buffer_pools or {})["ingress_lossless_pool"]
    assert pool.shared_headroom_bytes is None  # a platform default, not in the text
    pgs = dev.ports["Ethernet0"].pg_buffers or {}
    assert set(pgs) == {3, 4}
    assert pgs[3].xoff_bytes is None
    assert "generated at runtime by `buffer init lossless`" in (pgs[3].generated_at_runtime or "")


def test_hld_transcript_says_what_is_missing(tmp_path: Path) -> None:
    findings = _lint(tmp_path, HLD.read_text(encoding="utf-8"))
    codes = {"RT501", "RT502", "RT504", "RT505"}
    assert not [f for f in findings if f.code in codes and f.severity == Severity.ERROR]
    rt501 = _rt000(findings, "RT501")
    assert "buffer init lossless" in rt501
    assert "show buffer profile" in rt501
    assert "port speed and cable length are not configured" in rt501
    assert "shared headroom size (xoff) of pool ingress_lossless_pool" in _rt000(findings, "RT504")


def test_without_buffer_init_nothing_is_invented() -> None:
    dev = parse_text(_config(""), "run.txt", "sw", None).device
    assert dev.asic == "broadcom"
    assert dev.ports["Eth1/1"].pg_buffers is None


def test_explicit_profiles_and_pool_are_checked_as_shared_headroom(tmp_path: Path) -> None:
    head = "buffer init lossless\nbuffer pool ingress_lossless_pool shared-headroom-size 710528\n"
    text = _config(head + PROFILE, extra=" buffer priority-group 3-4 pg_lossless_100000_40m\n")
    findings = _lint(tmp_path, text)
    # 2 ports x 2 PGs x 177632 B = 710528 B: the pool holds every limit (ratio 1)
    assert not [f for f in findings if f.code in ("RT501", "RT502", "RT504")]
    assert "shared headroom" not in _rt000(findings, "RT504")
    small = text.replace("shared-headroom-size 710528", "shared-headroom-size 300000")
    found = [f for f in _lint(tmp_path, small) if f.code == "RT504"]
    assert len(found) == 1
    assert found[0].severity == Severity.WARNING
    assert "sum of PG xoff 710528 B / 2 ports = 355264 B" in found[0].message


def test_runtime_pgs_next_to_a_configured_pool(tmp_path: Path) -> None:
    head = "buffer init lossless\nbuffer pool ingress_lossless_pool shared-headroom-size 710528\n"
    findings = _lint(tmp_path, _config(head))
    rt504 = _rt000(findings, "RT504")
    assert "xoff of 4 of the 4 lossless PGs on shared headroom pool" in rt504
    assert "pg_lossless_100000_40m_profile" in _rt000(findings, "RT501")
