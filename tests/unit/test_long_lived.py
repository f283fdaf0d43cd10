"""``api.parsing.long_lived``: objects alive at ``settle()`` are frozen for the cyclic GC during
an audit and given back at its end (also when the block raises); a disabled GC stays so."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from rocetune import api
from rocetune.api.parsing import long_lived

LAB = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "inventory.yaml"


def test_settle_freezes_and_the_end_of_the_block_unfreezes() -> None:
    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(10)]
    with long_lived() as settle:
        settle()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    assert len(kept) == 10


def _fail_inside() -> None:
    with long_lived() as settle:
        settle()
        raise RuntimeError


def test_an_error_in_the_block_still_unfreezes() -> None:
    with pytest.raises(RuntimeError):
        _fail_inside()
    assert gc.get_freeze_count() == 0


def test_a_disabled_collector_is_left_alone() -> None:
    gc.disable()
    try:
        with long_lived() as settle:
            settle()
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_an_audit_leaves_nothing_frozen_and_finds_the_same_twice() -> None:
    before = api.audit(LAB, processes=1)
    assert gc.get_freeze_count() == 0
    again = api.audit(LAB, processes=1)
    assert gc.get_freeze_count() == 0
    assert [f.model_dump() for f in again.findings] == [f.model_dump() for f in before.findings]


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_settle_collects_the_cycles_made_before_it_instead_of_freezing_them() -> None:
    import weakref

    with long_lived() as settle:
        cycle = _Cycle()
        ref = weakref.ref(cycle)
        del cycle
        settle()
        assert ref() is None  # collected, not frozen until the end of the block


def test_what_exists_when_the_block_starts_is_frozen_before_the_first_settle() -> None:
    kept = [[i] for i in range(100)]
    with long_lived():
        assert gc.get_freeze_count() >= len(kept)  # the first settle does not re-scan them
    assert gc.get_freeze_count() == 0


def test_automatic_collections_are_off_in_the_block_and_on_after_it() -> None:
    assert gc.isenabled()
    with long_lived() as settle:
        assert not gc.isenabled()  # settle collects; no automatic re-scan of the same objects
        settle()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        _fail_inside()
    assert gc.isenabled()


def test_frozen_keeps_what_exists_out_of_scans_and_gives_it_back() -> None:
    from rocetune.api.parsing import frozen

    assert gc.get_freeze_count() == 0
    fabric = [[i] for i in range(1000)]
    with frozen():
        assert gc.get_freeze_count() >= len(fabric)
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), frozen():
        raise RuntimeError
    assert gc.get_freeze_count() == 0


def test_frozen_with_the_collector_disabled_changes_nothing() -> None:
    from rocetune.api.parsing import frozen

    gc.disable()
    try:
        with frozen():
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_frozen_settle_collects_cycles_and_freezes_what_the_block_made() -> None:
    import weakref

    from rocetune.api.parsing import frozen

    with frozen() as settle:
        before = gc.get_freeze_count()
        kept = [[i] for i in range(1000)]
        cycle = _Cycle()
        ref = weakref.ref(cycle)
        del cycle
        settle()
        assert ref() is None  # collected, not frozen
        assert gc.get_freeze_count() >= before + len(kept)
        assert gc.isenabled()  # unlike long_lived, automatic collections stay on
    assert gc.get_freeze_count() == 0


def test_what_the_block_made_after_its_last_settle_is_frozen_at_its_end() -> None:
    """Not left young: the first collections after an audit re-scanned its findings twice."""
    from rocetune.api.parsing import frozen

    with frozen():
        with long_lived() as settle:
            settle()
            made = [[i] for i in range(1000)]  # after the last settle: the checks' records
            assert any(o is made for o in gc.get_objects())  # young, scanned
        assert gc.is_tracked(made)
        assert not any(o is made for o in gc.get_objects())
        assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_pool_workers_answer_is_marked_decoded() -> None:
    """Decoded here (it holds no garbage cycle): the audit freezes it without a collection."""
    from rocetune.api.parsing import Job, _from_worker
    from rocetune.load import Loaded

    got = _from_worker(Job("d", "x", "sonic", None, None), Loaded(source="x"), None)
    assert got.decoded
    assert not got.cached
