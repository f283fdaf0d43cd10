"""One emulated device: its settings, fault knobs, and the answer to each command.

A device answers a command with the snapshot file named by
:func:`rocetune.snapshot.command_filename` (``.txt``, ``.json`` or ``.yaml``) in its
``snapshot`` directory, unless ``files`` (command -> file) or ``outputs`` (command -> text)
override it. Anything else is an unknown command.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rocetune.snapshot import command_filename
from tests.lab.profiles import Profile, profile_for

Echo = Literal["device", "tty"]


@dataclass
class DeviceSpec:
    """A device of the lab, as given in the server's JSON config."""

    name: str
    platform: str
    username: str = "admin"
    password: str = "lab-password"
    snapshot: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()
    """Commands answered as unknown even when a file exists (fault knob)."""
    latency_ms: float = 0.0
    """Sleep before answering every non-empty line (terminal setup included)."""
    command_latency_ms: dict[str, float] = field(default_factory=dict)
    """Extra per-command latency (a slow ``show running-config``)."""
    auth: Literal["ok", "reject"] = "ok"
    auth_delay_s: float = 0.0
    disconnect_on: str | None = None
    """Close the connection half-way through this command's output."""
    tarpit: bool = False
    """Accept TCP and never send an SSH banner."""
    refuse: bool = False
    """Bind a port but never listen: connections are refused."""
    pager: bool = False
    """Page output (``--More--``) until a paging-off command is sent."""
    echo: Echo = "device"
    authorized_keys: str | None = None
    """An OpenSSH authorized_keys file enabling public-key auth."""
    perftest: dict[str, dict[str, Any]] = field(default_factory=dict)
    """perftest behaviour by ``TOOL`` / ``TOOL RDMADEV`` (see :mod:`tests.lab.perftest`)."""
    counter_growth: dict[str, dict[str, int]] = field(default_factory=dict)
    """Netdev or RDMA device -> counter -> growth per read of its counters."""
    hostile: Literal["drip", "flood", "no_sh"] | None = None
    """A hostile peer (tests/hardening): ``drip`` answers ``hostile_on`` one byte at a
    time forever; ``flood`` answers it with ``flood_mib`` MiB; ``no_sh`` has no POSIX sh
    (batched exec commands fail with exit 127)."""
    hostile_on: str | None = None
    flood_mib: int = 80
    engine: dict[str, Any] | None = None
    """A stateful engine serving this device (``{"kind": ..., options}``; tests/lab/engines)."""

    @classmethod
    def from_json(cls, name: str, data: dict[str, Any]) -> DeviceSpec:
        """Build a spec from its JSON object."""
        known = set(cls.__dataclass_fields__)
        extra = set(data) - known
        if extra:
            msg = f"device {name}: unknown keys {sorted(extra)}"
            raise ValueError(msg)
        spec = cls(name=name, **{k: v for k, v in data.items() if k != "name"})
        spec.unknown = tuple(spec.unknown)
        return spec

    @property
    def profile(self) -> Profile:
        """The platform profile."""
        return profile_for(self.platform)

    @property
    def prompt(self) -> str:
        """The prompt this device prints."""
        return self.profile.prompt.format(name=self.name)


class Answers:
    """Canned outputs of one device, read once and cached."""

    def __init__(self, spec: DeviceSpec) -> None:
        self.spec = spec
        self._cache: dict[str, str | None] = {}

    def _find(self, command: str) -> str | None:
        spec = self.spec
        if command in spec.unknown:
            return None
        if command in spec.outputs:
            return spec.outputs[command]
        if command in spec.files:
            return Path(spec.files[command]).read_text(encoding="utf-8")
        if spec.snapshot is None:
            return None
        try:
            stem = command_filename(command, "text").removesuffix(".txt")
        except ValueError:
            return None
        for ext in (".txt", ".json", ".yaml"):
            path = Path(spec.snapshot) / (stem + ext)
            if path.is_file():
                return path.read_text(encoding="utf-8")
        return None

    def get(self, command: str) -> str | None:
        """The output of ``command``, or None when the device does not know it."""
        if command not in self._cache:
            self._cache[command] = self._find(command)
        return self._cache[command]

    def unknown_text(self, command: str) -> str:
        """What the CLI prints for an unknown command."""
        word = command.split(maxsplit=1)[0] if command.split() else command
        return self.spec.profile.unknown.format(word=word, cmd=command)
