"""rocetune.collect.aio_shell: learning the prompt after login, and the terminal's line ends
and escape sequences (against netmiko's own functions). Over real SSH:
tests/lab/test_switch_transport.py."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from rocetune.collect import aio_shell
from rocetune.collect.aio_shell import _learn, _Shell
from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.shell_read import Limits, Terminal

PROMPT = "admin@sw1:~$"


class FakeChannel:
    """The shell's channel: each write of a return is answered with the next scripted
    reads (a list of chunks), delivered on the event loop as asyncssh would."""

    def __init__(self, shell: _Shell, login: list[str], answers: list[list[str]]) -> None:
        self.shell, self.answers = shell, list(answers)
        self.writes: list[bytes] = []
        self.next_at = 0.0
        self._deliver(login)

    def _deliver(self, chunks: list[str]) -> None:
        """One read per chunk, 1 ms apart, after every read scheduled before (a stream
        keeps its order)."""
        loop = asyncio.get_running_loop()
        for chunk in chunks:
            self.next_at = max(self.next_at, loop.time()) + 0.001
            loop.call_at(self.next_at, self.shell.data_received, chunk.encode(), None)

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        if self.answers:
            self._deliver(self.answers.pop(0))


def _learned(
    login: list[str], answers: list[list[str]], seconds: float = 2.0, pause: float = 0.02
) -> tuple[str, int]:
    """The prompt learned and the returns sent; ``pause``: seconds the login output has
    before the learning starts. Nothing may be left unread after it."""

    async def main() -> tuple[str, int]:
        shell = _Shell()
        chan = FakeChannel(shell, login, answers)
        shell.connection_made(chan)
        await asyncio.sleep(pause)
        limits = Limits(time.monotonic() + seconds, float("inf"), 1 << 20)
        prompt = await _learn(shell, limits)
        await asyncio.sleep(0.05)
        assert not shell.held, "an answer left to run into the first command"
        return prompt, len(chan.writes)

    return asyncio.run(main())


def _echo(prompt: str = PROMPT) -> list[str]:
    return ["\r\n", prompt + " "]


def test_plain_login() -> None:
    login = ["Debian GNU/Linux 11\r\n\r\n", PROMPT + " "]
    assert _learned(login, [_echo(), _echo()]) == (PROMPT, 1)


def test_a_banner_line_cut_by_a_read_is_not_the_prompt() -> None:
    banner = ["#####\r\n# Authorized use only #\r\n####", "#####\r\n", PROMPT + " "]
    prompt, writes = _learned(banner, [_echo(), _echo()], pause=0)
    assert prompt == PROMPT
    assert writes == 2, "the cut line (####) was a candidate, not the prompt"


def test_a_coloured_prompt_cut_inside_its_escape() -> None:
    coloured = "\x1b[?2004h\x1b[01;32madmin@sw1\x1b[00m:\x1b[01;34m~\x1b[00m$ "
    cut = coloured.index("[01;34m")
    answer = ["\r\n" + coloured[:cut], coloured[cut:]]
    assert _learned([coloured], [answer, answer]) == (PROMPT, 1)


def test_prompts_run_together_then_agree() -> None:
    """Two prompts on one line are no prompt; the next answers agree."""
    answers = [["\r\n\r\n", PROMPT + " " + PROMPT + " "], _echo(), _echo()]
    assert _learned([PROMPT + " "], answers) == (PROMPT, 3)


def test_a_late_answer_is_read_before_the_first_command() -> None:
    """An answer still on its way when two prompts agreed is read and dropped."""
    answers = [[*_echo(), *_echo()], _echo()]
    assert _learned([PROMPT + " "], answers) == (PROMPT, 1)


def test_a_dropped_return_gets_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """No prompt at login: a return after ``NUDGE``; the first is dropped, so another."""
    monkeypatch.setattr(aio_shell, "NUDGE", 0.05)
    prompt, writes = _learned(["Banner\r\n"], [[], _echo(), _echo()])
    assert prompt == PROMPT
    assert writes == 3


def test_no_prompt_is_a_command_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aio_shell, "NUDGE", 0.05)
    with pytest.raises(CollectError) as info:
        _learned(["Banner without prompt\r\n"], [["no prompt here\r\n"]] * 50, seconds=0.3)
    assert info.value.reason is Reason.COMMAND_TIMEOUT
    assert info.value.detail == "no prompt after login"


def test_a_lost_connection_while_learning() -> None:
    async def main() -> None:
        shell = _Shell()
        shell.connection_made(FakeChannel(shell, [], []))
        asyncio.get_running_loop().call_later(0.01, shell.connection_lost, None)
        await _learn(shell, Limits(time.monotonic() + 5, float("inf"), 1 << 20))

    with pytest.raises(EOFError):
        asyncio.run(main())


SAMPLES = [
    "a\r\nb\r\n",
    "a\r\r\nb\n",
    "a\nb\n\rc",
    "progress 10%\rprogress 100%\r\n",
    "\x1b[01;32madmin@sw1\x1b[00m:~$ ",
    "x\x1b[Ky\x1b[2Kz\x1b[1;1Hw\x1b[?25h",
    "\x1b[?2004hadmin@sw1:~$ \x1b[?2004l\r\n",
    "line\x1bEnext",
    "\x1b[4munder\x1b[0m \x1b[7mrev\x1b[0m \x1b[1;31mred\x1b[0m",
    "Ethernet0   up\x1b[6n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_terminal_agrees_with_netmiko(text: str) -> None:
    """Line ends and the escape sequences both know come out as netmiko's linux device
    type gives them (the asyncio shell replaces netmiko's functions, not its results)."""
    from netmiko import ConnectHandler

    conn: Any = ConnectHandler(
        device_type="linux", host="192.0.2.1", username="u", password="p", auto_connect=False
    )
    theirs: Callable[[str], str] = conn.strip_ansi_escape_codes
    ours = Terminal.strip_ansi_escape_codes
    assert Terminal.normalize_linefeeds(text) == conn.normalize_linefeeds(text)
    normal = Terminal.normalize_linefeeds(text)
    assert ours(normal) == theirs(normal)
