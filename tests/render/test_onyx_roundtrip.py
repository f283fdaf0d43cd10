"""Onyx render round trip: render -> parse -> lint clean, values equal the calculators'.

Onyx keeps its default DSCP map (DSCP >> 3) in the rendered config, so the DSCPs around the
RoCE DSCP share its lossless priority (RT104, a warning); nothing else may be reported at
warning level or above. The PFC watchdog is not rendered (its state is "could not verify").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.model import Intent
from rocetune.render.run import render_fabric
from rocetune.tune.target import device_target
from tests.render.fabrics import fabric, lint_rendered, loud, switch

SPEEDS = (25_000, 100_000, 400_000, 800_000)
CABLES = (1, 37.5, 300)
ALLOWED_WARNINGS = {"RT104"}


@pytest.mark.parametrize("lossless", [(3,), (3, 4)])
@pytest.mark.parametrize("speed", SPEEDS)
def test_onyx_round_trip(lossless: tuple[int, ...], speed: int, tmp_path: Path) -> None:
    intent = Intent(lossless_priorities=lossless, roce_dscp=(26, 34)[: len(lossless)])
    for cable in CABLES:
        fab = fabric(switch("onyx", speed), cable, intent)
        report = render_fabric(fab)
        dev = report.devices[0]
        assert dev.status == "rendered", dev.message
        assert [Path(f.path).name for f in dev.files if f.lintable] == ["sw1.onyx.cfg"]
        parsed = lint_rendered(report, tmp_path / f"{cable:g}", intent)
        assert loud(parsed, allowed=ALLOWED_WARNINGS) == [], (speed, cable, lossless)
        got = parsed.fabric.devices["sw1"]
        assert got.platform == "onyx"
        assert got.unparsed == ()
        target = device_target(fab.devices["sw1"], intent, fab.links)
        for name, port in target.ports.items():
            gp = got.ports[name]
            assert gp.trust == "dscp"
            assert gp.pfc_rx == gp.pfc_tx == tuple(sorted(lossless))
            assert gp.mtu == port.mtu
            assert gp.ecn is not None
            for tc in lossless:
                ecn = gp.ecn[tc]
                assert ecn.min_threshold_bytes == max(1, round(port.ecn.kmin_bytes / 1000)) * 1000
                assert ecn.max_threshold_bytes == max(1, round(port.ecn.kmax_bytes / 1000)) * 1000


def test_intent_needing_another_dscp_map_is_refused(tmp_path: Path) -> None:
    intent = Intent(lossless_priorities=(3,), roce_dscp=(46,))
    report = render_fabric(fabric(switch("onyx", 100_000), 3, intent))
    dev = report.devices[0]
    assert dev.status == "error"
    assert "Onyx default map" in dev.message
