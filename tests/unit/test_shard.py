"""``--shard i/n``: a stable split of devices by name (sha1 mod n)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune.cli import cli
from rocetune.errors import RocetuneError
from rocetune.shard import Shard, parse_shard, shard_of
from tests.paths import ROOT

PINNED = [7, 6, 7]
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


def test_shards_partition_every_name_once() -> None:
    names = [f"gpu{i:04d}" for i in range(1000)]
    parts = [Shard(i, 7).select(names) for i in range(7)]
    assert sorted(n for p in parts for n in p) == sorted(names)
    assert all(60 < len(p) < 230 for p in parts)  # roughly even


def test_shard_is_the_documented_hash() -> None:
    expected = int(hashlib.sha1(b"leaf1").hexdigest(), 16) % 4
    assert shard_of("leaf1", 4) == expected
    # pinned: a release that moved devices between shards would split a fabric differently
    assert [shard_of(n, 8) for n in ("gpu01", "leaf1", "spine2")] == PINNED
    # independent of the other names and their order
    assert "leaf1" in Shard(expected, 4).select(["x", "leaf1", "y"])


@pytest.mark.parametrize("text", ["1", "2/2", "-1/2", "a/b", "0/0", "1/2/3"])
def test_bad_shard_is_an_input_error(text: str) -> None:
    with pytest.raises(RocetuneError, match="--shard"):
        parse_shard(text)


def test_parse() -> None:
    assert parse_shard(" 3/8 ") == Shard(3, 8)
    assert str(Shard(0, 1)) == "0/1"


def _pairs(output: str) -> list[str]:
    """The client commands without their port (which depends on the round)."""
    lines = (line.strip() for line in output.splitlines() if " client: " in line)
    return sorted(re.sub(r" -p \d+", "", line) for line in lines)


def test_verify_shards_run_every_pair_once() -> None:
    runner = CliRunner()
    full = runner.invoke(cli, ["verify", str(LAB), "--dry-run", "--pairs", "all"])
    assert full.exit_code == 0, full.output
    parts = []
    for i in range(3):
        got = runner.invoke(
            cli, ["verify", str(LAB), "--dry-run", "--pairs", "all", "--shard", f"{i}/3"]
        )
        assert got.exit_code == 0, got.output
        parts += _pairs(got.output)
    # the same client commands (a pair's server may be scheduled in another round)
    assert sorted(parts) == _pairs(full.output)


def test_collect_bad_shard_exit_2(tmp_path: object) -> None:
    got = CliRunner().invoke(cli, ["collect", str(LAB), "-o", str(tmp_path), "--shard", "5/2"])
    assert got.exit_code == 2
    assert "--shard" in got.output


def test_a_shard_locks_only_itself(tmp_path: Path) -> None:
    inv = tmp_path / "inv.yaml"
    inv.write_text("devices:\n  leaf1: {platform: sonic}\n  leaf2: {platform: sonic}\n")
    out = tmp_path / "out"
    out.mkdir()
    other = json.dumps({"pid": 1, "host": "another-node", "user": "x"})
    (out / ".rocetune.lock").write_text(other)  # an unsharded run elsewhere
    args = ["collect", str(inv), "-o", str(out), "--insecure-host-keys", "--shard", "0/1"]
    runner = CliRunner()
    got = runner.invoke(cli, args)
    assert got.exit_code == 3, got.output  # ran: the devices have no host: (not collected)
    assert "no host" in got.output
    (out / ".rocetune.shard-0-of-1.lock").write_text(other)
    busy = runner.invoke(cli, args)
    assert busy.exit_code == 2
    assert "in use" in busy.output
