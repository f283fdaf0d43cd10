"""Check results cached per device and link (rocetune.checkcache): after every kind of
change, a cached audit's report (JSON, SARIF, text) equals the uncached audit's."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rocetune import api
from rocetune.checkcache import CheckStore
from rocetune.engine import Selection
from rocetune.parsecache import ParseCache
from rocetune.report import render
from tests.paths import ROOT

LAB = ROOT / "inventories" / "lab"
FORMATS = ("json", "sarif", "text")


def _sub(path: Path, old: str, new: str, count: int = 0) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, count) if count else text.replace(old, new))


def _inv(lab: Path) -> Path:
    return lab / "inventory.yaml"


def _edit_leaf1(lab: Path) -> None:
    _sub(lab / "snapshots/leaf1/show_runningconfiguration_all.json", '"9214"', '"1500"')


def _neighbour_port(lab: Path) -> None:
    """spine1's port towards leaf1: a link finding changes, leaf1's snapshot does not."""
    path = lab / "snapshots/spine1/show_running_config.txt"
    _sub(
        path,
        "   description leaf1_Ethernet0\n   mtu 9214\n",
        "   description leaf1_Ethernet0\n   mtu 1500\n",
    )


def _host_peer(lab: Path) -> None:
    """leaf3 maps DSCP 26 like leaf4: the dual-homing findings (RT707) of the hosts on both
    go away, the hosts' snapshots unchanged (a device rule reads the devices it is linked to)."""
    path = lab / "snapshots/leaf3/nv_config_show_o_yaml.yaml"
    _sub(path, "'26':\n              switch-priority: 0", "'26':\n              switch-priority: 3")


def _outlier_appears(lab: Path) -> None:
    """One more NIC leaves the fleet's trust mode: a fabric-wide outlier (RT705) appears."""
    _sub(lab / "snapshots/gpu01/mlnx_qos_i_eth2.txt", "trust state: dscp", "trust state: pcp")


def _outlier_disappears(lab: Path) -> None:
    """The planted pcp NIC is fixed: its fabric-wide outlier (RT705) disappears."""
    _sub(lab / "snapshots/gpu02/mlnx_qos_i_eth2.txt", "trust state: pcp", "trust state: dscp")


def _single_file(lab: Path) -> None:
    _sub(lab / "configs/leaf4.yaml", "mtu: 9214", "mtu: 4000", 1)


def _intent(lab: Path) -> None:
    _sub(_inv(lab), "lossless_priorities: [3]", "lossless_priorities: [3, 4]")


def _intent_mtu(lab: Path) -> None:
    _sub(_inv(lab), "host: 9000", "host: 1500")


def _remove_device(lab: Path) -> None:
    _sub(_inv(lab), "  gpu04: {host: 10.0.1.4, groups: [gpus], nics: [eth2, eth3],", "  #")


def _add_device(lab: Path) -> None:
    shutil.copytree(lab / "snapshots/gpu04", lab / "snapshots/gpu05")
    line = (
        "  gpu05: {host: 10.0.1.5, groups: [gpus], nics: [eth2, eth3], snapshot: snapshots/gpu05}\n"
    )
    _sub(_inv(lab), "\n# Leaf-spine links", "\n" + line + "\n# Leaf-spine links", 1)


def _link_length(lab: Path) -> None:
    _sub(
        _inv(lab),
        "{a: leaf1:Ethernet0, b: spine1:Ethernet1/1, length_m: 30}",
        "{a: leaf1:Ethernet0, b: spine1:Ethernet1/1, length_m: 300}",
    )


def _remove_link(lab: Path) -> None:
    _sub(_inv(lab), "  - {a: leaf1:Ethernet0, b: spine1:Ethernet1/1, length_m: 30}\n", "")


def _roce_ports(lab: Path) -> None:
    _sub(
        _inv(lab),
        "snapshot: snapshots/leaf2}",
        "snapshot: snapshots/leaf2, roce_ports: [Ethernet0]}",
    )


def _asic(lab: Path) -> None:
    _sub(_inv(lab), "snapshot: snapshots/leaf1}", "snapshot: snapshots/leaf1, asic: td3}")


def _file_removed(lab: Path) -> None:
    (lab / "snapshots/gpu03/mlnx_qos_i_eth3.txt").unlink()


def _meta(lab: Path) -> None:
    _sub(lab / "snapshots/leaf1/meta.json", '"device": "leaf1"', '"device": "leaf1-renamed"')


def _peer_lines_move(lab: Path) -> None:
    """A comment on top of leaf3's config: its model is the same, its lines move. The hosts'
    device rule RT707 reports on leaf3 (its file and line): their stored records name leaf3,
    so they are not replayed (rocetune.checkcache: the guard)."""
    path = lab / "snapshots/leaf3/nv_config_show_o_yaml.yaml"
    path.write_text("# moved down one line\n" + path.read_text())


CHANGES: dict[str, Callable[[Path], None]] = {
    "peer-lines-move": _peer_lines_move,
    "file-edited": _edit_leaf1,
    "neighbour-port": _neighbour_port,
    "host-peer": _host_peer,
    "fabric-outlier-appears": _outlier_appears,
    "fabric-outlier-disappears": _outlier_disappears,
    "single-file": _single_file,
    "intent": _intent,
    "intent-mtu": _intent_mtu,
    "device-removed": _remove_device,
    "device-added": _add_device,
    "link-length": _link_length,
    "link-removed": _remove_link,
    "roce-ports": _roce_ports,
    "asic": _asic,
    "file-removed": _file_removed,
    "meta": _meta,
}


def _reports(result: api.AuditResult) -> dict[str, str]:
    return {fmt: render(fmt, result) for fmt in FORMATS}


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    shutil.copytree(LAB, tmp_path / "lab")
    return tmp_path / "lab"


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_cached_audit_after_a_change_equals_uncached(lab: Path, tmp_path: Path, name: str) -> None:
    inventory = _inv(lab)
    before = _reports(api.audit(inventory))
    assert _reports(api.audit(inventory, cache=ParseCache(tmp_path / "c"))) == before
    CHANGES[name](lab)
    plain = _reports(api.audit(inventory))
    if name not in {"meta", "asic"}:  # the change is visible in the findings
        assert plain["json"] != before["json"], "the change must change the report"
    assert _reports(api.audit(inventory, cache=ParseCache(tmp_path / "c"))) == plain
    # and once more, all from the cache
    assert _reports(api.audit(inventory, cache=ParseCache(tmp_path / "c"))) == plain


def test_rule_selection_and_options_are_part_of_the_key(tmp_path: Path) -> None:
    from rocetune.checks.fabric_uniform import FabricUniformOptions

    inventory = LAB / "inventory.yaml"
    runs = [
        {},
        {"selection": Selection(select=("RT3",))},
        {"selection": Selection(ignore=("RT705", "RT5"))},
        {"options": {"RT705": FabricUniformOptions(group_by="role")}},
        {},
    ]
    for kwargs in runs:
        plain = _reports(api.audit(inventory, **kwargs))  # type: ignore[arg-type]
        cache = ParseCache(tmp_path / "c")
        got = _reports(api.audit(inventory, cache=cache, **kwargs))  # type: ignore[arg-type]
        assert got == plain, kwargs


def test_warm_run_replays_device_and_link_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second run takes every port/device/link rule's records from the store."""
    stores: list[CheckStore] = []
    real_save = CheckStore.save

    def keep(self: CheckStore) -> None:
        stores.append(self)
        real_save(self)

    monkeypatch.setattr(CheckStore, "save", keep)
    inventory = LAB / "inventory.yaml"
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    assert stores[-1].hits == 0
    assert stores[-1].misses > 0
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    assert stores[-1].misses == 0
    assert stores[-1].hits > 100


def test_a_damaged_pack_is_ignored(tmp_path: Path) -> None:
    inventory = LAB / "inventory.yaml"
    plain = _reports(api.audit(inventory))
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    packs = list((tmp_path / "c").rglob("checks/*.json"))
    assert len(packs) == 1
    raw = packs[0].read_text()
    for damage in (
        "",
        "[]",
        raw[: len(raw) // 2],
        re.sub(r'"severity":"\w+"', '"severity":"x"', raw),
    ):
        packs[0].write_text(damage)
        assert _reports(api.audit(inventory, cache=ParseCache(tmp_path / "c"))) == plain


def test_lint_with_a_cache_equals_uncached(tmp_path: Path) -> None:
    paths = [
        LAB / "snapshots" / "leaf1",
        LAB / "configs" / "leaf4.yaml",
        LAB / "snapshots" / "gpu01",
    ]
    plain = _reports(api.lint(paths))
    for _ in range(2):
        assert _reports(api.lint(paths, cache=ParseCache(tmp_path / "c"))) == plain


@pytest.mark.parametrize("junk", [10, 5000])
def test_the_string_table_is_written_whole_when_it_doubled(
    lab: Path, tmp_path: Path, junk: int
) -> None:
    """A changed run writes the subjects it read again as they were (their numbers into the
    pack's string table stay), adding new strings to the table; once the table is twice
    what it was when last written whole, it is written whole again with only what is used."""
    import json

    inventory = _inv(lab)
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    (pack_path,) = (tmp_path / "c").rglob("checks/*.json")
    pack = json.loads(pack_path.read_text())
    used = len(pack["strings"])
    assert len(set(pack["strings"])) == used  # each string once
    pack["strings"] += [f"junk {i}" for i in range(junk)]
    pack_path.write_text(json.dumps(pack))
    _edit_leaf1(lab)
    got = _reports(api.audit(inventory, cache=ParseCache(tmp_path / "c")))
    assert got == _reports(api.audit(inventory))
    table = json.loads(pack_path.read_text())["strings"]
    if used + junk > 2 * max(pack["base"], 1024):
        assert not any(s.startswith("junk") for s in table)
        assert len(table) <= used + 50
    else:
        assert table[: used + junk] == pack["strings"]


def test_a_first_pack_is_written_whole_and_read_again_as_it_is(
    lab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first pack (no pack read) records its table as written whole: the next run
    with one device changed encodes only that device's subjects (it re-encoded every
    subject when the first pack said its table was never written whole)."""
    import json

    from rocetune import checkcache

    inventory = _inv(lab)
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    (pack_path,) = (tmp_path / "c").rglob("checks/*.json")
    pack = json.loads(pack_path.read_text())
    assert pack["base"] == len(pack["strings"]) > 0
    encoded: list[int] = []
    real = checkcache._encode

    def encode(records: list[Any], strings: Any) -> Any:
        encoded.append(len(records))
        return real(records, strings)

    monkeypatch.setattr(checkcache, "_encode", encode)
    _edit_leaf1(lab)
    got = _reports(api.audit(inventory, cache=ParseCache(tmp_path / "c")))
    assert got == _reports(api.audit(inventory))
    stored = sum(len(entry[1]) for entry in pack["subjects"].values())  # [codes, records(, guard)]
    assert 0 < len(encoded) < stored, (len(encoded), stored)


def test_a_neighbour_edit_that_keeps_its_model_replays_the_other_subjects(
    lab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Subjects key their neighbours by model, not file: a comment in leaf3's config re-runs
    the rules on leaf3, its links and the hosts whose records name leaf3 (gpu01, gpu02:
    RT707), not on spine1/spine2 (linked to leaf3, their records name only themselves)."""
    from rocetune.model import Link

    missed: set[str] = set()
    real = CheckStore.get

    def get(self: CheckStore, kind: Any, subject: Any, code: str) -> Any:
        got = real(self, kind, subject, code)
        if got is None:
            missed.add(subject.label if isinstance(subject, Link) else subject.name)
        return got

    inventory = _inv(lab)
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    monkeypatch.setattr(CheckStore, "get", get)
    path = lab / "snapshots/leaf3/nv_config_show_o_yaml.yaml"
    path.write_text(path.read_text() + "# a comment at the end\n")
    got = _reports(api.audit(inventory, cache=ParseCache(tmp_path / "c")))
    assert got == _reports(api.audit(inventory))
    devices = {m for m in missed if ":" not in m}
    assert devices == {"leaf3", "gpu01", "gpu02"}, missed
    assert all("leaf3" in m for m in missed - devices), missed
