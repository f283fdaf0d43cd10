"""SONiC inputs of RT107 and RT208: tc_to_dscp_map, TUNNEL rewrites, `show pfc priority`."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from rocetune.platforms.base import ParseResult
from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.commands import COMMANDS, CONFIG_DB, PFC_PRIORITY
from rocetune.platforms.sonic.pfc_priority import read_pfc_priority
from rocetune.snapshot import Snapshot, SourceFile
from tests.fuzz.mutations import FUZZ_SETTINGS, mutated
from tests.fuzz.snapshots import check_parse_files

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sonic"
SHOW = (FIXTURES / "show_pfc_priority.txt").read_text()

REMARK = """{
  "PORT": {
    "Ethernet0": {"speed": "100000"},
    "Ethernet4": {"speed": "100000"},
    "Ethernet8": {"speed": "100000"}
  },
  "TC_TO_DSCP_MAP": {
    "AZURE_TUNNEL": {"0": "8", "3": "2", "4": "6", "6": "48"}
  },
  "PORT_QOS_MAP": {
    "Ethernet0": {"tc_to_dscp_map": "AZURE_TUNNEL", "pfc_enable": "3,4"},
    "Ethernet4": {"pfc_enable": "3,4"}
  },
  "TUNNEL": {
    "MuxTunnel0": {
      "tunnel_type": "IPINIP",
      "src_ip": "10.1.0.33",
      "dst_ip": "10.1.0.32",
      "dscp_mode": "pipe",
      "ttl_mode": "pipe",
      "ecn_mode": "copy_from_outer",
      "encap_tc_to_dscp_map": "AZURE_TUNNEL",
      "decap_dscp_to_tc_map": "AZURE_TUNNEL"
    },
    "IPINIP_UNIFORM": {"tunnel_type": "IPINIP", "dscp_mode": "uniform"},
    "IPINIP_PIPE": {"tunnel_type": "IPINIP", "dscp_mode": "pipe"},
    "BROKEN": {"dscp_mode": "pipe", "encap_tc_to_dscp_map": "NOPE"}
  }
}
"""

CLEAN = """{
  "PORT": {
    "Ethernet0": {"speed": "100000"},
    "Ethernet4": {"speed": "100000"},
    "Ethernet8": {"speed": "100000"}
  },
  "PORT_QOS_MAP": {
    "Ethernet0": {"pfc_enable": "3,4"},
    "Ethernet4": {"pfc_enable": "3,4"}
  }
}
"""


def _parse(outputs: dict[str, str]) -> ParseResult:
    commands = {c.id: c for c in COMMANDS}
    files = {
        commands[k].filename: SourceFile(path=commands[k].filename, text=v)
        for k, v in outputs.items()
    }
    return SONIC.parse(Snapshot(files=files, origin="t"), "sw1", "leaf")


def test_tc_to_dscp_map_is_the_port_remark() -> None:
    result = _parse({"config_db": REMARK})
    ports = result.device.ports
    assert ports["Ethernet0"].dscp_rewrite == {0: 8, 3: 2, 4: 6, 6: 48}
    assert ports["Ethernet4"].dscp_rewrite == {}
    assert ports["Ethernet8"].dscp_rewrite == {}  # no PORT_QOS_MAP entry: nothing bound
    assert all(p.dscp_rewrite_on_ingress is True for p in ports.values())
    ref = result.provenance.lookup("ports.Ethernet0.dscp_rewrite.3")
    assert ref is not None
    assert ref.line == 8  # the map entry that writes TC 3


def test_tunnel_outer_dscp() -> None:
    result = _parse({"config_db": REMARK})
    dev = result.device
    assert dev.tunnel_dscp_rewrite == {
        "MuxTunnel0": {0: 8, 3: 2, 4: 6, 6: 48},
        "IPINIP_UNIFORM": {},
        "IPINIP_PIPE": None,
        "BROKEN": None,
    }
    ref = result.provenance.lookup("tunnel_dscp_rewrite.IPINIP_PIPE")
    assert ref is not None
    assert ref.line == 26
    assert [(u.item, u.reason, u.line) for u in dev.unparsed] == [
        ("TUNNEL|MuxTunnel0 ecn_mode", "TUNNEL field 'ecn_mode' is not modelled by rocetune", 21),
        (
            "TUNNEL|MuxTunnel0 decap_dscp_to_tc_map",
            "TUNNEL field 'decap_dscp_to_tc_map' is not modelled by rocetune",
            23,
        ),
        ("TC_TO_DSCP_MAP|NOPE", "TC_TO_DSCP_MAP has no entry 'NOPE'", 27),
    ]


def test_tunnels_known_absent_only_in_a_whole_config() -> None:
    whole = _parse({"config_db": '{"PORT": {"Ethernet0": {"speed": "100000"}}}'}).device
    assert whole.tunnel_dscp_rewrite == {}
    fragment = _parse({"config_db": '{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}'})
    assert fragment.device.tunnel_dscp_rewrite is None
    assert fragment.device.ports["Ethernet0"].dscp_rewrite == {}
    no_qos = _parse({"config_db": '{"PORT": {"Ethernet0": {"speed": "100000"}}}'}).device
    assert no_qos.ports["Ethernet0"].dscp_rewrite is None


def test_show_pfc_priority_is_an_optional_command() -> None:
    assert PFC_PRIORITY in COMMANDS
    assert PFC_PRIORITY.filename == "show_pfc_priority.txt"
    assert PFC_PRIORITY.required is False
    assert COMMANDS[0] is CONFIG_DB


def test_show_pfc_priority_fills_pfc_oper() -> None:
    result = _parse({"config_db": CLEAN, "pfc_priority": SHOW})
    ports = result.device.ports
    assert ports["Ethernet0"].pfc_oper == (3, 4)
    assert ports["Ethernet4"].pfc_oper == (3, 4)
    assert ports["Ethernet8"].pfc_oper == ()  # not listed: no PORT_QOS_MAP entry, no PFC
    ref = result.provenance.lookup("ports.Ethernet4.pfc_oper")
    assert ref is not None
    assert (ref.file, ref.line) == (PFC_PRIORITY.filename, 5)
    assert result.device.unparsed == ()


def test_without_the_output_pfc_oper_stays_unknown() -> None:
    ports = _parse({"config_db": CLEAN}).device.ports
    assert {p.pfc_oper for p in ports.values()} == {None}
    empty = _parse({"config_db": CLEAN, "pfc_priority": "\n"}).device.ports
    assert {p.pfc_oper for p in empty.values()} == {None}


MULTI = """Namespace asic0
Interface    Lossless priorities
-----------  ---------------------
Ethernet0    N/A
Ethernet4    3,9
global       N/A

Namespace asic1
Interface    Lossless priorities
-----------  ---------------------
Ethernet8,Ethernet12  3
Ethernet99   4
garbage here and more
"""


def test_multi_asic_na_lists_and_problems() -> None:
    table = read_pfc_priority(MULTI)
    assert table.found
    assert table.ports == {
        "Ethernet0": ((), 4),
        "Ethernet4": (None, 5),
        "Ethernet8": ((3,), 11),
        "Ethernet12": ((3,), 11),
        "Ethernet99": ((4,), 12),
    }
    result = _parse({"config_db": CLEAN, "pfc_priority": MULTI})
    ports = result.device.ports
    assert (ports["Ethernet0"].pfc_oper, ports["Ethernet4"].pfc_oper) == ((), None)
    assert ports["Ethernet8"].pfc_oper == (3,)
    unparsed = [(u.item, u.line) for u in result.device.unparsed]
    assert unparsed == [
        ("Ethernet4 3,9", 5),
        ("garbage here and more", 13),
        ("Ethernet12", 11),
        ("Ethernet99", 12),
    ]
    assert result.device.unparsed[3].reason == "listed by `show pfc priority` but not configured"
    refs = result.provenance.refs
    assert [refs[f"unparsed.{i}"].line for i in range(4)] == [5, 13, 11, 12]


def test_output_without_the_table_changes_nothing() -> None:
    result = _parse({"config_db": CLEAN, "pfc_priority": "Error: command not found\n"})
    assert {p.pfc_oper for p in result.device.ports.values()} == {None}
    assert [(u.item, u.line) for u in result.device.unparsed] == [
        ("Error: command not found", 1),
        ("(show pfc priority)", 1),
    ]


@FUZZ_SETTINGS
@given(mutated([SHOW, MULTI]))
def test_show_pfc_priority_mutations(text: str) -> None:
    result = check_parse_files(SONIC, {CONFIG_DB: CLEAN, PFC_PRIORITY: text})
    assert result is not None
    for port in result.device.ports.values():
        assert port.pfc_oper is None or set(port.pfc_oper) <= set(range(8))
