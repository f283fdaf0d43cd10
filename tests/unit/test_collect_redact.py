"""Secret redaction rules per platform (rocetune/platforms/*/redact.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from rocetune.platforms import drivers
from rocetune.platforms.base import Redactor
from rocetune.snapshot import Command, Encoding

ROOT = Path(__file__).resolve().parents[2]
TEXT = Command("x", "show running-config")
JSON = Command("x", "show runningconfiguration all", "json")
YAML_CMD = Command("x", "nv config show -o yaml", "yaml")


def redactor_for(platform: str) -> Redactor:
    return drivers()[platform].redactor


@pytest.mark.parametrize(
    ("platform", "line", "expected"),
    [
        (
            "eos",
            "username admin privilege 15 role network-admin secret sha512 $6$abc$def",
            "username admin privilege 15 role network-admin secret sha512 <redacted>",
        ),
        ("eos", "enable password sha512 $6$x$y", "enable password sha512 <redacted>"),
        ("eos", "snmp-server community pub1ic ro", "snmp-server community <redacted> ro"),
        ("eos", "tacacs-server key 7 070C285F4D06", "tacacs-server key 7 <redacted>"),
        (
            "eos",
            "radius-server host 10.0.0.1 key 0 s3cr3t",
            "radius-server host 10.0.0.1 key 0 <redacted>",
        ),
        (
            "eos",
            "   neighbor 10.0.0.2 password 7 abc==",
            "   neighbor 10.0.0.2 password 7 <redacted>",
        ),
        ("eos", "ntp authentication-key 1 md5 7 1234", "ntp authentication-key 1 md5 7 <redacted>"),
        (
            "nxos",
            "snmp-server user admin network-admin auth md5 0x1234 priv 0x5678 localizedkey",
            "snmp-server user admin network-admin auth md5 <redacted> priv <redacted> localizedkey",
        ),
        ("nxos", 'tacacs-server key 7 "abc def"', 'tacacs-server key 7 "<redacted>"'),
        ("nxos", "    password 3 NxBgp", "    password 3 <redacted>"),
        (
            "nxos",
            "  ip ospf message-digest-key 1 md5 3 abc",
            "  ip ospf message-digest-key 1 md5 3 <redacted>",
        ),
    ],
)
def test_cisco_like_lines(platform: str, line: str, expected: str) -> None:
    text = f"hostname sw1\n{line}\ninterface Ethernet1\n"
    assert redactor_for(platform)(TEXT, text) == f"hostname sw1\n{expected}\ninterface Ethernet1\n"


def test_sonic_json_keeps_shape_and_lines() -> None:
    data = {
        "TACPLUS": {"global": {"passkey": "tk1"}},
        "SNMP_COMMUNITY": {"pubA": {"TYPE": "RO"}, "pubB": {"TYPE": "RW"}},
        "SNMP_COMMUNITY|flat1": {"TYPE": "RO"},
        "PORT": {"Ethernet0": {"mtu": "9100", "description": "pubA uplink"}},
        "bgpraw": "router bgp 1\n neighbor 10.0.0.1 password pw9\n",
    }
    text = json.dumps(data, indent=4)
    out = redactor_for("sonic")(JSON, text)
    assert len(out.splitlines()) == len(text.splitlines())
    got = json.loads(out)
    assert got["TACPLUS"] == {"global": {"passkey": "<redacted>"}}
    assert got["SNMP_COMMUNITY"] == {"<redacted>-1": {"TYPE": "RO"}, "<redacted>-2": {"TYPE": "RW"}}
    assert "SNMP_COMMUNITY|<redacted>-3" in got
    assert got["PORT"] == data["PORT"], "only exact secret strings are replaced"
    assert got["bgpraw"] == "router bgp 1\n neighbor 10.0.0.1 password <redacted>\n"


def test_cumulus_yaml_stays_valid() -> None:
    text = (
        "- set:\n"
        "    system:\n"
        "      aaa:\n"
        "        user:\n"
        "          cumulus:\n"
        "            hashed-password: '$6$x$y'\n"
        "    service:\n"
        "      snmp-server:\n"
        "        readonly-community:\n"
        "          pubX:\n"
        "            access:\n"
        "              any: {}\n"
        "          pubY:\n"
        "            access:\n"
        "              any: {}\n"
        "        listening-address: all\n"
    )
    out = redactor_for("cumulus")(YAML_CMD, text)
    got = YAML(typ="safe").load(out)
    snmp = got[0]["set"]["service"]["snmp-server"]
    assert list(snmp["readonly-community"]) == ["<redacted>-1", "<redacted>-2"]
    assert snmp["listening-address"] == "all"
    user = got[0]["set"]["system"]["aaa"]["user"]["cumulus"]
    assert user == {"hashed-password": "<redacted>"}


def test_nv_set_lines() -> None:
    text = (
        "nv set system aaa tacacs server 5 secret 'tac pw'\n"
        "nv set service snmp-server readonly-community pubZ access any\n"
        "nv set qos roce mode lossless\n"
    )
    assert redactor_for("cumulus")(Command("x", "nv config show -o commands"), text) == (
        "nv set system aaa tacacs server 5 secret <redacted>\n"
        "nv set service snmp-server readonly-community <redacted> access any\n"
        "nv set qos roce mode lossless\n"
    )


def test_private_keys_keep_line_count() -> None:
    text = (
        "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n-----END OPENSSH PRIVATE KEY-----\nb\n"
    )
    out = redactor_for("linux_host")(Command("x", "cat key"), text)
    assert out == (
        "a\n-----BEGIN OPENSSH PRIVATE KEY-----\n<redacted>\n<redacted>\n"
        "-----END OPENSSH PRIVATE KEY-----\nb\n"
    )


def _encoding(path: Path) -> Encoding:
    return {".json": "json", ".yaml": "yaml"}.get(path.suffix, "text")  # type: ignore[return-value]


LAB = "inventories/lab"
FIXTURE_DIRS = {
    "sonic": [f"{LAB}/snapshots/leaf1", f"{LAB}/snapshots/spine1"],
    "cumulus": ["tests/fixtures/cumulus", f"{LAB}/configs", f"{LAB}/snapshots/leaf3"],
    "eos": ["tests/fixtures/eos"],
    "nxos": ["tests/fixtures/nxos/roce_spine_running_config.txt"],
    "linux_host": ["tests/fixtures/linux_host"],
}  # fmt: skip


@pytest.mark.parametrize("platform", sorted(FIXTURE_DIRS))
def test_qos_configs_without_secrets_are_unchanged(platform: str) -> None:
    redact = redactor_for(platform)
    checked = 0
    for raw in FIXTURE_DIRS[platform]:
        base = ROOT / raw
        for path in [base] if base.is_file() else sorted(base.rglob("*")):
            if path.is_file() and path.name != "SOURCES.md":
                text = path.read_text(encoding="utf-8", errors="replace")
                assert redact(Command("x", "x", _encoding(path)), text) == text, path
                checked += 1
    assert checked > 0


def test_every_driver_has_its_own_redactor() -> None:
    from rocetune.platforms.common.redact import redact_fallback

    assert all(d.redactor is not redact_fallback for d in drivers().values())
