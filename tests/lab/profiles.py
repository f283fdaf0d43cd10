"""Platform profiles of the SSH device lab: prompts, terminal acknowledgements, error texts.

A profile is what a network OS CLI looks like to a screen-scraping client (netmiko): the
prompt, what ``terminal width``/``terminal length`` answer (netmiko's ``arista_eos`` session
preparation waits for ``Width set to`` and ``Pagination disabled``), what an unknown command
prints, and whether output is paged (``--More--``) until ``terminal length 0``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Profile:
    """How one platform's CLI talks."""

    name: str
    prompt: str
    """Prompt format; ``{name}`` is the device name."""
    term_cmds: dict[str, str] = field(default_factory=dict)
    """Terminal-setup command -> acknowledgement text ("" = silent)."""
    paging_off: tuple[str, ...] = ()
    """Commands that turn the pager off."""
    unknown: str = "-bash: {word}: command not found"
    """What an unknown command prints ({word}: its first word, {cmd}: the whole line)."""
    banner: str = ""
    """Text printed before the first prompt."""


_LINUX_PROMPT = "admin@{name}:~$ "

PROFILES: dict[str, Profile] = {
    "sonic": Profile(
        "sonic",
        _LINUX_PROMPT,
        banner="Debian GNU/Linux 11 (SONiC)\r\n\r\n",
    ),
    "cumulus": Profile("cumulus", "cumulus@{name}:mgmt:~$ "),
    "linux_host": Profile("linux_host", "root@{name}:~# "),
    "eos": Profile(
        "eos",
        "{name}#",
        term_cmds={
            "terminal width 511": "Width set to 511 columns.",
            "terminal length 0": "Pagination disabled.",
        },
        paging_off=("terminal length 0",),
        unknown="% Invalid input",
    ),
    "nxos": Profile(
        "nxos",
        "{name}# ",
        term_cmds={"terminal width 511": "", "terminal length 0": ""},
        paging_off=("terminal length 0",),
        unknown="                 ^\r\n% Invalid command at '^' marker.",
    ),
    "onyx": Profile(
        "onyx",
        "{name} > ",
        term_cmds={"no cli session paging enable": "", "terminal length 999": ""},
        paging_off=("no cli session paging enable", "terminal length 999"),
        unknown='% Unrecognized command "{word}".\r\nType "?" for help.',
    ),
    "enterprise_sonic": Profile(
        "enterprise_sonic",
        _LINUX_PROMPT,
        term_cmds={"terminal length 0": ""},
        paging_off=("terminal length 0",),
        unknown='%Error: Invalid input detected at "^" marker.',
    ),
}
"""Platform name (as in rocetune.platforms) -> profile. Onyx lands in user mode
(``sw > ``); its ``enable``/``configure terminal``/interface modes are served by the
``onyx`` engine (tests/lab/engines/onyx.py). Enterprise SONiC's modal sonic-cli (bash login,
``sonic-cli``, ``NAME#``, ``NAME(config)#``, ``NAME(conf-if-Ethernet0)#``) is served by the
``klish`` engine (tests/lab/engines/klish.py)."""


def profile_for(platform: str) -> Profile:
    """Return the profile of ``platform`` (KeyError for an unknown platform)."""
    return PROFILES[platform]
