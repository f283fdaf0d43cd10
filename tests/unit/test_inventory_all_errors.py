"""Every problem of an inventory is reported at once, in file order; literal user names."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.collect.credentials import CredentialSource
from rocetune.errors import InventoryError
from rocetune.inventory import load_inventory

BAD = """\
intent:
  lossless_prio: [3]
defaults: {username: admin, password_env: RT_PW}
groups:
  leaves: {role: leaf, platfrom: sonic}
devices:
  leaf1: {host: 10.0.0.1, groups: [leaves], port: 99999}
  leaf2: {host: "bad host", groups: [leaves]}
  leaf3: {host: 10.0.0.3, password: hunter2}
"""


def test_every_problem_at_once_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text(BAD, encoding="utf-8")
    with pytest.raises(InventoryError) as info:
        load_inventory(path)
    err = info.value
    found = [(e.line, e.message.split(":")[0]) for e in (err, *err.more)]
    assert found == [
        (2, "unknown key 'lossless_prio' in intent (did you mean 'lossless_priorities'?)"),
        (5, "unknown key 'platfrom' in groups.leaves (did you mean 'platform'?)"),
        (7, "devices.leaf1.port"),
        (8, "devices.leaf2.host"),
        (9, "literal credential 'password' is not allowed in an inventory"),
    ]
    text = str(err)
    assert text.count("\n") == 5
    assert text.endswith("(5 problems in this inventory)")
    assert "hunter2" not in text


def test_resolution_problems_of_several_devices(tmp_path: Path) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text(
        "devices:\n"
        "  leaf1: {host: 10.0.0.1, groups: [leafs], platform: sonic}\n"
        "  leaf2: {host: 10.0.0.2, platform: sonix}\n"
        "  leaf3: {host: 10.0.0.3, platform: sonic, snapshot: nope}\n",
        encoding="utf-8",
    )
    with pytest.raises(InventoryError) as info:
        load_inventory(path)
    lines = [e.line for e in (info.value, *info.value.more)]
    assert lines == [2, 3, 4]


def test_one_problem_prints_one_line(tmp_path: Path) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text("devices:\n  leaf1: {hots: 10.0.0.1}\n", encoding="utf-8")
    with pytest.raises(InventoryError) as info:
        load_inventory(path)
    assert "\n" not in str(info.value)


def test_literal_username_is_used_and_passwords_stay_refused(tmp_path: Path) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text(
        "defaults: {username: netops, password_env: RT_PW}\n"
        "devices:\n  leaf1: {host: 10.0.0.1, platform: sonic}\n"
        "  leaf2: {host: 10.0.0.2, platform: sonic, username: admin}\n",
        encoding="utf-8",
    )
    inv = load_inventory(path)
    source = CredentialSource(environ={"RT_PW": "pw"})
    assert source.resolve(inv.devices["leaf1"].access).username == "netops"
    assert source.resolve(inv.devices["leaf2"].access).username == "admin"
    path.write_text("defaults: {username: 'a b;rm'}\ndevices: {}\n", encoding="utf-8")
    with pytest.raises(InventoryError, match="is not a user name"):
        load_inventory(path)
    path.write_text("defaults: {passwd: x}\ndevices: {}\n", encoding="utf-8")
    with pytest.raises(InventoryError, match="literal credential 'passwd'"):
        load_inventory(path)
