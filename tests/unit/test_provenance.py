"""Provenance keeps paths split at their last dot, in shared shapes: the same answers as a dict."""

from __future__ import annotations

import pickle
import random
import tracemalloc

from rocetune.model import provenance as provenance_module
from rocetune.model.provenance import _GROUP_MASK, _SHAPE_MAX, Provenance, SourceRef


def _reference(ops: list[tuple[str, str, str, int | None]]) -> dict[str, SourceRef]:
    flat: dict[str, SourceRef] = {}
    for op, path, file, line in ops:
        if op == "set" or path not in flat:
            flat[path] = SourceRef(file, line)
    return flat


def _lookup(flat: dict[str, SourceRef], path: str) -> SourceRef | None:
    while path:
        if path in flat:
            return flat[path]
        path = path.rpartition(".")[0]
    return flat.get("")


def _random_ops(seed: int) -> list[tuple[str, str, str, int | None]]:
    rng = random.Random(seed)
    ports = ["Ethernet0", "Ethernet1/1.10", "swp1", "eth2", ""]
    leaves = ["mtu", "pfc_rx", "dscp_to_priority.46", "ecn.3", "name", "0", ""]
    ops = []
    for _ in range(400):
        port = rng.choice(ports)
        path = rng.choice([f"ports.{port}.{rng.choice(leaves)}", f"ports.{port}", "x", "", "a.b"])
        line = rng.choice([None, 0, 1, 7, 4096, 10**9])
        ops.append((rng.choice(["add", "set"]), path, rng.choice(["a.conf", "b/c.json"]), line))
    return ops


def test_lookups_and_items_are_those_of_a_plain_dict() -> None:
    for seed in range(30):
        ops = _random_ops(seed)
        prov = Provenance()
        for op, path, file, line in ops:
            getattr(prov, op)(path, file, line)
        flat = _reference(ops)
        assert dict(prov.items()) == flat
        assert dict(prov.refs) == flat
        assert len(prov.refs) == len(flat)
        probes = [p for _, p, _, _ in ops] + ["ports.Ethernet0.mtu.extra", "nowhere", "ports."]
        for path in probes:
            assert prov.lookup(path) == _lookup(flat, path), path
        for path in flat:
            assert path in prov.refs
            assert prov.refs[path] == flat[path]


def test_ports_with_the_same_fields_share_one_shape() -> None:
    prov = Provenance()
    for p in range(64):
        for line, leaf in enumerate(("mtu", "pfc_rx", "speed_mbps"), start=10 * p):
            prov.add(f"ports.Ethernet{p}.{leaf}", "cfg", line)
    shapes = {id(prov._node_of(node).shape) for node in prov._tables[0].values()}
    assert len(shapes) == 1
    assert prov.lookup("ports.Ethernet5.pfc_rx") == SourceRef("cfg", 51)
    assert prov.lookup("ports.Ethernet5.pfc_rx.3") == SourceRef("cfg", 51)
    assert prov.lookup("ports.Ethernet99.mtu") is None


def test_many_leaves_under_one_parent_stay_linear() -> None:
    prov = Provenance()
    for i in range(5 * _SHAPE_MAX):
        prov.add(f"unparsed.{i}", "cfg", i + 1)
    assert prov._shapes <= _SHAPE_MAX + 1
    count = 5 * _SHAPE_MAX
    assert dict(prov.items()) == {f"unparsed.{i}": SourceRef("cfg", i + 1) for i in range(count)}
    prov.set("unparsed.3", "other", None)
    assert prov.lookup("unparsed.3") == SourceRef("other", None)


def test_maps_refs_constructor_pickle_and_equality() -> None:
    prov = Provenance(refs={"ports.E0": SourceRef("f", 3)})
    table = prov.table("f", {46: 12, 47: None})
    prov.add_map("ports.E0.dscp_to_priority", table)
    assert prov.lookup("ports.E0.dscp_to_priority.46") == SourceRef("f", 12)
    assert prov.lookup("ports.E0.dscp_to_priority.47") == SourceRef("f", 3)
    assert dict(prov.items()) == {
        "ports.E0": SourceRef("f", 3),
        "ports.E0.dscp_to_priority.46": SourceRef("f", 12),
    }
    back = pickle.loads(pickle.dumps(prov))
    assert back == prov
    assert dict(back.items()) == dict(prov.items())
    assert Provenance() != prov


def test_a_port_is_one_node_and_a_chain_of_shapes_one_index() -> None:
    prov = Provenance()
    leaves = [f"f{i}" for i in range(100)]
    for p in ("E0", "E1"):
        prov.add(f"ports.{p}", "cfg", 1)
        for i, leaf in enumerate(leaves):
            prov.add(f"ports.{p}.{leaf}.{i}", "cfg", i + 2)
    assert set(prov._tables[0]) == {"E0", "E1"}  # ports.E0 is E0's leaf None
    assert not prov._tree
    shape = prov._tables[0]["E0"].shape
    assert shape is prov._tables[0]["E1"].shape
    assert shape is not None
    assert shape.size == 101  # the port's own line, then its 100 fields
    assert len(shape.index) == 101  # one dict for the whole chain
    prov.add("ports.E2.f0.0", "cfg", 7)
    prov.add("ports.E2.other", "cfg", 8)  # branches after f0: a copy of one entry
    branch = prov._tables[0]["E2"].shape
    assert branch is not None
    assert dict(branch.leaves()) == {"f0.0": 0, "other": 1}
    assert prov.lookup("ports.E1.f5.5") == SourceRef("cfg", 7)
    assert prov.lookup("ports.E2.other.x") == SourceRef("cfg", 8)
    assert prov.lookup("ports.E2.f5.5") is None


def test_add_many_records_what_adds_one_by_one_record() -> None:
    """``add_many(parent, file, leaves)`` == ``add(parent + leaf, file, line)`` in order."""
    rng = random.Random(7)
    parents = ["ports.Ethernet0.", "ports.Ethernet1/1.10.", "nics.mlx5_0.", "ports.", "x.", ""]
    leaves = ["mtu", "pfc_rx", "ecn.3", "dscp_to_priority.46", "0", "", "a.b.c"]
    for _ in range(200):
        ops = []
        for _ in range(rng.randint(1, 12)):
            parent = rng.choice(parents)
            batch = [
                (rng.choice(leaves), rng.choice([None, 0, 1, 7, 4096, 10**9, 1 << 50]))
                for _ in range(rng.randint(0, 8))
            ]
            ops.append((parent, rng.choice(["a.conf", "b/c.json"]), batch))
        one, many = Provenance(), Provenance()
        for parent, file, batch in ops:
            for leaf, line in batch:
                one.add(parent + leaf, file, line)
            many.add_many(parent, file, batch)
        assert list(many.items()) == list(one.items())
        assert len(many.refs) == len(one.refs)
        for parent, _, batch in ops:
            for leaf, _ in batch:
                assert many.lookup(parent + leaf) == one.lookup(parent + leaf)


def test_add_leaves_records_what_add_many_records() -> None:
    """``add_leaves(parent, file, leaves, lines)`` == ``add_many(parent, file, zip(...))``,
    whether its walk along the shapes is taken (the same leaves again) or not."""
    rng = random.Random(13)
    parents = [
        "ports.Ethernet0.",
        "ports.Ethernet4.",
        "ports.Ethernet1/1.10.",
        "nics.mlx5_0.",
        "x.",
    ]
    kinds = [("mtu", "pfc_rx", "ecn.3"), ("mtu", "pfc_rx"), ("a", "a"), ("ecn.3", "mtu"), ()]
    for _ in range(300):
        ops = []
        for _ in range(rng.randint(1, 12)):
            leaves = rng.choice(kinds)
            lines = [rng.choice([None, 0, 1, 7, 4096, 1 << 50]) for _ in leaves]
            if rng.random() < 0.7:
                lines = [rng.randint(1, 500) for _ in leaves]
            ops.append((rng.choice(parents), rng.choice(["a.conf", "b.json"]), leaves, lines))
        many, shaped = Provenance(), Provenance()
        for parent, file, leaves, lines in ops:
            many.add(parent + "own", file, 3)
            shaped.add(parent + "own", file, 3)
            many.add_many(parent, file, list(zip(leaves, lines, strict=True)))
            shaped.add_leaves(parent, file, leaves, lines)
        assert list(shaped.items()) == list(many.items())
        assert len(shaped.refs) == len(many.refs)
        assert pickle.loads(pickle.dumps(shaped)) == many


def test_add_leaves_takes_the_walk_of_ports_recorded_alike() -> None:
    prov = Provenance()
    leaves = ("mtu", "pfc_rx", "ecn.3")
    for p in range(8):
        prov.add_leaves(f"ports.Ethernet{p}.", "cfg", leaves, [10 * p, 10 * p + 1, 10 * p + 5])
    assert len(prov._chains) == 1  # the first port made the shapes; the others walked once
    assert len({id(prov._node_of(node).shape) for node in prov._tables[0].values()}) == 1
    assert prov.lookup("ports.Ethernet5.ecn.3") == SourceRef("cfg", 55)


def test_add_runs_records_what_adds_one_by_one_record() -> None:
    """``add_runs(parent, fields)`` == ``add(parent + field, file, line)`` in order, also when
    the file changes between fields and back."""
    rng = random.Random(11)
    for _ in range(200):
        parent = rng.choice(["ports.Ethernet0.", "nics.mlx5_0.", "x."])
        fields = [
            (
                rng.choice(["mtu", "pfc_rx", "ecn.3", "a.b"]),
                (rng.choice(["a", "b"]), rng.choice([None, 1, 9])),
            )
            for _ in range(rng.randint(0, 10))
        ]
        one, runs = Provenance(), Provenance()
        for field, (file, line) in fields:
            one.add(parent + field, file, line)
        runs.add_runs(parent, fields)
        assert list(runs.items()) == list(one.items())
        for field, _ in fields:
            assert runs.lookup(parent + field) == one.lookup(parent + field)


def test_add_many_shares_shapes_like_add() -> None:
    prov = Provenance()
    for p in range(64):
        prov.add_many(f"ports.Ethernet{p}.", "cfg", [("mtu", 10 * p), ("pfc_rx", 10 * p + 1)])
    assert len({id(prov._node_of(node).shape) for node in prov._tables[0].values()}) == 1
    assert prov.lookup("ports.Ethernet5.pfc_rx") == SourceRef("cfg", 51)


def test_a_pickled_provenance_answers_and_grows_as_the_original() -> None:
    """Pickling keeps the tables as they are (not every path spelled out and recorded again):
    the copy gives the same lookups, items and count, and records further paths the same way
    (its shapes, chains and nodes are rebuilt, not only its answers)."""
    for seed in range(30):
        ops = _random_ops(seed)
        half = len(ops) // 2
        prov = Provenance()
        for op, path, file, line in ops[:half]:
            getattr(prov, op)(path, file, line)
        prov.add_map("ports.swp1.dscp_to_priority", prov.table("m.conf", {46: 3, 0: 4}))
        back = pickle.loads(pickle.dumps(prov, protocol=pickle.HIGHEST_PROTOCOL))
        assert back.__getstate__() == prov.__getstate__()
        for copy in (prov, back):
            for op, path, file, line in ops[half:]:
                getattr(copy, op)(path, file, line)
        assert back == prov
        assert dict(back.items()) == dict(prov.items())
        assert len(back.refs) == len(prov.refs) == prov._count
        assert back._shapes == prov._shapes
        for _, path, _, _ in ops:
            for probe in (path, path + ".x", "ports.swp1.dscp_to_priority.46"):
                assert back.lookup(probe) == prov.lookup(probe)
    # a provenance too big for shapes (nodes with dicts of their own) too
    big = Provenance()
    for i in range(3 * _SHAPE_MAX):
        big.add(f"unparsed.{i}", "cfg", i + 1)
        big.add(f"ports.E{i}.mtu", f"f{i % 3}", None if i % 5 == 0 else i)
    again = pickle.loads(pickle.dumps(big))
    assert dict(again.items()) == dict(big.items())
    again.set("unparsed.3", "other", 9)
    big.set("unparsed.3", "other", 9)
    assert again == big


def _port_ops(seed: int) -> list[tuple[str, str, str, int | None]]:
    """Ports recorded one after another as parsers do (the port, then its fields): most
    alike (global map lines shared, own lines at the same distance), some with another
    profile or an extra field, then some ports recorded again (overwrites, new fields)."""
    rng = random.Random(seed)
    ops: list[tuple[str, str, str, int | None]] = []
    for p in range(rng.randint(2, 120)):
        own = 100 + 9 * p
        profile = 20 if rng.random() < 0.8 else 40
        ops.append(("add", f"ports.Ethernet{p}", "cfg", own))
        fields = [("mtu", own + 1), ("speed_mbps", own + 2), ("trust", profile)]
        fields += [("dscp_to_priority", 5), ("ecn.3", profile + 3), ("watchdog.action", 9000)]
        if rng.random() < 0.1:
            fields.append(("fec", own + 4))
        if rng.random() < 0.1:
            fields.append(("lanes", None))
        for leaf, line in fields:
            ops.append(("add", f"ports.Ethernet{p}.{leaf}", "cfg" if line else "oper", line))
    for _ in range(rng.randint(0, 20)):
        p = rng.randrange(len(ops) // 7 + 1)
        leaf = rng.choice(["mtu", "trust", "unparsed.0", "fec"])
        ops.append(
            (
                rng.choice(["add", "set"]),
                f"ports.Ethernet{p}.{leaf}",
                "cfg",
                rng.randrange(1, 10**6),
            )
        )
    return ops


def test_ports_recorded_alike_pack_their_codes_and_answer_as_a_plain_dict() -> None:
    """A port's codes are packed into a pattern shared with the ports before it when the
    next port is recorded: lookups, items, equality and pickles are unchanged, also for
    ports recorded again after they were packed."""
    packed = 0
    for seed in range(40):
        ops = _port_ops(seed)
        prov = Provenance()
        for op, path, file, line in ops:
            getattr(prov, op)(path, file, line)
        packed += sum(type(node) is int for node in prov._tables[0].values())
        flat = _reference(ops)
        assert dict(prov.items()) == flat
        for _, path, _, _ in ops:
            for probe in (path, path + ".x"):
                assert prov.lookup(probe) == _lookup(flat, probe)
        back = pickle.loads(pickle.dumps(prov))
        assert back == prov
        assert dict(back.items()) == flat
        assert back.__getstate__() == prov.__getstate__()
    assert packed > 1000
    prov = Provenance()
    for op, path, file, line in _port_ops(0):
        getattr(prov, op)(path, file, line)
    groups = [prov._groups[v & _GROUP_MASK] for v in prov._tables[0].values() if type(v) is int]
    patterns = {id(pattern) for _, pattern in groups}
    assert len(patterns) <= 8  # one per shape and profile, not one per port


def test_add_member_records_what_add_records_keyed_by_the_name_given() -> None:
    """``add_member("ports.", name, ...)`` == ``add(f"ports.{name}", ...)``; the port's node is
    keyed by ``name`` itself (the model's string), also when fields came first; a name with
    a dot is kept under the part before it, as ``add`` keeps it."""
    names = ["Ethernet1/1", "swp1.100", "", "eth0"]
    for first_field in (False, True):
        one, member = Provenance(), Provenance()
        given = {}
        for i, name in enumerate(names):
            for prov in (one, member):
                if first_field:
                    prov.add(f"ports.{name}.mtu", "cfg", 10 * i + 1)
                if prov is one:
                    prov.add(f"ports.{name}", "cfg", 10 * i)
                else:
                    given[name] = "".join([name])  # an equal string of its own
                    prov.add_member("ports.", given[name], "cfg", 10 * i)
                prov.add(f"ports.{name}.pfc_rx", "cfg", 10 * i + 2)
        member.add_member("nics.", "mlx5_0", "host", 3)
        one.add("nics.mlx5_0", "host", 3)
        assert list(member.items()) == list(one.items())
        assert member == one
        for name in names:
            for probe in (f"ports.{name}", f"ports.{name}.mtu", f"ports.{name}.x.y"):
                assert member.lookup(probe) == one.lookup(probe)
        keys = {key: key for key in member._tables[0]}
        assert (keys["Ethernet1/1"] is given["Ethernet1/1"]) is not first_field
        assert "swp1.100" not in keys  # under "swp1" + leaf "100"
        assert member.lookup("nics.mlx5_0.x") == SourceRef("host", 3)


def test_ports_recorded_alike_cost_an_int_each() -> None:
    """What the tables of ports recorded alike (the same fields, lines at the same offsets)
    allocate per port, free lists included (no gc): the table entry of a packed port (one
    int: its first code and its shape and pattern), not a node object, a parent string, a
    leaf string or a pattern tuple per port (a dropped tuple stays in CPython's free list
    of its size)."""
    names = [f"Ethernet{p}/1" for p in range(400)]
    fields = [f"f{i}" for i in range(20)]
    prov = Provenance()
    prov.add("qos.map", "cfg", 1)
    tracemalloc.start()
    try:
        for p, name in enumerate(names):
            prov.add_member("ports.", name, "cfg", 100 + 30 * p)
            leaves = [(f, 101 + 30 * p + i) for i, f in enumerate(fields)]
            prov.add_many(f"ports.{name}.", "cfg", leaves)
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    mine = provenance_module.__file__
    held = sum(s.size for s in snapshot.statistics("filename") if s.traceback[0].filename == mine)
    assert held / len(names) < 110, held / len(names)  # ~76: an int and its entry (was ~470)
    nodes = [node for node in prov._tables[0].values() if type(node) is not int]
    assert len(nodes) <= 3  # the first two (no pattern yet) and the open one
    assert len(prov._groups) == 1


def _mixed_port_ops(seed: int) -> list[tuple[str, str, str, int | None]]:
    """Ports written in one block each (packable) and ports whose lines are spread over
    tables at distances that differ per port (a SONiC port: never packable), in runs, with
    ports recorded again in between (overwrites and new fields of a port already packed or
    already compared)."""
    rng = random.Random(seed)
    ops: list[tuple[str, str, str, int | None]] = []
    fields = ["mtu", "speed_mbps", "trust", "dscp_to_priority", "ecn.3", "watchdog.action"]
    block = rng.random() < 0.5
    for p in range(rng.randint(2, 150)):
        if rng.random() < 0.1:
            block = not block
        own = 100 + 9 * p
        ops.append(("add", f"ports.Ethernet{p}", "cfg", own))
        for i, leaf in enumerate(fields):
            line = own + 1 + i if block else 5000 * (i + 1) + p * (3 + i) + rng.randrange(4)
            if leaf == "dscp_to_priority":
                line = 5  # a global map's line, the same for every port
            ops.append(("add", f"ports.Ethernet{p}.{leaf}", "cfg", line))
        if rng.random() < 0.15:
            q = rng.randrange(p + 1)
            leaf = rng.choice(["mtu", "trust", "fec", "ecn.3"])
            line = rng.choice([100 + 9 * q + 1, rng.randrange(1, 10**5)])
            ops.append((rng.choice(["add", "set"]), f"ports.Ethernet{q}.{leaf}", "cfg", line))
    return ops


def _layout(prov: Provenance) -> object:
    """What a Provenance keeps per port: packed (its int) or its shape's leaves and codes,
    and the (shape, pattern) pairs the ints number."""

    def leaves(shape: object) -> object:
        return None if shape is None else list(shape.leaves())  # type: ignore[attr-defined]

    nodes = [
        (key, node if type(node) is int else (leaves(node.shape), list(node.codes), node.own))
        for key, node in prov._tables[0].items()
    ]
    return nodes, [(leaves(shape), pattern) for shape, pattern in prov._groups]


def test_packing_ruled_out_by_one_slot_packs_what_spelling_every_pattern_packs() -> None:
    """``_pack`` rules a node out by its last slot while no pattern is pooled (ports whose
    lines are spread over tables never pack, and were spelled in full each): the nodes
    packed, their ints and the pooled patterns are those of a Provenance that spells every
    pattern (one with a pattern pooled that no node has, which turns the shortcut off)."""
    packed = unspelled = 0
    for seed in range(60):
        ops = _mixed_port_ops(seed)
        prov, spelling = Provenance(), Provenance()
        spelling._patterns[(-1,)] = (-1,)  # never a node's pattern: every node spelled
        for op, path, file, line in ops:
            getattr(prov, op)(path, file, line)
            getattr(spelling, op)(path, file, line)
            unspelled += any(
                isinstance(p, provenance_module._Unspelled) for _, p in prov._recent.values()
            )
        prov.add("x", "cfg", 1)  # the last port is packed when another node opens
        spelling.add("x", "cfg", 1)
        assert _layout(prov) == _layout(spelling)
        assert dict(prov.items()) == _reference([*ops, ("add", "x", "cfg", 1)])
        packed += sum(type(node) is int for node in prov._tables[0].values())
    assert packed > 1000
    assert unspelled > 1000
