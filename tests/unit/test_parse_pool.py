"""rocetune.api.parsing: snapshots parsed by a process pool give the same audit, in order."""

from __future__ import annotations

import os

import pytest

from rocetune import api
from rocetune.api import parsing
from tests.paths import ROOT

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


def _dump(result: api.AuditResult) -> tuple[str, list[str], list[str]]:
    findings = [f.model_dump_json() for f in result.findings]
    return result.fabric.model_dump_json(), findings, list(result.devices)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_pool_gives_the_same_audit_in_the_same_order() -> None:
    alone = api.audit(LAB, processes=1)
    pooled = api.audit(LAB, processes=2)
    assert _dump(pooled) == _dump(alone)
    assert {n: s.status for n, s in pooled.devices.items()} == {
        n: s.status for n, s in alone.devices.items()
    }


def test_small_fleets_stay_in_process() -> None:
    assert parsing.process_count(None, 10) == 1
    assert parsing.process_count(None, 63) == 1
    assert parsing.process_count(None, 10_000) == parsing.cpus()
    assert parsing.process_count(4, 2) == 2
    assert parsing.process_count(3, 100) == 3


def test_jobs_come_back_in_order_with_errors(tmp_path: os.PathLike[str]) -> None:
    jobs = [parsing.Job(f"d{i}", None if i % 2 else f"missing {i}", None, None) for i in range(6)]
    got = list(parsing.load_all(jobs, processes=2 if hasattr(os, "fork") else 1))
    assert [g.problem.device if g.problem else None for g in got] == [f"d{i}" for i in range(6)]
    assert "missing 0" in (got[0].problem.message if got[0].problem else "")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_workers_do_not_outlive_an_interrupted_run() -> None:
    import multiprocessing

    jobs = [parsing.Job(f"d{i}", f"not collected {i}", None, None) for i in range(40)]
    got = parsing.load_all(jobs, processes=2)
    next(got)
    assert multiprocessing.active_children()
    with pytest.raises(KeyboardInterrupt):
        got.throw(KeyboardInterrupt())
    assert not multiprocessing.active_children()
