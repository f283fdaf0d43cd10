"""The plan's re-check of one replaced device in delta form (rocetune.engine.recheck) against
the two full lints it replaces, and the plan's work growing linearly with the fleet.

``recheck`` returns findings only on the devices where the two runs can differ; what the
plan reads of them (the findings the change clears, and the new ones on the re-checked
devices) must be what the full lints give. Pinned on every device of the lab, an
all-changed fleet and a generated fabric with hosts and planted fabric-wide faults, each
device replaced by another device's model (big changes: majorities flip, ties appear and
resolve, the RT000 could-not-verify findings of unparsed items move)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.fabricgen import generate
from benchmarks.plan_scale import inventory
from rocetune import api, engine
from rocetune.api import changes, fixes
from rocetune.checks.base import Rule
from rocetune.checks.memo import shared_per_device
from rocetune.checks.registry import all_rules
from rocetune.engine import Selection, recheck, run_checks, select_rules
from rocetune.model import Device, Fabric, Finding, Severity, Unparsed
from rocetune.platforms.base import Provenance
from rocetune.render.plan import _neighbours
from rocetune.render.simulate import compare, key, with_devices

Prov = dict[str, Provenance]
LAB = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "inventory.yaml"


def _fabrics(tmp_path: Path) -> list[Path]:
    made = generate(tmp_path / "fabric", 0.01, hosts=True)
    return [LAB, inventory(tmp_path, 9), made.inventory]


def _donor(fabric: Fabric, name: str) -> Device | None:
    """Another device of the same kind (the same platform first) that differs, renamed."""
    me = fabric.devices[name]
    mine = me.model_dump(exclude={"name"})
    others = sorted(fabric.devices.values(), key=lambda d: d.platform != me.platform)
    for other in others:
        if other.kind == me.kind and other.model_dump(exclude={"name"}) != mine:
            return other.model_copy(update={"name": name, "role": me.role})
    return None


def _seen(outcome_findings: list[Finding]) -> list[tuple[object, ...]]:
    return [(*key(f), f.message, f.observed) for f in outcome_findings]


@pytest.mark.parametrize("which", [0, 1, 2])
def test_recheck_gives_what_the_full_lints_give(tmp_path: Path, which: int) -> None:
    path = _fabrics(tmp_path)[which]
    result = api.audit(path)
    fabric, prov = result.fabric, dict(result.provenance)
    rules = select_rules(all_rules(), Selection())
    near = _neighbours(fabric)
    tried = 0
    with shared_per_device():
        for name in fabric.devices:
            donor = _donor(fabric, name)
            if donor is None:
                continue
            tried += 1
            after = with_devices(fabric, {name: donor})
            only = frozenset({name, *near.get(name, ())})
            full = compare(
                run_checks(fabric, rules, None, prov, only=only),
                run_checks(after, rules, None, prov, only=only),
            )
            fast = compare(*recheck(fabric, after, rules, None, (prov, prov), only=only))
            assert _seen(fast.cleared) == _seen(full.cleared), name
            on = [f for f in full.new if f.device in only]
            assert _seen([f for f in fast.new if f.device in only]) == _seen(on), name
    assert tried >= 4


@pytest.mark.parametrize(("which", "unparsed"), [(0, False), (1, False), (1, True), (2, False)])
def test_the_plans_rechecks_give_what_the_full_lints_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: int, unparsed: bool
) -> None:
    """Every re-check a real plan makes (small changes: one device's remedies); on the
    fleet (where every switch replay turns an RT705 tie into a majority) also with
    unparsed lines on every other device, whose could-not-verify findings must come out
    the same."""
    path = _fabrics(tmp_path)[which]
    made: list[tuple[Fabric, Fabric, tuple[Prov, Prov], frozenset[str]]] = []
    verdicts: list[str] = []
    real = fixes.replay_recheck
    signs = engine._signs_agree

    def kept(before: Fabric, after: Fabric, prov: tuple[Prov, Prov], only: frozenset[str]):  # type: ignore[no-untyped-def]
        made.append((before, after, prov, only))
        return real(before, after, prov, only)

    def told(*args: list[object]) -> str:
        verdicts.append(signs(*args))
        return verdicts[-1]

    monkeypatch.setattr(fixes, "replay_recheck", kept)
    monkeypatch.setattr(engine, "_signs_agree", told)
    changes.plan(path, fail_on=Severity.INFO)
    rules = select_rules(all_rules(), Selection())
    assert made
    if unparsed:
        made = [_unreadable(*got) for got in made]
    with shared_per_device():
        _same(made, rules)
    assert "same" in verdicts


def _unreadable(
    before: Fabric, after: Fabric, prov: tuple[Prov, Prov], only: frozenset[str]
) -> tuple[Fabric, Fabric, tuple[Prov, Prov], frozenset[str]]:
    """Every device but the replaced ones with unparsed lines that RT705's verdicts depend
    on (an RT705 outlier there is could-not-verify instead)."""
    items = (
        Unparsed(item="qos map dscp-tc 7", reason="?", features=("dscp_map", "pfc")),
        Unparsed(item="pfc watchdog x", reason="?", ports=("Ethernet0",), features=("watchdog",)),
    )
    odd = {
        n: d.model_copy(update={"unparsed": [*d.unparsed, *items]})
        for n, d in before.devices.items()
        if n not in only
    }
    return with_devices(before, odd), with_devices(after, odd), prov, only


def _same(
    made: list[tuple[Fabric, Fabric, tuple[Prov, Prov], frozenset[str]]], rules: list[type[Rule]]
) -> None:
    for before, after, prov, only in made:
        full = compare(
            run_checks(before, rules, None, prov[0], only=only),
            run_checks(after, rules, None, prov[1], only=only),
        )
        fast = compare(*engine.recheck(before, after, rules, None, prov, only=only))
        assert _seen(fast.cleared) == _seen(full.cleared), only
        on = [f for f in full.new if f.device in only]
        assert _seen([f for f in fast.new if f.device in only]) == _seen(on), only


def _records(path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Rule results turned into findings or notes over one ``rocetune plan``."""
    made = [0]
    real = engine._record

    def counted(*args: object, **kwargs: object) -> object:
        made[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(engine, "_record", counted)
        changes.plan(path)
    return made[0]


def test_plan_work_grows_linearly_with_the_fleet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every device changed, 6 then 24 devices: the rule results the plan makes (audit,
    every replay's re-check, the whole plan's check) grow at most x4.4 for x4 devices.
    Re-checking each replay with two full lints made them grow x8 (fabric-wide rules
    reported on every device at every re-check)."""
    small = _records(inventory(tmp_path, 6), monkeypatch)
    big = _records(inventory(tmp_path, 24), monkeypatch)
    assert big <= 4.4 * small, (small, big)


def _nics(dev: Device, **by_port: dict[str, object]) -> Device:
    nics = {n: p.model_copy(update=by_port.get(n, {})) for n, p in dev.nics.items()}
    return dev.model_copy(update={"nics": nics})


def test_a_resolved_tie_next_to_a_could_not_verify_finding(tmp_path: Path) -> None:
    """A NIC aspect tied before the change gets a majority (RT705 roce-tos): a host outside
    the re-checked region gets a new outlier port whose could-not-verify note merges with
    that of another aspect's outlier (MTU) on the same unparsed line: that host's RT000
    finding changes port, so the one before is cleared — which only a re-check that looks
    at hosts with unparsed lines (the focus widening) sees."""
    fabric = api.audit(inventory(tmp_path, 9)).fabric
    h1, h2, h3 = (n for n, d in fabric.devices.items() if d.kind == "host")
    line = Unparsed(item="trust weird", reason="?", features=("trust",))
    hosts = {
        h1: _nics(fabric.devices[h1], eth2={"roce_tos": 106}, eth3={"roce_tos": 106}),
        h2: _nics(fabric.devices[h2], eth2={"roce_tos": 96}, eth3={"roce_tos": 96}),
        h3: _nics(
            fabric.devices[h3], eth2={"roce_tos": 106}, eth3={"roce_tos": 96, "mtu": 1500}
        ).model_copy(update={"unparsed": [line]}),
    }
    before = with_devices(fabric, hosts)
    after = with_devices(
        before, {h1: _nics(hosts[h1], eth2={"roce_tos": 96}, eth3={"roce_tos": 96})}
    )
    rules = select_rules(all_rules(), Selection())
    only = frozenset({h1})
    full = compare(
        run_checks(before, rules, None, {}, only=only),
        run_checks(after, rules, None, {}, only=only),
    )
    assert any(f.code == "RT000" and f.device == h3 for f in full.cleared)  # the case is real
    with shared_per_device():
        fast = compare(*recheck(before, after, rules, None, ({}, {}), only=only))
    assert _seen(fast.cleared) == _seen(full.cleared)


@pytest.mark.parametrize("fixes", [True, False])
def test_a_lone_outlier_is_rechecked_on_its_region_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixes: bool
) -> None:
    """The change fixes (or makes) the only RT705 outlier (a host's MTU): the comparison is
    a majority on one side and uniform on the other, of the same value, so no unfocused
    device's verdict moves. The re-check gives what the full lints give without running
    them, and folds as many records at 36 devices as at 9 (10,000 hosts: the full lints
    folded every device's missing-data notes, twice per re-check)."""
    folded: list[int] = []
    count = [0]
    fulls: list[object] = []
    real_add = engine._Collected.add

    def add(self: engine._Collected, rule_cls: type[Rule], rec: engine.Record) -> None:
        count[0] += 1
        real_add(self, rule_cls, rec)

    monkeypatch.setattr(engine._Collected, "add", add)
    rules = select_rules(all_rules(), Selection())
    for n in (9, 36):
        fabric = api.audit(inventory(tmp_path, n)).fabric
        host = next(name for name, d in fabric.devices.items() if d.kind == "host")
        odd = with_devices(fabric, {host: _nics(fabric.devices[host], eth2={"mtu": 1500})})
        before, after = (odd, fabric) if fixes else (fabric, odd)
        only = frozenset({host})
        full = compare(
            run_checks(before, rules, None, {}, only=only),
            run_checks(after, rules, None, {}, only=only),
        )
        assert [f.code for f in (full.cleared if fixes else full.new)] == ["RT602", "RT705"]
        count[0] = 0
        with monkeypatch.context() as m, shared_per_device():
            m.setattr(engine, "run_checks", lambda *a, **k: fulls.append(a) or run_checks(*a, **k))
            fast = compare(*recheck(before, after, rules, None, ({}, {}), only=only))
        folded.append(count[0])
        assert _seen(fast.cleared) == _seen(full.cleared)
        assert _seen(fast.new) == _seen([f for f in full.new if f.device in only])
    assert not fulls
    assert folded[0] == folded[1] > 0


def test_a_tie_is_named_from_its_first_subjects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fleet's switches and NIC ports tie on RT705 aspects (no value used by more than
    half): each replay's re-check names the tie's values by their first subjects and
    counts, so the subjects labelled over one ``rocetune plan`` grow linearly (12 -> 48
    devices: x3.9; naming every subject of each value at each re-check grew them x6.9)."""
    from rocetune.checks import fabric_uniform

    labelled = [0]
    label = fabric_uniform._Subject.label.fget
    assert label is not None

    def counted(self: fabric_uniform._Subject) -> str:
        labelled[0] += 1
        return label(self)

    ties = [f for f in api.audit(inventory(tmp_path, 12)).findings if f.code == "RT705"]
    assert any(f.device is None and "more than half" in f.message for f in ties)
    monkeypatch.setattr(fabric_uniform._Subject, "label", property(counted))
    got = []
    for n in (12, 48):
        labelled[0] = 0
        changes.plan(inventory(tmp_path, n))
        got.append(labelled[0])
    assert got[1] <= 4.4 * got[0], got


def test_a_recheck_classifies_only_the_replaced_devices_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RT708 (a fabric-wide rule: loops of lossless links) classifies each switch-switch
    link once per plan: a later re-check classifies only the links of the device it
    replaces, not every link of the fabric (each re-check read every link twice)."""
    from rocetune.checks import deadlock
    from rocetune.checks.memo import derive

    fabric = api.audit(generate(tmp_path / "fabric", 0.01, hosts=False).inventory).fabric
    classified = [0]
    real = deadlock._link_part

    def counted(*args: object) -> object:
        classified[0] += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(deadlock, "_link_part", counted)
    rules = select_rules(all_rules(), Selection())
    near = _neighbours(fabric)
    leaves = [n for n, d in fabric.devices.items() if d.role == "leaf"][:3]
    got = []
    with shared_per_device():
        for name in leaves:
            dev = fabric.devices[name]  # changed (equal: the whole result is reused, below)
            edited = dev.model_copy(update={"facts": {**dev.facts, "edited": "yes"}})
            after = with_devices(fabric, {name: edited})
            derive(after.devices, fabric.devices, {name})
            only = frozenset({name, *near.get(name, ())})
            classified[0] = 0
            fast = compare(*recheck(fabric, after, rules, None, ({}, {}), only=only))
            got.append(classified[0])
            full = compare(
                run_checks(fabric, rules, None, {}, only=only),
                run_checks(after, rules, None, {}, only=only),
            )
            assert _seen(fast.cleared) == _seen(full.cleared) == []
    links = [lk for lk in fabric.links if {lk.a.device, lk.b.device} <= set(fabric.devices)]
    mine = [lk for lk in links if leaves[2] in (lk.a.device, lk.b.device)]
    assert len(links) > 2 * len(mine) > 0
    assert got[0] >= len(links)  # the audited fabric's links, once
    assert got[2] == len(mine), (got, len(links))
    # a replaced device RT708 reads the same (an equal switch, a host: their kind and role
    # only): its whole result over the audited fabric is reused, nothing is classified
    fabric = api.audit(generate(tmp_path / "hosts", 0.01, hosts=True).inventory).fabric
    near = _neighbours(fabric)
    host = next(n for n, d in fabric.devices.items() if d.kind == "host")
    leaf = next(n for n, d in fabric.devices.items() if d.role == "leaf")
    with shared_per_device():
        for name in (leaf, host):
            only = frozenset({name, *near.get(name, ())})
            for _ in range(2):  # the first re-check classifies the audited fabric's links
                after = with_devices(fabric, {name: fabric.devices[name].model_copy()})
                derive(after.devices, fabric.devices, {name})
                classified[0] = 0
                fast = compare(*recheck(fabric, after, rules, None, ({}, {}), only=only))
            assert classified[0] == 0, name
            full = compare(
                run_checks(fabric, rules, None, {}, only=only),
                run_checks(after, rules, None, {}, only=only),
            )
            assert _seen(fast.cleared) == _seen(full.cleared) == []
