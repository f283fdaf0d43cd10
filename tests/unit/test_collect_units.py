"""Collector building blocks: failure reasons, credentials, atomic writes, CLI error text."""

from __future__ import annotations

import socket
from pathlib import Path

import paramiko
import pytest
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException

from rocetune.collect.credentials import CredentialError, CredentialSource
from rocetune.collect.reasons import Reason, classify
from rocetune.collect.target import Trust
from rocetune.collect.transport import check_command
from rocetune.collect.writer import write_device
from rocetune.inventory import Access
from rocetune.platforms import drivers
from rocetune.snapshot import CommandRecord, SnapshotMeta, read_directory


def _chained(outer: Exception, inner: BaseException) -> Exception:
    try:
        try:
            raise inner
        except BaseException:
            raise outer  # noqa: B904 - netmiko raises inside except blocks like this
    except Exception as exc:
        return exc


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (NetmikoAuthenticationException("...\nAuthentication failed."), Reason.AUTH_FAILED),
        (NetmikoAuthenticationException("...\nAuthentication timeout."), Reason.AUTH_TIMEOUT),
        (
            NetmikoTimeoutException("SSHException: Server '[h]:22' not found in known_hosts"),
            Reason.HOST_KEY_UNKNOWN,
        ),
        (
            NetmikoTimeoutException("Host key for server '10.0.0.1' does not match: got x"),
            Reason.HOST_KEY_MISMATCH,
        ),
        (
            _chained(
                NetmikoTimeoutException("TCP connection to device failed."),
                paramiko.ssh_exception.NoValidConnectionsError(
                    {("127.0.0.1", 22): ConnectionRefusedError(111, "refused")}
                ),
            ),
            Reason.TCP_REFUSED,
        ),
        (NetmikoTimeoutException("TCP connection to device failed."), Reason.TCP_TIMEOUT),
        (NetmikoTimeoutException("Error reading SSH protocol banner"), Reason.BANNER_TIMEOUT),
        (NetmikoTimeoutException("DNS failure--the hostname ..."), Reason.DNS),
        (socket.gaierror(-2, "Name or service not known"), Reason.DNS),
        (EOFError("closed"), Reason.DISCONNECTED),
        (ValueError("boom"), Reason.INTERNAL),
    ],
)  # fmt: skip
def test_classify(exc: Exception, reason: Reason) -> None:
    assert classify(exc).reason is reason


def test_only_transient_failures_are_retried() -> None:
    retried = {r for r in Reason if r.transient}
    assert retried == {
        Reason.TCP_REFUSED,
        Reason.TCP_TIMEOUT,
        Reason.BANNER_TIMEOUT,
        Reason.DISCONNECTED,
        Reason.SSH_ERROR,
    }


def test_credentials_from_named_variables() -> None:
    access = Access(username_env="LAB_USER", password_env="LAB_PW")
    src = CredentialSource(environ={"LAB_USER": "ops", "LAB_PW": "hunter2"})
    cred = src.resolve(access)
    assert (cred.username, cred.password, cred.use_keys) == ("ops", "hunter2", False)
    assert "hunter2" not in repr(cred)
    assert cred.secrets == ("hunter2",)


def test_no_password_and_no_terminal_is_an_error() -> None:
    src = CredentialSource(environ={"ROCETUNE_USER": "ops"}, prompt=None)
    with pytest.raises(CredentialError, match=r"\$ROCETUNE_PASSWORD"):
        src.resolve(Access())


def test_prompt_asked_once_per_variable() -> None:
    asked: list[str] = []

    def prompt(label: str) -> str:
        asked.append(label)
        return "typed"

    src = CredentialSource(environ={"ROCETUNE_USER": "ops"}, prompt=prompt)
    assert src.resolve(Access()).password == "typed"
    assert src.resolve(Access()).password == "typed"
    assert len(asked) == 1


def test_keys_need_no_password_and_key_file_must_exist(tmp_path: Path) -> None:
    key = tmp_path / "id_ed25519"
    key.write_text("not read here\n")
    src = CredentialSource(environ={"ROCETUNE_USER": "ops"}, prompt=None, base=tmp_path)
    cred = src.resolve(Access(key_file="id_ed25519"))
    assert (cred.password, cred.use_keys, cred.key_file) == (None, True, str(key))
    with pytest.raises(CredentialError, match="does not exist"):
        src.resolve(Access(key_file="missing"))


def test_trust_requires_an_existing_known_hosts(tmp_path: Path) -> None:
    from rocetune.collect.reasons import CollectError

    with pytest.raises(CollectError, match="does not exist"):
        Trust(tmp_path / "known_hosts").check()
    Trust(tmp_path / "known_hosts", insecure=True).check()
    (tmp_path / "known_hosts").write_text("")
    Trust(tmp_path / "known_hosts").check()


@pytest.mark.parametrize("command", ["show run\nreload", "show\x1b[2J", "  "])
def test_commands_with_control_characters_are_refused(command: str) -> None:
    from rocetune.collect.reasons import CollectError

    with pytest.raises(CollectError):
        check_command(command)


def _meta(name: str) -> SnapshotMeta:
    record = CommandRecord("show x", "show_x.txt", "ok", None, 0.1)
    return SnapshotMeta(name, "sonic", "2026-01-01T00:00:00Z", (record,))


def test_write_device_replaces_whole_directory(tmp_path: Path) -> None:
    write_device(
        tmp_path, "leaf1", {"show_x.txt": "old\n", "gone.txt": "x\n"}, _meta("leaf1"), durable=True
    )
    write_device(tmp_path, "leaf1", {"show_x.txt": "new\n"}, _meta("leaf1"), durable=False)
    snap = read_directory(tmp_path / "leaf1")
    assert {k: f.text for k, f in snap.files.items()} == {"show_x.txt": "new\n"}
    assert snap.meta.platform == "sonic"
    assert [p.name for p in tmp_path.iterdir()] == ["leaf1"]


def test_failed_write_keeps_previous_snapshot(tmp_path: Path) -> None:
    write_device(tmp_path, "leaf1", {"show_x.txt": "old\n"}, _meta("leaf1"), durable=False)
    with pytest.raises(ValueError, match="invalid snapshot file name"):
        write_device(
            tmp_path, "leaf1", {"ok.txt": "new\n", "../evil": "x"}, _meta("leaf1"), durable=False
        )
    assert (tmp_path / "leaf1" / "show_x.txt").read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["leaf1"], "no temporary directory left"


@pytest.mark.parametrize(
    ("platform", "output", "error"),
    [
        ("sonic", "-bash: docker: command not found\n", "-bash: docker: command not found"),
        ("cumulus", "Error: Invalid command\n", "Error: Invalid command"),
        ("sonic", '{\n  "PORT": {"Error: no": 1}\n}\n', None),
        ("eos", "% Invalid input\n", "% Invalid input"),
        ("nxos", "     ^\n% Invalid command at '^' marker.\n", "% Invalid command at '^' marker."),
        ("nxos", "!Command: show running-config\nversion 9.3(8)\n", None),
        ("linux_host", "DCBX mode: OS controlled\n", None),
    ],
)  # fmt: skip
def test_command_error(platform: str, output: str, error: str | None) -> None:
    assert drivers()[platform].command_error(output) == error


def test_progress_lines_and_bar() -> None:
    import io

    from rocetune.collect.job import Outcome
    from rocetune.collect.progress import PlainProgress, RichProgress, progress_for
    from rocetune.collect.reasons import Failure

    ok = Outcome("leaf1", "sonic", Path("x"), None, 0.5, 3, 1)
    bad = Outcome("leaf2", "sonic", failure=Failure(Reason.AUTH_FAILED, "rejected"))
    for interactive in (False, True):
        stream = io.StringIO()
        progress = progress_for(stream, interactive=interactive)
        assert isinstance(progress, RichProgress) is interactive
        assert isinstance(progress, PlainProgress)
        progress.start(2)
        progress.done(ok)
        progress.done(bad)
        progress.finish()
        text = stream.getvalue()
        assert "FAILED leaf2: auth failed: rejected" in text
        assert "collected 1/2 device(s)" in text
        assert "; 1 failed" in text
        assert ("collected leaf1 (sonic, 3 commands, 1 optional rejected" in text) != interactive


def test_progress_names_the_outstanding_devices() -> None:
    """Plain lines: after the quiet period, one line naming what is still running; the bar
    shows the last few outstanding devices at its end."""
    import io
    import time

    from rocetune.collect.job import Outcome
    from rocetune.collect.progress import PlainProgress, RichProgress, waiting_for

    assert waiting_for(["a", "b"]) == "a, b"
    assert waiting_for([f"d{i}" for i in range(8)]) == "d0, d1, d2, d3, d4 and 3 more"
    stream = io.StringIO()
    plain = PlainProgress(stream, wait_note_s=0.2)
    plain.start(3, ["leaf1", "leaf2", "h-slow"])
    plain.done(Outcome("leaf1", "sonic", Path("x"), None, 0.1, 3, 0))
    plain.done(Outcome("leaf2", "sonic", Path("x"), None, 0.1, 3, 0))
    deadline = time.monotonic() + 5
    while "waiting for" not in stream.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    plain.finish()
    assert "rocetune: waiting for 1 device(s): h-slow" in stream.getvalue()
    bar = RichProgress(io.StringIO())
    bar.start(5, ["a", "b", "c", "d", "e"])
    assert bar._waiting() == ""
    for name in ("a", "b"):
        bar.done(Outcome(name, "sonic", Path("x"), None, 0.1, 3, 0))
    assert bar._waiting() == "waiting: c, d, e"
    bar.finish()


def test_shell_batch_framing_with_a_real_sh() -> None:
    """The exec transport's batch script, run by /bin/sh: stdout, status, stderr line."""
    import shutil
    import subprocess

    from rocetune.collect.shell_batch import Framed, exec_line, new_marker, parse

    sh = shutil.which("sh")
    assert sh is not None
    commands = [
        "printf 'a\\nb\\n'",
        "printf 'no newline'",
        "echo oops >&2; exit 3",
        "echo out; echo warn >&2",
        'echo "it\'s $((1 + 1))"',
        "printf ''",
    ]
    marker = new_marker()
    line = exec_line(commands, marker)
    run = subprocess.run([sh, "-c", line], check=True, capture_output=True, text=True)
    assert run.returncode == 0
    assert parse(run.stdout, marker) == [
        Framed("a\nb\n", 0, ""),
        Framed("no newline", 0, ""),
        Framed("", 3, "oops"),
        Framed("out\n", 0, "warn"),
        Framed("it's 2\n", 0, ""),
        Framed("", 0, ""),
    ]
    assert parse("a\nb\n", marker) == [], "no frame: nothing is reported as collected"
