# ruff: noqa: E501 (the corpus is data: one syntax per line reads best)
"""The redaction corpus: credential syntaxes of the six platforms, each with a planted secret.

Every case is one way a real configuration or command output carries a secret, written in
the platform's own syntax (vendor configuration guides: Arista EOS and Cisco NX-OS
security/SNMP/routing chapters, the NVUE command reference, SONiC CONFIG_DB tables and
YANG models, MLNX_OFED/host transcripts). ``{s}`` marks the secret; each case gets its own
unique secret string so a leak names the case. A redaction failure is a test failure
(tests/hardening/test_redaction.py): the secret must be absent from the redacted output,
from every file a collection writes and from every report format.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    """One credential syntax."""

    id: str
    platform: str
    command: str
    """The collected command whose output carries it."""
    snippet: str
    """Text with ``{s}`` (CLI/YAML/transcripts) or a JSON object text (CONFIG_DB tables)."""

    def secret(self) -> str:
        """The planted secret: unique per case, looks like a real one."""
        digest = hashlib.sha1(self.id.encode()).hexdigest()[:8]
        return f"Zq{digest}x{self.id.replace('-', '')[:12]}K9"


EOS = "show running-config"
NXOS = "show running-config"
NVUE_YAML = "nv config show -o yaml"
SONIC = "show runningconfiguration all"
HOST = "mlnx_qos -i eth2"

_EOS = [
    ("user-secret-sha512", "username admin privilege 15 role network-admin secret sha512 {s}"),
    ("user-secret-0", "username ops secret 0 {s}"),
    ("user-secret-5", "username legacy secret 5 {s}"),
    ("enable-password", "enable password sha512 {s}"),
    ("enable-secret", "enable secret 5 {s}"),
    ("aaa-root-secret", "aaa root secret sha512 {s}"),
    ("snmp-community-ro", "snmp-server community {s} ro"),
    ("snmp-community-acl", "snmp-server community {s} rw SNMP-ACL"),
    ("snmp-trap-host", "snmp-server host 10.1.1.1 version 2c {s}"),
    ("snmp-trap-host-vrf", "snmp-server host 10.1.1.1 vrf MGMT traps version 2c {s}"),
    ("snmp-inform-host", "snmp-server host 10.1.1.2 informs version 2c {s}"),
    ("snmp-v3-auth", "snmp-server user ops ops-group v3 auth sha {s}"),
    ("snmp-v3-auth-priv", "snmp-server user ops2 ops-group v3 auth sha xauth priv aes {s}"),
    ("tacacs-host-key", "tacacs-server host 10.1.1.1 key 7 {s}"),
    ("tacacs-global-key", "tacacs-server key 7 {s}"),
    ("radius-host-key", "radius-server host 10.1.1.2 key 7 {s}"),
    ("radius-global-key", "radius-server key 0 {s}"),
    ("bgp-neighbor-password", "router bgp 65100\n   neighbor 10.0.0.2 password 7 {s}"),
    ("bgp-group-password", "router bgp 65100\n   neighbor SPINES password 0 {s}"),
    ("ospf-auth-key", "interface Ethernet1\n   ip ospf authentication-key 7 {s}"),
    ("ospf-md5-key", "interface Ethernet2\n   ip ospf message-digest-key 1 md5 7 {s}"),
    ("isis-auth-key", "interface Ethernet3\n   isis authentication key 7 {s}"),
    ("isis-router-key", "router isis UNDERLAY\n   authentication key 7 {s} level-2"),
    ("vrrp-text", "interface Vlan10\n   vrrp 1 peer authentication text {s}"),
    ("vrrp-legacy", "interface Vlan11\n   vrrp 2 authentication text {s}"),
    ("macsec-cak", "mac security\n   profile MACSEC1\n      key 1234abcd 7 {s}"),
    ("macsec-fallback-cak", "mac security\n   profile MACSEC2\n      key 99aa 7 {s} fallback"),
    (
        "cvp-onboarding-key",
        "daemon TerminAttr\n   exec /usr/bin/TerminAttr -cvaddr=10.9.9.9:9910 "
        "-cvauth=key,{s} -cvvrf=MGMT -taillogs\n   no shutdown",
    ),
    ("ntp-auth-key", "ntp authentication-key 1 md5 7 {s}"),
    (
        "session-shared-secret",
        "management security\n   session shared-secret profile P\n      secret 0 {s} infinite infinite",
    ),
    (
        "pim-neighbor-password",
        "router pim sparse-mode\n   ipv4\n      neighbor 10.0.0.9 password 7 {s}",
    ),
    ("key-chain-key", "key chain KC1\n   key 1 key-string 7 {s}"),
]

_NXOS = [
    ("user-password-5", "username admin password 5 {s}  role network-admin"),
    ("user-password-0", "username ops password 0 {s} role network-operator"),
    ("user-password-plain", "username tmp password {s} role network-operator"),
    ("snmp-community-group", "snmp-server community {s} group network-operator"),
    ("snmp-community-ro", "snmp-server community {s} ro"),
    ("snmp-trap-host", "snmp-server host 10.1.1.1 traps version 2c {s}"),
    ("snmp-inform-host", "snmp-server host 10.1.1.2 informs version 2c {s} udp-port 162"),
    ("snmp-user-auth", "snmp-server user ops network-admin auth sha {s}"),
    ("snmp-user-priv", "snmp-server user ops2 network-admin auth sha xauth priv aes-128 {s}"),
    ("snmp-user-localized", "snmp-server user ops3 network-admin auth md5 {s} localizedkey"),
    ("tacacs-host-key", 'tacacs-server host 10.1.1.1 key 7 "{s}"'),
    ("tacacs-global-key", 'tacacs-server key 7 "{s}"'),
    ("radius-host-key", 'radius-server host 10.1.1.2 key 7 "{s}" authentication accounting'),
    ("radius-global-key", "radius-server key 0 {s}"),
    ("bgp-neighbor-password", "router bgp 65100\n  neighbor 10.0.0.9\n    password 3 {s}"),
    ("bgp-template-password", "router bgp 65100\n  template peer SPINE\n    password 0 {s}"),
    ("ospf-auth-key", "interface Ethernet1/1\n  ip ospf authentication-key 3 {s}"),
    ("ospf-md5-key", "interface Ethernet1/2\n  ip ospf message-digest-key 1 md5 3 {s}"),
    ("hsrp-md5-key-string", "interface Vlan10\n  hsrp 10\n    authentication md5 key-string {s}"),
    ("hsrp-text", "interface Vlan11\n  hsrp 11\n    authentication text {s}"),
    ("vrrp-text", "interface Vlan12\n  vrrp 12\n    authentication text {s}"),
    ("key-chain-key-string", "key chain KC1\n  key 1\n    key-string 7 {s}"),
    ("isis-key-chain-string", "key chain ISIS\n  key 0\n    key-string {s}"),
    ("ntp-auth-key", "ntp authentication-key 1 md5 {s} 7"),
    (
        "macsec-cak",
        "key chain KC-MACSEC macsec\n  key 01\n    key-octet-string 7 {s} "
        "cryptographic-algorithm AES_256_CMAC",
    ),
    (
        "eigrp-key",
        "interface Vlan20\n  ip authentication key-chain eigrp 1 KC1\nkey chain K2\n  key 2\n    key-string 7 {s}",
    ),
    ("ldap-password", "ldap-server host 10.1.1.3 rootDN cn=admin password 7 {s} port 389"),
    ("pim-hello-auth", "interface Vlan30\n  ip pim hello-authentication ah-md5 3 {s}"),
]

_NVUE = [
    (
        "user-hashed-password",
        "system:\n  aaa:\n    user:\n      netops:\n        hashed-password: '{s}'",
    ),
    ("user-password", "system:\n  aaa:\n    user:\n      ops:\n        password: {s}"),
    (
        "tacacs-secret",
        "system:\n  aaa:\n    tacacs:\n      server:\n        '6':\n          secret: {s}",
    ),
    (
        "radius-key",
        "system:\n  aaa:\n    radius:\n      server:\n        10.1.1.7:\n          key: {s}",
    ),
    (
        "snmp-ro-community",
        "service:\n  snmp-server:\n    readonly-community:\n      {s}:\n        access:\n          any: {{}}",
    ),
    (
        "snmp-trap-community",
        "service:\n  snmp-server:\n    trap-destination:\n      10.1.1.1:\n        vrf:\n"
        "          mgmt:\n            community-password:\n              {s}:\n                version: 2c",
    ),
    (
        "snmp-user-auth",
        "service:\n  snmp-server:\n    username:\n      ops:\n        auth-sha:\n          {s}: {{}}",
    ),
    (
        "snmp-user-encrypt",
        "service:\n  snmp-server:\n    username:\n      ops2:\n        encrypt-aes:\n          {s}: {{}}",
    ),
    (
        "bgp-neighbor-password",
        "vrf:\n  default:\n    router:\n      bgp:\n        neighbor:\n          10.0.0.1:\n            password: {s}",
    ),
    (
        "ospf-md5-key",
        "interface:\n  swp1:\n    router:\n      ospf:\n        authentication:\n          md5-key: {s}",
    ),
    (
        "multiline-private-key",
        "system:\n  api:\n    certificate:\n      web:\n        private-key: |\n"
        "          -----BEGIN PRIVATE KEY-----\n          {s}\n          -----END PRIVATE KEY-----",
    ),
    (
        "multiline-password-block",
        "system:\n  aaa:\n    user:\n      svc:\n        password: >-\n          {s}",
    ),
]

_NVSET = [
    ("nvset-user-password", "nv set system aaa user ops password {s}"),
    ("nvset-hashed-password", "nv set system aaa user cumulus hashed-password '{s}'"),
    ("nvset-tacacs-secret", "nv set system aaa tacacs server 5 secret {s}"),
    ("nvset-radius-key", "nv set system aaa radius server 10.1.1.6 key {s}"),
    ("nvset-snmp-ro", "nv set service snmp-server readonly-community {s} access any"),
    (
        "nvset-snmp-trap",
        "nv set service snmp-server trap-destination 10.1.1.1 vrf mgmt community-password {s} version 2c",
    ),
    ("nvset-snmp-auth", "nv set service snmp-server username ops auth-sha {s}"),
    ("nvset-bgp-password", "nv set vrf default router bgp neighbor 10.0.0.1 password {s}"),
    ("nvset-ospf-md5", "nv set interface swp1 router ospf authentication md5-key {s}"),
]

_SONIC = [
    ("tacplus-global", '{"TACPLUS": {"global": {"auth_type": "pap", "passkey": "{s}"}}}'),
    ("tacplus-server", '{"TACPLUS_SERVER": {"10.1.1.11": {"priority": "1", "passkey": "{s}"}}}'),
    ("radius-global", '{"RADIUS": {"global": {"passkey": "{s}"}}}'),
    ("radius-server", '{"RADIUS_SERVER": {"10.1.1.2": {"passkey": "{s}"}}}'),
    ("snmp-community", '{"SNMP_COMMUNITY": {"{s}": {"TYPE": "RO"}}}'),
    ("snmp-user-auth", '{"SNMP_USER": {"corpus-ops": {"SNMP_USER_AUTH_PASSWORD": "{s}"}}}'),
    ("snmp-user-priv", '{"SNMP_USER": {"corpus-ops2": {"SNMP_USER_ENCRYPTION_PASSWORD": "{s}"}}}'),
    ("ntp-key", '{"NTP_KEY": {"1": {"type": "md5", "value": "{s}", "trusted": "yes"}}}'),
    (
        "macsec-primary-cak",
        '{"MACSEC_PROFILE": {"m1": {"primary_ckn": "6162", "primary_cak": "{s}"}}}',
    ),
    (
        "macsec-fallback-cak",
        '{"MACSEC_PROFILE": {"m2": {"fallback_ckn": "6364", "fallback_cak": "{s}"}}}',
    ),
    (
        "bgp-neighbor-password-field",
        '{"BGP_NEIGHBOR": {"10.0.0.1": {"asn": "65200", "password": "{s}"}}}',
    ),
    ("bgpraw-password", '{"bgpraw": "router bgp 65001\\n neighbor 10.0.0.1 password {s}\\n!\\n"}'),
    (
        "bgpraw-pem",
        '{"bgpraw": "-----BEGIN RSA PRIVATE KEY-----\\n{s}\\n-----END RSA PRIVATE KEY-----\\n"}',
    ),
    ("numeric-passkey", '{"TACPLUS": {"global2": {"passkey": 8{n}}}}'),
    ("ldap-bind-password", '{"LDAP": {"global": {"bind_password": "{s}"}}}'),
    ("flat-tacplus", '{"TACPLUS_SERVER|10.1.1.9": {"passkey": "{s}"}}'),
    ("flat-snmp-community", '{"SNMP_COMMUNITY|{s}": {"TYPE": "RW"}}'),
    (
        "kdump-ssh-password",
        '{"KDUMP": {"config": {"remote": "true", "ssh_string": "root@10.1.1.5", "ssh_password": "{s}"}}}',
    ),
]

_HOST = [
    (
        "pem-in-output",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----",
    ),
    ("env-password", "ROCETUNE_PASSWORD={s}"),
    ("export-password", "export IPMI_PASSWORD={s}"),
    ("sshpass", "sshpass -p {s} ssh root@gpu02"),
    ("curl-basic", "curl -u admin:{s} https://bmc/redfish/v1"),
    ("bearer-token", "Authorization: Bearer {s}"),
    ("password-colon", "password: {s}"),
    ("ipmitool", "ipmitool -I lanplus -H 10.9.9.9 -U admin -P {s} chassis status"),
    ("mysql-p", "mysql -uroot -p{s} -e 'select 1'"),
]

ONYX = "show running-config"
_ONYX = [
    ("user-password-7", "   username admin password 7 $6${s}"),
    ("user-password-0", "   username monitor password 0 {s}"),
    ("user-password-plain", "username ops password {s}"),
    ("snmp-community", "   snmp-server community {s} ro"),
    ("snmp-community-rw", "   snmp-server community {s} rw"),
    ("snmp-v3-auth", "   snmp-server user ops v3 auth sha {s} priv aes-128 xprivkey"),
    ("snmp-v3-priv", "   snmp-server user ops2 v3 auth sha xauthkey priv aes-128 {s}"),
    ("radius-key", "   radius-server key {s}"),
    ("radius-host-key", "   radius-server host 10.1.1.2 key {s}"),
    ("tacacs-key", "   tacacs-server key {s}"),
    ("tacacs-host-key", "   tacacs-server host 10.1.1.1 key 7 {s}"),
    ("ldap-bind", "   ldap bind-password {s}"),
    ("web-proxy", "   web proxy auth basic password {s}"),
    ("ntp-key", "   ntp authentication-key 1 md5 {s}"),
    ("prompted-user", "switch (config) # username admin password {s}"),
]
"""Onyx running-config forms (NVIDIA Onyx User Manual, user accounts, SNMP, AAA and NTP
commands; the running-config prints local user hashes as ``password 7 <hash>``)."""
ESONIC = "show running-configuration"
_ESONIC = [
    ("username-hash", "username admin password {s} role admin"),
    ("username-encrypted", "username ops password {s} encrypted role operator"),
    ("tacacs-host-key", "tacacs-server host 10.1.1.1 key {s} encrypted"),
    ("tacacs-global-key", "tacacs-server key {s} encrypted"),
    ("radius-host-key", "radius-server host 10.1.1.2 auth-port 1812 key {s} encrypted"),
    ("radius-global-key", "radius-server key {s}"),
    ("snmp-community", "snmp-server community {s} group ro-group"),
    ("snmp-host-community", "snmp-server host 10.9.9.9 community {s} traps"),
    (
        "snmp-user-auth",
        "snmp-server user ops group g1 encrypted auth sha auth-password {s} priv aes-128 priv-password xyz",
    ),
    (
        "snmp-user-priv",
        "snmp-server user ops2 group g1 auth md5 auth-password abc priv aes-128 priv-password {s}",
    ),
    ("ldap-bindpw", "ldap-server nss bindpw {s} encrypted"),
    ("mfa-client-secret", "mfa client-secret {s} encrypted"),
    ("mfa-key-seed", "mfa key-seed {s} encrypted"),
    ("ntp-key", "ntp authentication-key 20 sha2-256 {s} encrypted"),
    ("bgp-neighbor-password", "router bgp 65001\n neighbor 10.0.0.1\n  password {s} encrypted"),
    ("ospf-auth-key", "interface Eth1/1\n ip ospf authentication-key {s} encrypted 10.10.120.1"),
    ("ospf-md5", "interface Eth1/2\n ip ospf message-digest-key 10 md5 {s} encrypted 10.19.119.1"),
    ("salted-blob-line", "mfa client-secret\n U2FsdGVkX1{s}"),
]

CASES: tuple[Case, ...] = (
    *(Case(f"eos-{i}", "eos", EOS, t) for i, t in _EOS),
    *(Case(f"nxos-{i}", "nxos", NXOS, t) for i, t in _NXOS),
    *(Case(f"nvue-{i}", "cumulus", NVUE_YAML, t) for i, t in _NVUE),
    *(Case(f"cumulus-{i}", "cumulus", "nv config show -o commands", t) for i, t in _NVSET),
    *(Case(f"sonic-{i}", "sonic", SONIC, t) for i, t in _SONIC),
    *(Case(f"host-{i}", "linux_host", HOST, t) for i, t in _HOST),
    *(Case(f"onyx-{i}", "onyx", ONYX, t) for i, t in _ONYX),
    *(Case(f"esonic-{i}", "enterprise_sonic", ESONIC, t) for i, t in _ESONIC),
)


def planted(case: Case) -> tuple[str, str]:
    """(snippet with the secret, the secret as it appears in the output)."""
    s = case.secret()
    if "{n}" in case.snippet:
        digits = str(int(hashlib.sha1(case.id.encode()).hexdigest()[:7], 16)).rjust(9, "7")
        return case.snippet.replace("{n}", digits), "8" + digits
    return case.snippet.replace("{s}", s).replace("{{}}", "{}"), s


def merged_json(cases: list[Case]) -> str:
    """The SONiC cases merged into one CONFIG_DB document."""
    doc: dict[str, Any] = {}
    for case in cases:
        text, _ = planted(case)
        for table, body in json.loads(text).items():
            if isinstance(body, dict):
                doc.setdefault(table, {}).update(body)
            else:
                doc[table] = body if table not in doc else doc[table] + body
    return json.dumps(doc, indent=4, sort_keys=True) + "\n"
