"""Smoke test of the scale benchmark's generator (benchmarks/fabricgen.py) at a tiny size."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ruamel.yaml import YAML

from benchmarks.fabricgen import FAULTS, generate, host_platform_available
from benchmarks.lint_scale import files_of
from rocetune import api


def test_tiny_fabric_parses_and_shows_the_planted_faults(tmp_path: Path) -> None:
    gen = generate(tmp_path, 0.005)
    assert (gen.switches, gen.switch_ports) == (5, 320)  # 1 spine, 4 leaves
    assert gen.hosts == host_platform_available()
    assert gen.nic_ports == (40 if gen.hosts else 0)
    assert gen.links == 4 * 16 + 1 + gen.nic_ports
    files = files_of(tmp_path)
    assert set(gen.files["json"]) <= set(files["json"])
    assert set(gen.files["yaml"]) == set(files["yaml"])
    for path in files["json"]:
        json.loads(path.read_text())
    for path in files["yaml"]:
        assert YAML(typ="rt").load(path.read_text()) is not None
    result = api.audit(gen.inventory)
    assert result.errors == []
    assert {s.status for s in result.devices.values()} == {"ok"}
    assert not [f for f in result.findings if f.code == "RT001"]
    found = Counter((f.code, f.device) for f in result.findings if f.severity.value != "info")
    assert found[("RT303", "spine0")] == 1
    assert found[("RT201", "leaf0")] == 1
    assert found[("RT102", "leaf1")] == 16 + (10 if gen.hosts else 0)  # every linked port
    assert found[("RT708", "leaf0")] == 1
    if gen.hosts:
        assert found[("RT602", "gpu0")] == 1
    assert len(FAULTS) == 5
