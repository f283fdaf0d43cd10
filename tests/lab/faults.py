"""Shared steps of the transport tests (tests/lab/test_host_transport.py,
tests/lab/test_switch_transport.py): collect jobs, compare snapshots, check a fault matrix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rocetune.collect.job import Job, Outcome
from rocetune.collect.options import CollectOptions
from rocetune.collect.pool import run_threads
from rocetune.collect.target import Timeouts, Trust
from tests.lab.lab import PASSWORD, LabServer


def collect(jobs: list[Job], out: Path, options: CollectOptions) -> dict[str, Outcome]:
    """Run the jobs on threads, as ``collect`` does; outcomes by device name."""
    return {o.name: o for o in run_threads(jobs, out, options)}


def meta(path: Path) -> dict[str, Any]:
    """A meta.json without what differs from run to run (times)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    data.pop("collected_at")
    for record in data["commands"]:
        record.pop("seconds")
    return data


def fault_options(lab: LabServer, tmp_path: Path, unknown: str, wrong: str) -> CollectOptions:
    """One-second limits, one retry; ``unknown`` missing from known_hosts, ``wrong`` with
    another key."""
    known = lab.known_hosts(tmp_path / "known_hosts", skip=(unknown,), wrong=(wrong,))
    return CollectOptions(
        timeouts=Timeouts(connect=1, banner=1, auth=1, read=1),
        trust=Trust(known),
        retries=1,
        backoff=0.05,
    )


def deadline_options(lab: LabServer, tmp_path: Path) -> CollectOptions:
    """A minute per read but two seconds per device, no retry: a dripping peer meets the
    device deadline first."""
    known = lab.known_hosts(tmp_path / "known_hosts")
    return CollectOptions(timeouts=Timeouts(read=60, device=2), trust=Trust(known), retries=0)


def assert_device_deadline(outcome: Outcome) -> None:
    """The device failed on its deadline, well before its reads' limit."""
    assert outcome.failure is not None
    assert outcome.failure.reason.value == "command timeout"
    assert "device deadline" in outcome.failure.detail
    assert outcome.seconds < 20


def assert_faults(
    outcomes: dict[str, Outcome], faults: dict[str, tuple[str, int]], out: Path
) -> None:
    """Each fault device failed with its reason after its attempts, nothing written, no
    password in the message."""
    for name, (reason, attempts) in faults.items():
        failure = outcomes[name].failure
        assert failure is not None, name
        assert failure.reason.value == reason, (name, str(failure))
        assert failure.attempts == attempts, (name, str(failure))
        assert PASSWORD not in str(failure)
        assert not (out / name).exists(), name


def assert_same_snapshot(a: Path, b: Path, at_least: int) -> None:
    """Snapshot directories ``a`` and ``b`` hold the same files (at least ``at_least``),
    byte for byte, meta.json apart from times."""
    files = sorted(p.name for p in a.iterdir())
    assert files == sorted(p.name for p in b.iterdir()), a.name
    assert len(files) >= at_least, (a.name, files)
    for file in files:
        if file == "meta.json":
            assert meta(a / file) == meta(b / file), a.name
        else:
            assert (a / file).read_bytes() == (b / file).read_bytes(), (a.name, file)
