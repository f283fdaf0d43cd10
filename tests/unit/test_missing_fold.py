"""RT000 missing-data findings from folded Missing notes (engine._Missed keeps each item as
two numbers): the same findings as keeping every item string, on random notes."""

from __future__ import annotations

import random
from typing import Any

from rocetune import engine
from rocetune.checks.base import Missing
from rocetune.model import Finding, Severity, SourceRef
from rocetune.platforms.common.construct import same


class _Prov:
    def lookup(self, path: str | None) -> SourceRef | None:
        return None if path is None else SourceRef(file="f.txt", line=len(path))


def _path_port(path: str | None, item: str) -> str | None:
    """The port of a note as engine found it by building the path strings (the reference
    for engine._head_port): its path names it and its item starts with it."""
    for base in ("ports.", "nics."):
        if path and path.startswith(base):
            port = item.partition(":")[0]
            if path == base + port or path.startswith(base + port + "."):
                return port
    return None


def _reference(
    notes: list[tuple[type[Any], Missing]], prov: dict[str, _Prov]
) -> list[dict[str, Any]]:
    """What engine did when it kept every item string (before the fold was compact)."""
    missing: dict[Any, dict[str, tuple[dict[str, None], str | None, set[str | None]]]] = {}
    for rule, note in notes:
        by_device = missing.setdefault(rule, {})
        if note.device not in by_device:
            by_device[note.device] = ({}, note.path, set())
        items, _, ports = by_device[note.device]
        items[note.item] = None
        ports.add(_path_port(note.path, note.item))
    groups: dict[Any, list[Any]] = {}
    first_path: dict[Any, str | None] = {}
    ports_of: dict[Any, set[str | None]] = {}
    for rule, by_device in missing.items():
        for device, (items, path, ports) in by_device.items():
            key = (device, tuple(items))
            groups.setdefault(key, []).append(rule)
            first_path.setdefault(key, path)
            ports_of.setdefault(key, set()).update(ports)
    out = []
    for (device, names), rules in groups.items():
        listed = "; ".join(names[:5])
        if len(names) > 5:
            listed += f"; and {len(names) - 5} more"
        who = ", ".join(f"{r.meta.code} {r.meta.name}" for r in rules)
        path = first_path[(device, names)]
        ref = prov[device].lookup(path) if device in prov else None
        port_set = ports_of[(device, names)]
        out.append(
            Finding(
                code="RT000",
                name="missing-data",
                severity=Severity.INFO,
                device=device,
                port=next(iter(port_set)) if len(port_set) == 1 else None,
                message=f"{who} could not run: {listed}",
                observed="not in snapshot",
                expected="data for " + ", ".join(r.meta.code for r in rules),
                file=ref.file if ref else None,
                line=ref.line if ref else None,
                path=path,
            ).model_dump()
        )
    return out


def _rule(code: str) -> type[Any]:
    meta = type("Meta", (), {"code": code, "name": f"rule-{code.lower()}"})
    return type(code, (), {"meta": meta})


def test_folded_notes_give_the_findings_of_every_item_kept() -> None:
    rng = random.Random(18)
    rules = [_rule(f"RT{n}") for n in range(100, 112)]
    ports = ["swp1", "swp2", "Ethernet1/1", "Ethernet1/1:2", ""]
    whats = ["ECN not in snapshot", "PFC: rx not in snapshot", "", "x:y"]
    for _ in range(300):
        notes = []
        for _ in range(rng.randrange(0, 40)):
            port = rng.choice(ports)
            what = rng.choice(whats)
            item = rng.choice([f"{port}: {what}", what, port, f"{port}:{what}"])
            path = rng.choice(
                [None, f"ports.{port}", f"ports.{port}.ecn", "qos", f"nics.{port}.mtu"]
            )
            device = rng.choice(["leaf1", "leaf2", "spine1"])
            notes.append((rng.choice(rules), Missing(device=device, item=item, path=path)))
        prov = {"leaf1": _Prov(), "spine1": _Prov()}
        missing: dict[Any, dict[str, engine._Missed]] = {}
        texts = engine._Texts()
        for rule, note in notes:
            engine._fold_missing(missing, rule, note, texts)
        made = engine._missing_findings(missing, prov, texts)
        # built without validation (rocetune.model.construct): as validated, types included
        assert all(same(f, Finding(**f.model_dump(exclude_unset=True))) for f in made)
        assert [f.model_dump() for f in made] == _reference(notes, prov)


def test_many_ports_listed_and_counted() -> None:
    rule = _rule("RT501")
    missing: dict[Any, dict[str, engine._Missed]] = {}
    texts = engine._Texts()
    for p in range(300):
        note = Missing(device="d", item=f"swp{p}: headroom not in snapshot", path=f"ports.swp{p}")
        engine._fold_missing(missing, rule, note, texts)
    (finding,) = engine._missing_findings(missing, {}, texts)
    assert finding.message.endswith("swp4: headroom not in snapshot; and 295 more")
    assert finding.port is None
    assert len(texts.texts) == 301  # 300 port names, one remainder


def test_the_port_of_a_note_from_its_head_is_the_port_its_path_and_item_name() -> None:
    """engine._head_port (the fold's, from the item's text before ``:``) against
    _path_port (the strings built from the whole item) on paths near and off the port's."""
    heads = ["swp1", "swp", "swp10", "Ethernet1/1", "Ethernet1/1:2", "", "ports", "nics"]
    paths = [None, "", "qos", "ports", "ports.", "nics.", "nics", "ports..", "portsx.swp1"]
    for head in heads:
        paths += [f"{b}{head}{t}" for b in ("ports.", "nics.") for t in ("", ".ecn", "x", "..")]
    for head in heads:
        for tail in ("", ": ECN not in snapshot", ":x:y"):
            item = head + tail
            for path in paths:
                want = _path_port(path, item)
                assert engine._head_port(path, item.partition(":")[0]) == want, (path, item)
