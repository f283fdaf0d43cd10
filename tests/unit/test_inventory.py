"""Inventory loader: valid shapes, inheritance, and one-line errors with file:line:column."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.errors import InventoryError
from rocetune.inventory import load_intent_file, load_inventory


def write(tmp_path: Path, text: str, name: str = "inventory.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_groups_defaults_and_links(tmp_path: Path) -> None:
    (tmp_path / "snaps").mkdir()
    (tmp_path / "snaps" / "leaf1.json").write_text("{}")
    inv = load_inventory(
        write(
            tmp_path,
            """\
intent:
  lossless_priorities: [3, 4]
  cnp: {dscp: 46}
defaults: {username_env: RT_USER, password_env: RT_PASS, role: leaf}
groups:
  base: {platform: sonic}
  leaves: {groups: [base]}
devices:
  leaf1: {host: 10.0.0.1, groups: [leaves], snapshot: snaps/leaf1.json}
  spine1: {host: spine1.example, platform: cumulus, role: spine, port: 2222}
links:
  - {a: leaf1:Ethernet0, b: spine1:swp1, length_m: 30}
""",
        )
    )
    assert inv.intent.lossless_priorities == (3, 4)
    assert inv.intent.cnp.dscp == 46
    assert inv.intent.cnp.priority == 6
    leaf = inv.devices["leaf1"]
    assert leaf.platform == "sonic"
    assert leaf.role == "leaf"
    assert leaf.snapshot == (tmp_path / "snaps" / "leaf1.json").resolve()
    assert leaf.access.password_env == "RT_PASS"
    assert inv.devices["spine1"].role == "spine"
    assert inv.devices["spine1"].access.port == 2222
    assert inv.links[0].label == "leaf1:Ethernet0--spine1:swp1"
    assert inv.links[0].length_m == 30


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        ("devices:\n  leaf1: {host: a, platfrom: sonic}\n", 2, 20, "did you mean 'platform'"),
        ("devices:\n  leaf1:\n    password: hunter2\n", 3, 5, "literal credential"),
        ("defaults:\n  secret: x\n", 2, 3, "literal credential"),
        ("devices:\n  leaf1: {platform: sonci}\n", 2, 21, "did you mean 'sonic'"),
        ("intent:\n  lossless_priorities: [9]\n", 2, 24, "outside 0..7"),
        ("intent:\n  cnp: {dscp: 48, prioity: 6}\n", 2, 19, "did you mean 'priority'"),
        ("devices:\n  a: {snapshot: missing/dir}\n", 2, 17, "does not exist"),
        ("devices: [\n", 2, 1, "invalid YAML"),
        ("devices:\n  a: {groups: [nope]}\n", 2, 15, "unknown group"),
        (
            "groups:\n  g1: {groups: [g2]}\n  g2: {groups: [g1]}\ndevices:\n  a: {groups: [g1]}\n",
            3,
            None,
            "group cycle",
        ),
        ("devices:\n  a: {host: 'x;reboot'}\n", 2, 13, "not a host name"),
        ("devices:\n  a: {nics: ['eth0\\nreboot']}\n", 2, None, "not an interface name"),
        ("links:\n  - {a: leaf1, b: spine1:swp1}\n", 2, None, "not a device:port"),
        ("devices:\n  a: {password_env: 'my password'}\n", 2, None, "not an environment variable"),
        ("- just\n- a list\n", 1, None, "must be a mapping"),
        ("devices:\n  a: {}\n  a: {}\n", 3, None, "invalid YAML"),
    ],
)
def test_errors_name_file_line_column(
    tmp_path: Path, text: str, line: int, col: int | None, fragment: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InventoryError) as exc_info:
        load_inventory(path)
    err = exc_info.value
    assert err.file == str(path)
    assert err.line == line
    if col is not None:
        assert err.column == col
    assert fragment in str(err)
    assert "\n" not in str(err)


def test_empty_inventory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InventoryError, match="empty"):
        load_inventory(write(tmp_path, ""))


def test_intent_file_bare_or_from_inventory(tmp_path: Path) -> None:
    bare = write(tmp_path, "roce_dscp: [24]\nmtu: {roce: 1024}\n", "intent.yaml")
    intent = load_intent_file(bare)
    assert intent.roce_dscp == (24,)
    assert intent.mtu.roce == 1024
    inv = write(tmp_path, "intent: {lossless_priorities: [4]}\ndevices: {}\n")
    assert load_intent_file(inv).lossless_priorities == (4,)
    with pytest.raises(InventoryError, match="rce_dscp"):
        load_intent_file(write(tmp_path, "rce_dscp: [24]\n", "bad.yaml"))


def test_cnp_dscp_cannot_be_a_roce_dscp(tmp_path: Path) -> None:
    with pytest.raises(InventoryError, match="CNP DSCP 26"):
        load_inventory(write(tmp_path, "intent:\n  cnp: {dscp: 26}\n"))
