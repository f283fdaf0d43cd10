"""Reading real EOS files as the switch does: banners and ``comment`` blocks, unindented
scripts, CLI transcripts, every unconsumed line reported with its ports and features,
invalid values, lanes taken by a multi-lane speed (issue #11 items 2, 3 and 7)."""

from __future__ import annotations

from pathlib import Path

from tests.platforms.eos.eos_helpers import FIXTURES, parse_path, parse_text

QOS = FIXTURES / "corpus_avd_eos_cli_config_gen_qos.cfg"
SHOW_ALL = FIXTURES / "corpus_batfish_arista_interface_show_run_all.cfg"
REALWORLD = Path(__file__).resolve().parents[2] / "realworld" / "configs" / "eos"
INTERFACES = (
    REALWORLD / "avd_eos_cli_config_gen_ethernet_interfaces.cfg"
)  # tests/realworld/SOURCES.md
BANNERS = """\
!
banner login
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
!***!!!Unauthorized access prohibited!!!***!
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
EOF

!
banner motd
.         Switch       : $(hostname)                            .
.         Site         : DC1                      .
.         Type info for information about the device            .
.         Type help for information about the aliases           .
EOF

!
interface Ethernet1
   mtu 9214
"""
"""Lines 1-14 of aristanetworks/avd@3cac535c16978abb099f159b0bd6839536a9108c:ansible_collections/
arista/avd/molecule/eos_cli_config_gen/intended/configs/banners_without_eof.cfg (Apache-2.0)
and an interface: the banner text lines are not commands."""


def _unindented(path: Path) -> str:
    return "\n".join(line.strip() for line in path.read_text().splitlines())


def _transcript(path: Path, host: str = "sw1") -> str:
    out = [f"{host}>enable", f"{host}#configure"]
    for line in path.read_text().splitlines():
        text = line.strip()
        if not text or text.startswith("!"):
            continue
        mode = "(config)" if line == line.lstrip() else "(config-if-Et1)"
        out.append(f"{host}{mode}#{text}")
    out.append(f"{host}(config)#end")
    return "\n".join(out) + "\n"


def _items(dev: object) -> list[tuple[int | None, str]]:
    return [(u.line, u.item) for u in dev.unparsed]  # type: ignore[attr-defined]


def test_generated_interfaces_config_reports_only_the_undefined_profile() -> None:
    dev = parse_path(INTERFACES).device
    # comment ... EOF blocks, poe, link tracking and pbr policies are consumed
    assert [(u.item, u.ports, u.features) for u in dev.unparsed] == [
        ("service-profile QoS", None, ("trust",))
    ]
    assert len(dev.ports) > 40


def test_banners_are_consumed() -> None:
    dev = parse_text(BANNERS).device
    assert dev.unparsed == ()
    assert dev.ports["Ethernet1"].mtu == 9214


def test_unindented_scripts_read_like_the_running_config() -> None:
    for path in (QOS, SHOW_ALL):
        indented = parse_path(path).device
        script = parse_text(_unindented(path)).device
        assert script.ports == indented.ports, path.name
        assert _items(script) == _items(indented), path.name


def test_cli_transcript_reads_like_the_running_config() -> None:
    indented = parse_path(SHOW_ALL).device
    session = parse_text(_transcript(SHOW_ALL)).device
    assert session.hostname == indented.hostname
    assert session.ports == indented.ports
    assert _items(session) == []


def test_invalid_mtu_is_a_finding_and_the_mtu_unknown() -> None:
    text = SHOW_ALL.read_text().replace("mtu 9212", "mtu 9300", 1)
    dev = parse_text(text).device
    bad = [u for u in dev.unparsed if u.item == "mtu 9300"]
    assert len(bad) == 1
    assert bad[0].features == ("mtu",)
    [port] = [p for p in dev.ports.values() if p.name in (bad[0].ports or ())]
    assert port.mtu is None


def test_unread_interface_qos_line_leaves_trust_unknown() -> None:
    dev = parse_text("interface Ethernet1\n   mtu 9214\n   qos trust everything\n").device
    port = dev.ports["Ethernet1"]
    assert (port.trust, port.mtu) == (None, 9214)
    [item] = dev.unparsed
    assert item.ports == ("Ethernet1",)
    assert "trust" in item.features


def test_lanes_taken_by_a_multi_lane_speed_are_not_ports() -> None:
    text = (
        "interface Ethernet1/1\n   speed 400g-8\n   mtu 9214\n"
        + "".join(f"interface Ethernet1/{n}\n" for n in range(2, 9))
        + "interface Ethernet2/1\n   speed 100g-2\ninterface Ethernet2/2\ninterface Ethernet2/3\n"
        + "   speed 100g-2\ninterface Ethernet2/4\n"
    )
    dev = parse_text(text).device
    assert sorted(dev.ports) == ["Ethernet1/1", "Ethernet2/1", "Ethernet2/3"]


def test_shutdown_port_is_admin_down() -> None:
    dev = parse_text("interface Ethernet7\n   shutdown\n   mtu 9214\n").device
    assert dev.ports["Ethernet7"].admin_up is False
