"""The audit's own run hands its whole-fabric results (RT705's comparisons, RT306's groups,
RT708's tiers, ...) to the plan of its ``fix:`` lines (rocetune.checks.memo.keeping / kept),
so the plan's first re-check does not compute them again over the audited fabric. The plan
must be the one made without the hand-off: pinned here on random replacements and edits of
generated fabrics, through the API with the parse cache, and for options the plan does not
use (no hand-off then)."""

from __future__ import annotations

import contextlib
import gc
import random
import weakref
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fabricgen import generate
from benchmarks.plan_scale import inventory
from rocetune import api
from rocetune.api import audits
from rocetune.checks import deadlock, memo, uniform_state
from rocetune.checks.fabric_uniform import FabricUniformOptions
from rocetune.checks.registry import all_rules
from rocetune.engine import Selection, recheck, run_checks, select_rules
from rocetune.model import Device, Fabric, Finding
from rocetune.parsecache import ParseCache
from rocetune.render.plan import _neighbours
from rocetune.render.simulate import key, with_devices


def _seen(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [(*key(f), f.message, f.observed, f.expected) for f in findings]


def _edited(fabric: Fabric, name: str, rng: random.Random) -> Device:
    """``name`` replaced by another device of its kind (renamed), or with one NIC or port
    setting changed: new outliers, majorities that move, ties that resolve."""
    me = fabric.devices[name]
    others = [d for d in fabric.devices.values() if d.kind == me.kind and d.name != name]
    if others and rng.random() < 0.5:
        return rng.choice(others).model_copy(update={"name": name, "role": me.role})
    if me.nics:
        nic = rng.choice(sorted(me.nics))
        value = {"mtu": rng.choice([1500, 4200, 9000])}
        nics = {**me.nics, nic: me.nics[nic].model_copy(update=value)}
        return me.model_copy(update={"nics": nics})
    if me.ports:
        port = rng.choice(sorted(me.ports))
        value = {"pfc_tx": rng.choice([(), (3,), (3, 4)])}
        ports = {**me.ports, port: me.ports[port].model_copy(update=value)}
        return me.model_copy(update={"ports": ports})
    return me


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rechecks_from_the_audits_run_equal_those_made_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    fresh = [0]
    real = uniform_state.Compared.fresh.__func__  # type: ignore[attr-defined]

    def counted(cls: type, *args: object) -> object:
        fresh[0] += 1
        return real(cls, *args)

    monkeypatch.setattr(uniform_state.Compared, "fresh", classmethod(counted))
    parts = [0]
    real_part = deadlock._link_part

    def part(*args: Any) -> Any:
        parts[0] += 1
        return real_part(*args)

    monkeypatch.setattr(deadlock, "_link_part", part)
    rng = random.Random(seed)
    made = generate(tmp_path / "fabric", rng.choice([0.01, 0.02]), hosts=rng.random() < 0.7)
    for path in (made.inventory, inventory(tmp_path, 9)):
        result = api.audit(path)
        fabric, prov = result.fabric, dict(result.provenance)
        rules = select_rules(all_rules(), Selection())
        with memo.keeping(fabric):
            audited = run_checks(fabric, rules, None, prov)
        assert _seen(audited) == _seen(result.findings)  # the run itself is unchanged
        got = memo.kept(fabric)
        assert got is not None
        assert memo.kept(fabric) is None  # given once
        kinds = {k[0] for k in got.entries}
        assert {"RT705 groups", "RT708 tiers"} <= kinds, kinds
        near = _neighbours(fabric)
        names = rng.sample(sorted(fabric.devices), min(8, len(fabric.devices)))
        after = [with_devices(fabric, {n: _edited(fabric, n, rng)}) for n in names]
        runs = []
        for start in (got, None):
            fresh[0] = parts[0] = 0
            out = []
            with memo.shared_per_device(start):
                for name, other in zip(names, after, strict=True):
                    memo.derive(other.devices, fabric.devices, {name})
                    only = frozenset({name, *near.get(name, ())})
                    before_f, after_f = recheck(fabric, other, rules, None, (prov, prov), only=only)
                    out.append((_seen(before_f), _seen(after_f)))
            runs.append((out, fresh[0], parts[0]))
        (handed, fresh_handed, parts_handed), (alone, fresh_alone, parts_alone) = runs
        assert handed == alone
        assert fresh_alone > fresh_handed  # the audited fabric's comparisons were handed over
        if "RT708 link" in kinds:  # and its switch links' RT708 parts (a fabric with any)
            assert parts_handed < parts_alone
        else:
            assert parts_handed == parts_alone == 0


def _fixes(path: Path, cache: Path, **kwargs: object) -> dict[str, tuple[str, ...]]:
    result = api.audit(path, cache=ParseCache(cache), **kwargs)  # type: ignore[arg-type]
    api.attach_fixes(result)
    assert result.fixes
    return result.fixes


def test_the_fix_lines_with_the_hand_off_equal_those_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = generate(tmp_path / "fabric", 0.01, hosts=True)
    kept: list[object] = []
    real = memo.keeping

    def keeping(fabric: Fabric) -> contextlib.AbstractContextManager[None]:
        kept.append(fabric)
        return real(fabric)

    monkeypatch.setattr(memo, "keeping", keeping)
    handed = _fixes(made.inventory, tmp_path / "c1")
    assert kept  # the audit's run kept its results
    with monkeypatch.context() as m:
        m.setattr(audits, "_kept_for_plan", lambda *a: contextlib.nullcontext())
        alone = _fixes(made.inventory, tmp_path / "c2")
    assert handed == alone
    kept.clear()  # options the plan does not use: nothing handed over, the same fix lines
    options = {"RT705": FabricUniformOptions(group_by="role")}
    _fixes(made.inventory, tmp_path / "c3", options=options)
    assert not kept


def test_what_is_kept_goes_with_its_fabric(tmp_path: Path) -> None:
    result = api.audit(inventory(tmp_path, 4), cache=ParseCache(tmp_path / "cache"))
    assert memo._KEPT
    assert memo._KEPT[0][0]() is result.fabric
    gone = weakref.ref(result.fabric)
    del result
    gc.collect()
    assert gone() is None
    assert not memo._KEPT
