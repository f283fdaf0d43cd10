"""Smoke test of the scale benchmark's generator (benchmarks/fabricgen.py) at a tiny size."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from benchmarks.fabricgen import FAULTS, generate, host_platform_available
from benchmarks.lint_scale import files_of, report
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


def test_each_audit_is_compared_with_the_bare_parses_around_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def mode(cpus: list[float]) -> dict[str, object]:
        return {"cpu": sorted(cpus)[len(cpus) // 2], "workers_cpu": 0.0, "cpus": cpus}

    row = {
        "label": "x1",
        "switches": 1,
        "nic_ports": 0,
        "mbytes": 1.0,
        "bare-c": mode([10.0, 12.0, 8.0]),
        "audit": mode([33.0, 30.0]),
    }
    report([row], ["bare-c", "audit"])
    out = capsys.readouterr().out
    # 33 / mean(10, 12) = 3.00; 30 / mean(12, 8) = 3.00
    assert "per repetition (bare-c before and after): 3.00, 3.00 (median 3.00)" in out
