"""The published inventory JSON Schema and key reference: current, complete, and they agree
with what load_inventory accepts and refuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from rocetune.inventory import load_inventory
from tests.paths import ROOT

SCHEMA = json.loads((ROOT / "schemas" / "inventory.schema.json").read_text(encoding="utf-8"))
INVENTORIES = sorted(
    p
    for p in [*ROOT.glob("inventories/**/*.yaml"), *ROOT.glob("tests/fixtures/**/inventory*.yaml")]
    if "devices" in (YAML(typ="safe").load(p.read_text(encoding="utf-8")) or {})
)


def test_generated_files_are_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "inventory_schema.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout


def test_every_key_is_documented() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    undocumented = [
        f"{name}.{key}"
        for name, body in [("(top)", SCHEMA), *SCHEMA["$defs"].items()]
        for key, prop in body.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert undocumented == []
    doc = (ROOT / "docs" / "inventory.md").read_text(encoding="utf-8")
    for body in [SCHEMA, *SCHEMA["$defs"].values()]:
        for key in body.get("properties", {}):
            assert f"| `{key}` |" in doc, key


@pytest.mark.parametrize("path", INVENTORIES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_inventories_validate(path: Path) -> None:
    load_inventory(path)
    jsonschema.validate(YAML(typ="safe").load(path.read_text(encoding="utf-8")), SCHEMA)


@pytest.mark.parametrize(
    "body",
    [
        {"devices": {"leaf1": {"hots": "10.0.0.1"}}},
        {"devices": {"leaf1": {"port": 70000}}},
        {"intent": {"mtu": {"roce": 9000}}},
        {"intent": {"pfc_watchdog": {"action": "ignore"}}},
        {"links": [{"a": "leaf1:swp1"}]},
    ],
)
def test_schema_refuses_what_the_loader_refuses(tmp_path: Path, body: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(body, SCHEMA)
    path = tmp_path / "inventory.yaml"
    path.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(Exception, match=r"inventory\.yaml:"):
        load_inventory(path)
