"""Key-shared field dicts (rocetune.model.keyshare, Model.model_post_init): models whose
values sit in a split dict behave exactly like those with pydantic's own dict, and are
smaller where the interpreter has split dicts (CPython 3.11: checked, not assumed)."""

from __future__ import annotations

import copy
import gc
import pickle
import platform
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import pytest
from pydantic import ValidationError, create_model

from rocetune.model.base import Model
from rocetune.model.construct import unvalidated
from rocetune.model.device import BufferProfile, EcnProfile, NicPort, Port, Watchdog
from rocetune.model.finding import Finding
from rocetune.model.keyshare import key_shared_template

CPYTHON_311 = platform.python_implementation() == "CPython" and sys.version_info[:2] == (3, 11)


@contextmanager
def plain_dicts(cls: type[Model]) -> Iterator[None]:
    """Instances of ``cls`` made in this block keep pydantic's own dict (the slow path)."""
    saved = cls.__dict__.get("_key_shared")
    cls._key_shared = None
    try:
        yield
    finally:
        cls._key_shared = saved


def _port(name: str = "swp1") -> Port:
    return Port(
        name=name,
        speed_mbps=400_000,
        mtu=9216,
        admin_up=True,
        trust="dscp",
        dscp_to_priority={26: 3, 48: 6},
        pfc_rx=(3,),
        pfc_tx=(3,),
        watchdog=Watchdog(enabled=True),
        ecn={3: EcnProfile(name="roce", ecn_mark=True, min_threshold_bytes=150_000)},
        pg_buffers={3: BufferProfile(name="pg_lossless", size_bytes=1024)},
    )


def _same(a: Model, b: Model) -> None:
    assert a == b
    assert b == a
    assert list(a.__dict__.items()) == list(b.__dict__.items())
    assert a.model_dump() == b.model_dump()
    assert a.model_dump_json() == b.model_dump_json()
    assert a.model_dump(exclude_unset=True) == b.model_dump(exclude_unset=True)
    assert a.model_fields_set == b.model_fields_set
    assert repr(a) == repr(b)
    assert _hash(a) == _hash(b)


def _hash(model: Model) -> int | str:
    try:
        return hash(model)
    except TypeError as exc:  # a port holds dicts
        return str(exc)


def test_the_classes_with_many_instances_get_a_key_shared_dict_on_cpython_311() -> None:
    if not CPYTHON_311:
        pytest.skip("split-dict layout checked on CPython 3.11 only (elsewhere: may be None)")
    for cls in (Port, NicPort, Finding, BufferProfile):
        assert cls._key_shared is not None, cls
        port_dict = _port().__dict__
        assert sys.getsizeof(port_dict) < sys.getsizeof(dict(port_dict)) // 2
    assert Watchdog._key_shared is None  # six fields: a split dict would not be smaller


def test_key_shared_models_behave_as_plain_ones() -> None:
    with plain_dicts(Port):
        plain = _port()
    shared = _port()
    _same(shared, plain)
    with pytest.raises(ValidationError):
        shared.mtu = 1500  # type: ignore[misc]
    _same(copy.copy(shared), plain)
    _same(copy.deepcopy(shared), plain)
    _same(pickle.loads(pickle.dumps(shared)), plain)
    _same(pickle.loads(pickle.dumps(plain)), shared)
    assert pickle.dumps(shared) == pickle.dumps(plain)
    changed = shared.model_copy(update={"mtu": 1500})
    with plain_dicts(Port):
        assert changed == plain.model_copy(update={"mtu": 1500})
    assert changed.mtu == 1500
    assert shared.mtu == 9216
    assert shared != _port("swp2")
    constructed = Port.model_construct(**dict(shared.__dict__))
    assert constructed.model_dump() == plain.model_dump()


def test_hashable_models_hash_alike() -> None:
    def make() -> Finding:
        return Finding(code="RT101", name="n", severity="error", message="m", port="swp1")

    with plain_dicts(Finding):
        plain = make()
    _same(make(), plain)
    assert {make(), plain} == {plain}


def test_unvalidated_models_are_the_validated_ones_key_shared_too() -> None:
    """rocetune.model.construct does Model.model_post_init's work itself: the same values,
    field set (the shared object) and dict layout as a validated model."""
    port = _port()
    given = {name: getattr(port, name) for name in port.model_fields_set}
    made = unvalidated(Port, given)
    _same(made, port)
    assert made.model_fields_set is port.model_fields_set
    finding = Finding(code="RT000", name="missing-data", severity="info", message="m", device="d")
    made_finding = unvalidated(Finding, {k: getattr(finding, k) for k in finding.model_fields_set})
    _same(made_finding, finding)
    if CPYTHON_311:
        assert sys.getsizeof(made.__dict__) == sys.getsizeof(port.__dict__)
        assert sys.getsizeof(made.__dict__) < sys.getsizeof(dict(made.__dict__)) // 2


def test_model_construct_without_every_field_keeps_its_own_dict() -> None:
    partial = Port.model_construct(_fields_set={"mtu"}, mtu=9000)  # type: ignore[call-arg]  # no name: not validated
    assert "name" not in partial.__dict__
    assert partial.mtu == 9000
    assert partial.speed_mbps is None


def test_unpickled_models_are_key_shared_too() -> None:
    if not CPYTHON_311:
        pytest.skip("sizes checked on CPython 3.11")
    with plain_dicts(Port):
        plain = _port()
    loaded = pickle.loads(pickle.dumps(plain))
    assert sys.getsizeof(loaded.__dict__) < sys.getsizeof(plain.__dict__) // 2


def _bytes_per(make: Any, count: int = 500) -> float:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = [make(i) for i in range(count)]
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert len(kept) == count
    return used / count


def test_a_port_holds_half_the_memory() -> None:
    if not CPYTHON_311:
        pytest.skip("sizes checked on CPython 3.11")

    def make(i: int) -> Port:
        return Port(name=f"swp{i}", mtu=9216, admin_up=True)

    shared = _bytes_per(make)
    with plain_dicts(Port):
        plain = _bytes_per(make)
    assert shared < 600
    assert plain > 900


def test_no_template_where_it_cannot_help() -> None:
    fields: dict[str, Any] = {f"f{i}": (int | None, None) for i in range(40)}
    wide = cast("Any", create_model("Wide", __base__=Model, **fields))
    if CPYTHON_311:
        assert wide._key_shared is None  # more names than 3.11's shared key table takes
    assert wide(f3=3).f3 == 3
    assert wide(f3=3) == wide(f3=3)
    assert key_shared_template(Port, Port, ("name",)) is None  # no layout donor
    narrow = cast("Any", create_model("Narrow", __base__=Model, a=(int, 0)))
    if CPYTHON_311:
        assert narrow._key_shared is None  # a 30-slot value array would not be smaller
    assert narrow(a=1) == narrow(a=1)
