"""Enterprise SONiC render round trip: render -> parse -> lint clean, values preserved.

Variations: port speeds 25-800G, cables 1-300 m, lossless {3} and {3,4}. ECN thresholds
round to whole KBytes (the sonic-cli unit), so they compare within 500 B.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.model import Intent
from rocetune.render.run import render_fabric
from rocetune.tune.target import device_target
from tests.render.fabrics import fabric, lint_rendered, loud, switch

SPEEDS = (25_000, 100_000, 200_000, 400_000, 800_000)
CABLES = (1, 37.5, 300)


@pytest.mark.parametrize("lossless", [(3,), (3, 4)])
@pytest.mark.parametrize("speed", SPEEDS)
def test_round_trip_is_clean(lossless: tuple[int, ...], speed: int, tmp_path: Path) -> None:
    intent = Intent(lossless_priorities=lossless, roce_dscp=(26, 34)[: len(lossless)])
    for cable in CABLES:
        fab = fabric(switch("enterprise_sonic", speed), cable, intent)
        report = render_fabric(fab)
        dev = report.devices[0]
        assert dev.status == "rendered", dev.message
        assert [Path(f.path).name for f in dev.files if f.lintable] == ["sw1.esonic.cfg"]
        parsed = lint_rendered(report, tmp_path / f"{cable:g}", intent)
        assert loud(parsed) == [], (speed, cable, lossless)
        got = next(iter(parsed.fabric.devices.values()))
        assert got.platform == "enterprise_sonic"
        assert got.unparsed == ()
        target = device_target(fab.devices["sw1"], intent, fab.links)
        for name, port in target.ports.items():
            gp = got.ports[name]
            assert gp.mtu == port.mtu
            assert gp.pfc_rx is not None
            assert sorted(gp.pfc_rx) == sorted(lossless)
            assert gp.ecn is not None
            for queue in target.classes.lossless:
                ecn = gp.ecn[queue]
                assert ecn.min_threshold_bytes is not None
                assert ecn.max_threshold_bytes is not None
                assert abs(ecn.min_threshold_bytes - port.ecn.kmin_bytes) <= 500
                assert abs(ecn.max_threshold_bytes - port.ecn.kmax_bytes) <= 500


def test_lossless_priority_outside_3_and_4_is_not_rendered() -> None:
    intent = Intent(lossless_priorities=(5,), roce_dscp=(26,))
    report = render_fabric(fabric(switch("enterprise_sonic", 100_000), 5, intent))
    dev = report.devices[0]
    assert dev.status != "rendered"
    assert "3 and 4" in (dev.message or "")
