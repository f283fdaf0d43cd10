"""``rocetune apply --shard I/N``: each shard applies the plan's devices of its shard (stable
by device name), shards lease separately, and their records merge (``--status`` of all)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rocetune.apply.record import RecordError, RunLock, lock_name
from rocetune.apply.resume import merged_status
from rocetune.apply.states import DeviceState
from rocetune.shard import shard_of
from tests.apply.helpers import Lab, events

D = DeviceState
NAMES = [f"leaf{i}" for i in range(1, 9)]


def test_shards_split_the_plan_stably_and_their_records_merge(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    for name in NAMES:
        lab.add(name)
    runs = []
    for index in range(3):
        got = lab.run(shard=f"{index}/3", canary=0, waves=("100%",))
        assert got.exit_code == 0, got.reason
        assert set(got.devices) == {n for n in NAMES if shard_of(n, 3) == index}
        assert all(d.state == D.DONE for d in got.devices.values())
        runs.append(got.run_id)
        time.sleep(0.001)
    for name, eng in lab.engines.items():
        assert eng.running == lab.intended[name], name
    text = merged_status(tmp_path / "runs", runs)
    assert f"merged 3 runs (shards 0/3, 1/3, 2/3): {len(NAMES)} device(s) DONE {len(NAMES)}" in text
    assert "in more than one run" not in text
    # a second pass of shard 1: nothing left to change there, the others untouched
    again = lab.run(shard="1/3", canary=0)
    assert all(d.state == D.ABORTED for d in again.devices.values())


def test_each_shard_has_its_own_lease(tmp_path: Path) -> None:
    now = time.time
    assert lock_name(None) == "apply.lock"
    assert lock_name("1/4") == "apply-shard-1-of-4.lock"
    one = RunLock(tmp_path, now, lock_name("0/2"))
    two = RunLock(tmp_path, now, lock_name("1/2"))
    assert one.acquire("run-a", "CHG", 600) is None
    assert two.acquire("run-b", "CHG", 600) is None  # another shard runs beside it
    rival = RunLock(tmp_path, now, lock_name("0/2"))
    with pytest.raises(RecordError, match="locked by run run-a"):
        rival.acquire("run-c", "CHG", 600)  # the same shard twice: refused
    one.release()
    two.release()


def test_a_bad_shard_is_a_usage_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rocetune.cli import cli

    plan = tmp_path / "plan.json"
    plan.write_text('{"format": "rocetune-plan/1", "devices": []}', encoding="utf-8")
    got = CliRunner().invoke(
        cli, ["apply", str(plan), "--change-id", "C", "--now", "--shard", "3/3"]
    )
    assert got.exit_code == 2
    assert "--shard '3/3'" in got.output


def test_shards_keep_redundant_pairs_apart_through_the_inflight_registry(tmp_path: Path) -> None:
    """leaf1 (shard 0 of 2) and leaf3 (shard 1) are both uplinks of h1: while shard 0's run
    has leaf1 in flight, shard 1's leaf3 waits (virtual time passes), then goes."""
    import json

    from tests.apply.kvlab import EPOCH

    lab = Lab(tmp_path)
    lab.add("leaf1")
    lab.add("leaf3")
    lab.add("h1", role="host")
    lab.links = [("h1", "leaf1"), ("h1", "leaf3")]
    inflight = tmp_path / "runs" / "inflight"
    inflight.mkdir(parents=True)
    entry = {"run": "other-shard-run", "expires": EPOCH + 120}
    (inflight / "leaf1.json").write_text(json.dumps(entry), encoding="utf-8")
    assert (shard_of("leaf1", 2), shard_of("leaf3", 2)) == (0, 1)
    mine = "1/2"
    got = lab.run(shard=mine, canary=0, waves=("100%",))
    assert got.exit_code == 0, got.reason
    assert got.devices["leaf3"].state == D.DONE
    waits = [e for e in events(got) if e["event"] == "inflight"]
    assert waits
    assert "leaf1 in flight in run other-shard-run" in waits[0]["waiting"]["leaf3"]
    started = [e["ts"] for e in events(got) if e["event"] == "wave"]
    assert started[-1] >= EPOCH + 120  # leaf3 started only after leaf1's entry ended
    assert not [p for p in inflight.glob("*.json") if p.stem != "leaf1"]  # released
