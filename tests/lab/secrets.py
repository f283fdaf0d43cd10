"""Outputs with planted secrets for the lab: SONiC, Cumulus, EOS, NX-OS and Enterprise SONiC.

Each builder takes a real lab/fixture output, adds credentials in the platform's own syntax
and returns the new text; :data:`PLANTED` lists every secret string, which must never
appear in anything rocetune writes or prints.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.hardening.redaction_corpus import CASES, Case, merged_json, planted
from tests.lab.lab import FIXTURES, LAB_INVENTORY
from tests.paths import CORPUS

ROOT_REALWORLD = FIXTURES.parent / "realworld" / "configs"

SNAPSHOTS = LAB_INVENTORY.parent / "snapshots"

PLANTED: dict[str, str] = {
    "sonic_tacacs": "TacKey-s0n1c-9f2",
    "sonic_radius": "RadKey-s0n1c-77a",
    "sonic_community": "c0mmunity-s0nic-RO",
    "sonic_snmp_auth": "SnmpAuth-s0nic-11",
    "sonic_snmp_priv": "SnmpPriv-s0nic-22",
    "sonic_bgp": "BgpPw-frr-5150",
    "sonic_pem": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7s0n1c",
    "eos_hash": "$6$Ar1sta$Zq9vYt1T3sLx0.hashhash/EOS",
    "eos_enable": "$6$En4ble$enableHashEOS",
    "eos_community": "c0mmunity-e0s-RW",
    "eos_tacacs": "070C285F4D06E0S",
    "eos_bgp": "BgpPw-e0s-7",
    "eos_snmp_auth": "AuthE0sKey99",
    "cumulus_hash": "$6$cUmUlUs$hashedpasswordCL59",
    "cumulus_tacacs": "TacSecret-cumulus-3",
    "cumulus_community": "c0mmunity-cumu1us",
    "cumulus_radius": "RadKey-cumulus-4",
    "nxos_hash": "$5$NxOs$passwordHashNXOS",
    "nxos_tacacs": "NxTacKey-8",
    "nxos_community": "c0mmunity-nx0s",
    "nxos_bgp": "NxBgpPw-3",
}
del PLANTED["sonic_radius"]  # RADIUS has one `global` entry: the corpus case plants it
PLANTED.update({c.id: planted(c)[1] for c in CASES if c.command != "nv config show -o commands"})
"""Name -> secret string (the hand-written ones above and the redaction corpus, whose
``nv set`` cases are unit-tested only: Cumulus is collected as NVUE YAML)."""


def _corpus(platform: str, command: str | None = None) -> list[Case]:
    return [
        c for c in CASES if c.platform == platform and (command is None or c.command == command)
    ]


def _cli_lines(platform: str) -> str:
    return "".join(planted(c)[0] + "\n!\n" for c in _corpus(platform))


def sonic_config() -> str:
    """leaf1's CONFIG_DB plus TACACS+, RADIUS, SNMP and a bgpraw with passwords."""
    p = PLANTED
    data: dict[str, Any] = json.loads(
        (SNAPSHOTS / "leaf1" / "show_runningconfiguration_all.json").read_text(encoding="utf-8")
    )
    data["TACPLUS"] = {"global": {"auth_type": "pap", "passkey": p["sonic_tacacs"]}}
    data["TACPLUS_SERVER"] = {"10.1.1.1": {"priority": "1", "passkey": p["sonic_tacacs"]}}
    # RADIUS global comes from the redaction corpus (sonic-radius-global)
    data["SNMP_COMMUNITY"] = {p["sonic_community"]: {"TYPE": "RO"}}
    data["SNMP_USER"] = {
        "ops": {
            "SNMP_USER_AUTH_PASSWORD": p["sonic_snmp_auth"],
            "SNMP_USER_ENCRYPTION_PASSWORD": p["sonic_snmp_priv"],
        }
    }
    data.update(
        {
            k: {**data.get(k, {}), **v} if isinstance(v, dict) else v
            for k, v in json.loads(merged_json(_corpus("sonic"))).items()
            if k != "bgpraw"
        }
    )
    data["bgpraw"] = (
        "router bgp 65001\n"
        f" neighbor 10.0.0.1 password {p['sonic_bgp']}\n"
        "!\n"
        "-----BEGIN RSA PRIVATE KEY-----\n"
        f"{p['sonic_pem']}\n"
        "-----END RSA PRIVATE KEY-----\n"
        + "".join(
            json.loads(planted(c)[0])["bgpraw"] for c in _corpus("sonic") if "bgpraw" in c.snippet
        )
    )
    return json.dumps(data, indent=4, sort_keys=True) + "\n"


def eos_config() -> str:
    """The EOS fixture running-config plus users, SNMP, TACACS+ and BGP secrets."""
    p = PLANTED
    text = (FIXTURES / "eos" / "roce_spine" / "show_running_config.txt").read_text(encoding="utf-8")
    extra = (
        f"username admin privilege 15 role network-admin secret sha512 {p['eos_hash']}\n"
        f"enable password sha512 {p['eos_enable']}\n"
        f"snmp-server community {p['eos_community']} rw\n"
        f"snmp-server user ops ops-group v3 auth sha {p['eos_snmp_auth']} priv aes "
        f"{p['eos_snmp_auth']}\n"
        f"tacacs-server host 10.1.1.1 key 7 {p['eos_tacacs']}\n"
        "router bgp 65100\n"
        f"   neighbor 10.0.0.2 password 7 {p['eos_bgp']}\n"
        "!\n"
    ) + _cli_lines("eos")
    return text.replace("\nend", "\n" + extra + "end", 1)


def cumulus_config() -> str:
    """leaf3's NVUE YAML plus a local user hash, TACACS+/RADIUS keys and SNMP community."""
    p = PLANTED
    yaml = YAML(typ="rt")
    data = yaml.load((SNAPSHOTS / "leaf3" / "nv_config_show_o_yaml.yaml").read_text("utf-8"))
    top = data[1]["set"]
    top["system"]["aaa"] = {
        "user": {"cumulus": {"hashed-password": p["cumulus_hash"], "role": "system-admin"}},
        "tacacs": {"server": {"5": {"host": "10.1.1.5", "secret": p["cumulus_tacacs"]}}},
        "radius": {"server": {"10.1.1.6": {"key": p["cumulus_radius"]}}},
    }
    top["service"] = {
        "snmp-server": {
            "enable": "on",
            "readonly-community": {p["cumulus_community"]: {"access": {"any": {}}}},
        }
    }
    for case in _corpus("cumulus", "nv config show -o yaml"):
        _merge(top, yaml.load(planted(case)[0]))
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _merge(into: Any, more: Any) -> None:
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def host_output() -> str:
    """gpu01's ``mlnx_qos -i eth2`` followed by a transcript that carries credentials."""
    text = (FIXTURES / "linux_host" / "gpu01" / "mlnx_qos_i_eth2.txt").read_text("utf-8")
    return text + "".join(planted(c)[0] + "\n" for c in _corpus("linux_host"))


def nxos_config() -> str:
    """The NX-OS fixture running-config plus user, SNMP, TACACS+ and BGP secrets."""
    p = PLANTED
    text = (FIXTURES / "nxos" / "roce_spine_running_config.txt").read_text(encoding="utf-8")
    return (
        text
        + (
            f"username admin password 5 {p['nxos_hash']}  role network-admin\n"
            f'tacacs-server host 10.1.1.1 key 7 "{p["nxos_tacacs"]}"\n'
            f"snmp-server community {p['nxos_community']} group network-operator\n"
            "router bgp 65100\n"
            "  neighbor 10.0.0.9\n"
            f"    password 3 {p['nxos_bgp']}\n"
        )
        + _cli_lines("nxos")
    )


def onyx_config() -> str:
    """A real Onyx running-config (tests/realworld) plus the Onyx corpus credentials."""
    real = ROOT_REALWORLD / "onyx" / "ansible_onyx_config_ufm_switch16.cfg"
    return real.read_text(encoding="utf-8") + "\n" + _cli_lines("onyx").replace("\n!\n", "\n")


def esonic_config() -> str:
    """The AMD Enterprise SONiC sample plus every sonic-cli credential syntax of the corpus."""
    text = (CORPUS / "enterprise_sonic" / "amd_rocm_z9664f_dcqcn_running_config.txt").read_text(
        encoding="utf-8"
    )
    return text + _cli_lines("enterprise_sonic")


def secret_devices(directory: Path) -> dict[str, dict[str, Any]]:
    """Lab devices serving the planted outputs (files written under ``directory``)."""
    directory.mkdir(parents=True, exist_ok=True)
    plans = {
        "s-sonic": ("sonic", "show runningconfiguration all", sonic_config()),
        "s-cumulus": ("cumulus", "nv config show -o yaml", cumulus_config()),
        "s-eos": ("eos", "show running-config", eos_config()),
        "s-nxos": ("nxos", "show running-config", nxos_config()),
        "s-host": ("linux_host", "mlnx_qos -i eth2", host_output()),
        "s-onyx": ("onyx", "show running-config", onyx_config()),
    }
    devices: dict[str, dict[str, Any]] = {}
    for name, (platform, command, text) in plans.items():
        path = directory / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        devices[name] = {"platform": platform, "files": {command: str(path)}}
        if platform == "linux_host":
            devices[name]["snapshot"] = str(FIXTURES / "linux_host" / "gpu01")
        if platform == "onyx":  # lands in user mode: the engine serves `enable`
            devices[name]["engine"] = {"kind": "onyx"}
    path = directory / "s-esonic.txt"
    path.write_text(esonic_config(), encoding="utf-8")
    devices["s-esonic"] = {
        "platform": "enterprise_sonic",
        "files": {"show running-configuration": str(path)},
        "engine": {"kind": "klish", "running": str(path)},
    }
    return devices
