"""The ``fix:`` lines' plan split over two processes (api.fixes._plan_split, api.forked):
the same fixes as one process, also when the child fails; nothing left behind.

Run in a fresh interpreter: a pytest-xdist worker has threads, where rocetune never forks
(api.forked.can_fork)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.paths import ROOT

_SCRIPT = textwrap.dedent(
    """
    import copy, os, sys
    from rocetune import api
    from rocetune.api import fixes, forked, parsing
    from rocetune.api.parsing import frozen

    forks = []
    real_enter = forked.Forked.__enter__

    def counted(self):
        forks.append(os.getpid())
        return real_enter(self)

    forked.Forked.__enter__ = counted
    parsing.cpus = lambda: 2  # as on a machine with two CPUs (the CI's)
    result = api.audit(sys.argv[1])
    assert forked.can_fork(), "another thread runs"

    real, parent = fixes._plan, os.getpid()

    def failing(r, names):
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return real(r, names)

    def fixes_of(processes, fail_child=False):
        res = copy.copy(result)
        fixes._plan = failing if fail_child else real
        with frozen():
            api.attach_fixes(res, None, processes)
        return res.fixes

    one = fixes_of(1)
    assert forks == [], forks
    two = fixes_of(None)
    assert len(forks) == 1, forks
    assert two == one and len(one) > 3, (len(one), len(two))
    assert fixes_of(None, fail_child=True) == one
    assert len(forks) == 2
    print("ok", len(one))
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_split_plan_equals_one_process_and_survives_a_failed_child() -> None:
    inventory = ROOT / "inventories" / "lab" / "inventory.yaml"
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(inventory)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok ")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_child_is_ended_when_the_parent_fails() -> None:
    script = textwrap.dedent(
        """
        import os, time
        from rocetune.api.forked import Forked

        pids = []
        try:
            with Forked(lambda: time.sleep(60)) as child:
                pids.append(child._pid)
                raise ValueError("parent fails")
        except ValueError:
            pass
        try:
            os.kill(pids[0], 0)
        except ProcessLookupError:
            print("gone")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == "gone", done.stderr[-2000:]
