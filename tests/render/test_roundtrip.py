"""Round trip: parse the rendered configs, lint them against the same intent -> no errors.

Over the lab fabric and over generated variations (speeds 25-800G, cables 1-300 m, lossless
{3} and {3,4}); and the parsed headroom and ECN values equal the calculators' outputs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune import api
from rocetune.model import AuditResult, Fabric, Intent, Port, Severity
from rocetune.render.run import render_fabric, write_report
from rocetune.tune.target import PortTarget, device_target
from tests.render.fabrics import fabric, lint_rendered, loud, switch

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


@pytest.fixture(scope="module")
def lab() -> AuditResult:
    return api.audit(LAB)


RENDERED = {
    "spine1": "eos",
    "spine2": "nxos",
    "leaf1": "sonic",
    "leaf2": "sonic",
    "leaf3": "cumulus",
    "leaf4": "cumulus",
}
SWITCH_PLATFORMS = ("sonic", "cumulus", "eos", "nxos")
HEADROOM_PLATFORMS = ("sonic", "cumulus")
"""Platforms whose rendered config carries the lossless PG buffers and cable length."""


def test_lab_renders_the_supported_platforms_and_skips_the_rest(lab: AuditResult) -> None:
    report = render_fabric(lab.fabric)
    got = {d.name: d.status for d in report.devices}
    assert {n for n, s in got.items() if s == "rendered"} == set(RENDERED) | {
        "gpu01",
        "gpu02",
        "gpu03",
        "gpu04",
    }
    hosts = {d.name for d in report.devices if d.platform == "linux_host"}
    assert hosts == {"gpu01", "gpu02", "gpu03", "gpu04"}
    assert {d.name for d in report.devices if d.status == "skipped"} == set()


def _rendered_only(fab: Fabric) -> Fabric:
    devices = {n: d for n, d in fab.devices.items() if n in RENDERED}
    return fab.model_copy(update={"devices": devices})


def test_lab_round_trip_has_no_errors_or_warnings(lab: AuditResult, tmp_path: Path) -> None:
    result = lint_rendered(render_fabric(lab.fabric), tmp_path, lab.fabric.intent)
    assert result.errors == []
    # NX-OS WRED with `ecn`: what non-ECT packets get is undocumented, RT303 says RT000
    assert loud(result) == []
    assert sorted(result.fabric.devices) == sorted(RENDERED)


def test_nv_set_files_lint_clean(lab: AuditResult, tmp_path: Path) -> None:
    write_report(render_fabric(lab.fabric), tmp_path)
    files = sorted((tmp_path / "apply").glob("*.nv-set.txt"))
    assert [f.name for f in files] == ["leaf3.nv-set.txt", "leaf4.nv-set.txt"]
    result = api.lint(files, intent=lab.fabric.intent)
    assert loud(result) == []


def _check_values(fab: Fabric, parsed: AuditResult) -> int:
    """Parsed lossless PG buffers and ECN thresholds equal the target; returns ports seen."""
    seen = 0
    for name, dev in fab.devices.items():
        target = device_target(dev, fab.intent, fab.links)
        got = parsed.fabric.devices[name]
        for pname, port in target.ports.items():
            gp = got.ports[pname]
            lossless = target.classes.lossless
            assert gp.ecn is not None
            assert gp.pfc_rx is not None
            assert sorted(gp.pfc_rx) == sorted(lossless)
            assert gp.mtu == port.mtu
            for queue in lossless:
                ecn = gp.ecn[queue]
                assert ecn.min_threshold_bytes == port.ecn.kmin_bytes
                assert ecn.max_threshold_bytes == port.ecn.kmax_bytes
            if dev.platform in HEADROOM_PLATFORMS:
                _check_headroom(gp, port, lossless[0])
            else:
                assert gp.pg_buffers is None
            seen += 1
    return seen


def _check_headroom(got: Port, port: PortTarget, priority: int) -> None:
    assert got.pg_buffers is not None
    prof = got.pg_buffers[priority]
    hr = port.headroom
    assert (prof.xoff_bytes, prof.xon_bytes, prof.size_bytes) == (hr.xoff, hr.xon, hr.size)
    assert got.cable_length_m == port.cable_m


def test_lab_headroom_and_ecn_equal_the_calculators(lab: AuditResult, tmp_path: Path) -> None:
    parsed = lint_rendered(render_fabric(lab.fabric), tmp_path, lab.fabric.intent)
    fab = _rendered_only(lab.fabric)
    # shut down, no speed: left out with a note
    left_out = {"spine1": ("Ethernet32/1",), "spine2": ("Ethernet1/5",)}
    for name, dev in fab.devices.items():
        assert device_target(dev, fab.intent, fab.links).left_out == left_out.get(name, ())
    want = sum(len(d.ports) for d in fab.devices.values()) - 2
    assert _check_values(fab, parsed) == want


SPEEDS = (25_000, 100_000, 200_000, 400_000, 800_000)
CABLES = (1, 37.5, 300)


@pytest.mark.parametrize("platform", SWITCH_PLATFORMS)
@pytest.mark.parametrize("lossless", [(3,), (3, 4)])
@pytest.mark.parametrize("speed", SPEEDS)
def test_variations_round_trip(
    platform: str, lossless: tuple[int, ...], speed: int, tmp_path: Path
) -> None:
    intent = Intent(lossless_priorities=lossless, roce_dscp=(26, 34)[: len(lossless)])
    asic = "spectrum3" if platform == "sonic" else None
    for cable in CABLES:
        fab = fabric(switch(platform, speed, asic=asic), cable, intent)
        report = render_fabric(fab)
        assert report.devices[0].status == "rendered", report.devices[0].message
        out = tmp_path / f"{cable:g}"
        parsed = lint_rendered(report, out, intent)
        assert parsed.errors == []
        assert loud(parsed, Severity.ERROR) == [], (platform, speed, cable, lossless)
        assert _check_values(fab, parsed) == 2
