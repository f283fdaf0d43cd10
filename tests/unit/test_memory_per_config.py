"""Memory of linting one device is bounded by its config size (issue 18 item 2).

The peak of Python allocations (tracemalloc) while ``api.lint`` reads, parses and checks a
generated 256-port config (benchmarks/memory.py's generators), after a warm-up lint of the
same text (one-time set-up out of the measurement), stays within a bound per platform. The
bounds are what this tree reaches plus ~15 % (benchmarks/memory.py --warm prints the ratio);
the issue's target is 10x, not yet met on every platform. A regression that holds a whole
intermediate representation again (e.g. the NVUE node graph next to its values) fails here.
"""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path

import pytest

from benchmarks import memory
from rocetune import api

# peak / config bytes at 256 ports, measured: sonic 9.6, cumulus 8.1, eos 10.2, nxos 9.9
BOUND = {"sonic": 11.0, "cumulus": 9.3, "eos": 11.8, "nxos": 11.4}


@pytest.mark.parametrize("platform", sorted(BOUND))
def test_lint_peak_is_bounded_by_config_size(platform: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = memory._generated(Path(tmp), platform, 256)
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
    assert sum(len(d.ports) for d in result.fabric.devices.values()) == 256
    assert peak <= BOUND[platform] * size, (platform, round(peak / size, 2))
