"""The ``fix:`` lines' cache (rocetune.api.fixcache, issue 17): each device's plan is kept under
a key of what it reads, so a re-audit plans only the devices whose inputs changed, and the
fix lines always equal a cold plan of the whole fabric (``rocetune plan --fail-on info`` over
every device with a finding, its full-fabric lint included) after every kind of change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from rocetune import api
from rocetune.api import fixcache
from rocetune.api.fixes import _saved_source, replay_lint
from rocetune.engine import Selection
from rocetune.model import AuditResult, Severity
from rocetune.parsecache import ParseCache
from rocetune.render import plan as plan_module

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab"
EVERY = {"spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4", "gpu02", "gpu03", "gpu04"}
"""The lab devices with a remediable finding (gpu01 has none)."""
PLAN_FABRIC = plan_module.plan_fabric
"""The planner itself (the tests count the calls :func:`api.attach_fixes` makes)."""


def cold_plan(result: AuditResult) -> dict[str, tuple[str, ...]]:
    """The reference: one remediation plan of every device with a finding and a saved source
    (the whole-fabric lint for the baseline and the full replay, as ``rocetune plan`` makes
    it), its changes collected per fingerprint in plan order."""
    with_findings = {f.device for f in result.findings}
    sources = []
    for name, device in result.fabric.devices.items():
        src = _saved_source(result, name) if name in with_findings else None
        if src is not None:
            sources.append(plan_module.Source(name, device.platform, src))
    report = PLAN_FABRIC(
        result.fabric,
        result.findings,
        dict(result.provenance),
        sources,
        replay_lint,
        Severity.INFO,
    )
    fixes: dict[str, list[str]] = {}
    for dev in report.devices:
        for change in dev.changes:
            for fp in change.fixes:
                texts = fixes.setdefault(fp.partition(":")[0], [])
                if change.text not in texts:
                    texts.append(change.text)
    return {fp: tuple(texts) for fp, texts in fixes.items()}


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """Per remediation plan made (plan_fabric call), the devices it planned."""
    seen: list[set[str]] = []
    real = plan_module.plan_fabric

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append({s.name for s in args[3]})
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_module, "plan_fabric", counting)
    return seen


def _audit(inventory: Path, cache: Path | None, selection: Selection | None = None) -> AuditResult:
    parse = ParseCache(cache) if cache is not None else None
    result = api.audit(inventory, selection, cache=parse)
    api.attach_fixes(result, parse, processes=1)  # the counted plans are this process's
    return result


def _same_as_cold(result: AuditResult) -> None:
    assert result.fixes
    assert list(result.fixes.items()) == list(cold_plan(result).items())


def _lab_copy(tmp_path: Path) -> Path:
    lab = tmp_path / "lab"
    shutil.copytree(LAB, lab)
    return lab / "inventory.yaml"


def test_fix_lines_equal_a_cold_plan_of_the_whole_fabric(plans: list[set[str]]) -> None:
    result = _audit(LAB / "inventory.yaml", None)
    _same_as_cold(result)
    assert plans[0] == EVERY  # only devices with a remediable finding are planned


def test_repeated_audit_plans_nothing_and_gets_the_same_fixes(
    tmp_path: Path, plans: list[set[str]]
) -> None:
    inventory = LAB / "inventory.yaml"
    plain = _audit(inventory, None).fixes
    cold = _audit(inventory, tmp_path / "c").fixes
    warm = _audit(inventory, tmp_path / "c")
    assert plans == [EVERY, EVERY]  # the warm run planned nothing
    assert list(cold.items()) == list(warm.fixes.items()) == list(plain.items())
    _same_as_cold(warm)
    (pack,) = (tmp_path / "c" / "fixes").rglob("*.json")
    assert set(json.loads(pack.read_text())["devices"]) == EVERY
    assert not list((LAB).rglob("*.json.*"))  # nothing written beside the inventory


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _append(path: Path, tail: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + tail, encoding="utf-8")


# Each change, and the devices a warm re-audit must plan again after it (None: every one).
CHANGES: dict[str, tuple[str, str, str, frozenset[str] | None]] = {
    # a comment in a device's config: its model as it was, so only the device is planned
    # again (its link neighbours' plans read its model, not its files)
    "device comment": ("snapshots/spine1/show_running_config.txt", "", "! edited\n", None),
    "peer comment": ("snapshots/spine2/show_running_config.txt", "", "! edited\n", None),
    # a setting of a device: its model changes, which the fabric-wide rules read
    "device setting": ("snapshots/gpu02/cat_sys_class_net_eth2_mtu.txt", "9000", "1500", None),
    "peer setting": (
        "snapshots/leaf1/show_runningconfiguration_all.json",
        '"9214"',
        '"9000"',
        None,
    ),
    "intent": ("inventory.yaml", "detection_ms: 200", "detection_ms: 100", None),
    "inventory link": (
        "inventory.yaml",
        "spine2:Ethernet1/2, length_m: 100",
        "spine2:Ethernet1/2, length_m: 300",
        None,
    ),
    "inventory device": (
        "inventory.yaml",
        "gpu03: {host: 10.0.1.3,",
        "gpu03: {host: 10.0.1.3, roce_ports: [eth2],",
        None,
    ),
    # a line a host's parser did not understand (RT001): only the plans of that host and
    # of its link neighbours (leaf3, leaf4: LLDP) read its unparsed items; gpu01 had no
    # finding, so no plan, before its RT001
    "host line not understood": ("snapshots/gpu02/mlnx_qos_i_eth2.txt", "", "\nweird 1\n", None),
    "unplanned host line not understood": (
        "snapshots/gpu01/mlnx_qos_i_eth2.txt",
        "",
        "\nweird 1\n",
        None,
    ),
}
LOCAL: dict[str, set[str]] = {
    "device comment": {"spine1"},
    "peer comment": {"spine2"},
    "host line not understood": {"gpu02", "leaf3", "leaf4"},
    "unplanned host line not understood": {"gpu01", "leaf3", "leaf4"},
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_fix_lines_after_a_change_equal_a_cold_plan(
    tmp_path: Path, plans: list[set[str]], change: str
) -> None:
    inventory = _lab_copy(tmp_path)
    cache = tmp_path / "c"
    before = _audit(inventory, cache)
    assert _audit(inventory, cache).fixes == before.fixes
    assert len(plans) == 1
    file, old, new, _ = CHANGES[change]
    path = inventory.parent / file
    if old:
        _edit(path, old, new)
    else:
        _append(path, new)
    warm = _audit(inventory, cache)
    _same_as_cold(warm)
    replanned = set().union(*plans[1:])
    assert replanned == LOCAL.get(change, EVERY)
    if change.startswith(("host", "unplanned host")):
        assert any(f.code == "RT001" and f.device in ("gpu01", "gpu02") for f in warm.findings)
    planned = len(plans)
    again = _audit(inventory, cache)  # and the new plans are kept
    assert len(plans) == planned
    assert list(again.fixes.items()) == list(warm.fixes.items())


def test_other_findings_are_another_key(tmp_path: Path, plans: list[set[str]]) -> None:
    """The findings a plan starts from are part of its key (a rule ignored, a severity
    override): the devices whose findings changed are planned again."""
    inventory = LAB / "inventory.yaml"
    cache = tmp_path / "c"
    _audit(inventory, cache)
    fewer = _audit(inventory, cache, Selection(ignore=("RT205",)))
    _same_as_cold(fewer)
    assert plans[-1] < EVERY  # only the devices whose findings changed
    assert list(_audit(inventory, cache).fixes.items()) == list(
        cold_plan(_audit(inventory, None)).items()
    )


def test_a_damaged_or_foreign_pack_is_a_miss(tmp_path: Path, plans: list[set[str]]) -> None:
    inventory = LAB / "inventory.yaml"
    cache = tmp_path / "c"
    want = _audit(inventory, cache).fixes
    (pack,) = (cache / "fixes").rglob("*.json")
    good = pack.read_text()
    data = json.loads(good)
    data["devices"]["spine1"][0] = "another"
    pack.write_text(json.dumps(data))
    assert _audit(inventory, cache).fixes == want
    assert plans[-1] == {"spine1"}
    pack.write_text("{not json")
    assert _audit(inventory, cache).fixes == want
    assert plans[-1] == EVERY
    assert json.loads(pack.read_text())["devices"].keys() == EVERY  # rewritten
    assert fixcache.FORMAT in pack.read_text()


UNPARSED_READERS = {
    "rocetune/engine.py",  # RT000 "could not verify" on the item's device and links; focus
    "rocetune/checks/coverage.py",  # RT001 on the item's device
    "rocetune/checks/scope.py",  # RoCE port scope of a switch (reads ports: a host has none)
    "rocetune/api/fixcache.py",  # the far view itself
    "rocetune/api/applying.py",  # apply's before/after comparison of one device
    "rocetune/load.py",  # adds items to a device's own model
}


def test_who_reads_unparsed_items_is_what_the_fabric_digest_assumes() -> None:
    """fixcache.Keys.far leaves a host's unparsed items out of the fabric digest because
    only the code above reads them (see rocetune.api.fixcache's docstring). A new reader
    outside rocetune/platforms (which makes the items) must be weighed there first."""
    import re

    reads = re.compile(r"\.unparsed\b(?!\.)|[\"']unparsed[\"']\s*:")
    found = set()
    for path in sorted((ROOT / "rocetune").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("rocetune/platforms/", "rocetune/model/")):
            continue
        code = [ln.split("#")[0] for ln in path.read_text(encoding="utf-8").splitlines()]
        if any(reads.search(ln) for ln in code):
            found.add(rel)
    assert found == UNPARSED_READERS


def test_a_far_host_line_not_understood_keeps_the_fabric_digest(tmp_path: Path) -> None:
    """The far view of a host with an unparsed item is its model without them: equal to the
    model's digest before the line was added; a switch keeps its items (its RoCE scope)."""
    inventory = _lab_copy(tmp_path)
    before = fixcache.Keys(_audit(inventory, tmp_path / "c"), {})
    _append(inventory.parent / "snapshots/gpu01/mlnx_qos_i_eth2.txt", "\nweird 1\n")
    after_result = _audit(inventory, tmp_path / "c")
    assert after_result.fabric.devices["gpu01"].unparsed
    after = fixcache.Keys(after_result, {})
    assert after.fabric() == before.fabric()
    assert after.peer("gpu01") != before.peer("gpu01")
