"""Collection's SSH connections prefer AES-GCM (paramiko checks a CTR cipher's MAC per byte
in Python): the same cipher set as paramiko's default, GCM first; host keys still verified."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import paramiko  # type: ignore[import-untyped,unused-ignore]
import pytest

from rocetune.collect.credentials import Credentials
from rocetune.collect.exec_channel import ExecTransport
from rocetune.collect.reasons import Reason, classify
from rocetune.collect.target import Target, Timeouts, Trust
from rocetune.collect.transport import NetmikoTransport
from rocetune.platforms import drivers
from tests.lab.lab import HOST, PASSWORD, USER, LabServer


def _target(lab: LabServer, name: str) -> Target:
    platform = str(lab.devices[name]["platform"])
    device_type = drivers()[platform].device_type
    return Target(name, HOST, lab.ports[name], platform, device_type, Credentials(USER, PASSWORD))


def _transport_of(session: Any) -> Any:
    conn = getattr(session, "conn", None)
    if conn is not None:
        return conn.remote_conn.get_transport()
    return session.client.get_transport()


@pytest.mark.parametrize(("name", "kind"), [("leaf1", "netmiko"), ("gpu01", "exec")])
def test_collection_connections_use_aes_gcm(
    lab: LabServer, tmp_path: Path, name: str, kind: str
) -> None:
    trust = Trust(lab.known_hosts(tmp_path / "known_hosts"))
    cls = NetmikoTransport if kind == "netmiko" else ExecTransport
    session = cls(Timeouts(read=20), trust).open(_target(lab, name))
    try:
        transport = _transport_of(session)
        assert transport.local_cipher.endswith("-gcm@openssh.com"), transport.local_cipher
        assert transport.remote_cipher.endswith("-gcm@openssh.com"), transport.remote_cipher
        offered = transport.get_security_options().ciphers
        assert set(offered) == set(paramiko.Transport._preferred_ciphers)
    finally:
        session.close()


@pytest.mark.parametrize(("name", "kind"), [("leaf1", "netmiko"), ("gpu01", "exec")])
def test_an_unknown_host_key_is_still_refused(
    lab: LabServer, tmp_path: Path, name: str, kind: str
) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("", encoding="utf-8")
    cls = NetmikoTransport if kind == "netmiko" else ExecTransport
    with pytest.raises(Exception, match="not found in known_hosts") as info:
        cls(Timeouts(read=20), Trust(empty)).open(_target(lab, name))
    assert classify(info.value).reason is Reason.HOST_KEY_UNKNOWN, classify(info.value)
