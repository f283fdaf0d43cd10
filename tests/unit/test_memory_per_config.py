"""Memory of linting one device is bounded by its config size (issue 18 item 2).

The peak of Python allocations (tracemalloc) while ``api.lint`` reads, parses and checks a
generated config (benchmarks/memory.py's generators), after a warm-up lint of the same text
(one-time set-up out of the measurement), stays within a bound per platform and size: the
issue's target, 10x the config, at 64 ports (where the fixed cost per device weighs most),
and what this tree reaches plus a small margin at 256 ports (benchmarks/memory.py --warm
prints the ratio). A regression that holds a whole intermediate representation again (e.g.
the NVUE node graph next to its values) or a copy per port fails here.
"""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path

import pytest

from benchmarks import memory
from rocetune import api

# peak / config bytes, measured (benchmarks/memory.py --warm): 64 ports sonic 9.57, cumulus
# 9.30, eos 9.77, nxos 9.78; 256 ports sonic 9.61, cumulus 7.01, eos 9.27, nxos 8.73
BOUND = {
    (64, "sonic"): 10.0,
    (64, "cumulus"): 10.0,
    (64, "eos"): 10.0,
    (64, "nxos"): 10.0,
    (256, "sonic"): 10.0,
    (256, "cumulus"): 7.4,
    (256, "eos"): 9.7,
    (256, "nxos"): 9.2,
}


@pytest.mark.parametrize(("ports", "platform"), sorted(BOUND))
def test_lint_peak_is_bounded_by_config_size(ports: int, platform: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = memory._generated(Path(tmp), platform, ports)
        warm = Path(tmp) / f"warm_{path.name}"
        warm.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        api.lint([warm], platform)
        size = path.stat().st_size
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            result = api.lint([path], platform)
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
    assert sum(len(d.ports) for d in result.fabric.devices.values()) == ports
    assert peak <= BOUND[ports, platform] * size, (platform, ports, round(peak / size, 2))
