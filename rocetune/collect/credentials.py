"""Credentials: from the environment variables an inventory names, SSH keys, or a prompt.

Never from the command line, never logged, never written: :class:`Credentials` hides its
password from ``repr``; callers pass it only to the SSH library. A password is asked for
at most once per environment variable (on a TTY only) and reused for every device naming
that variable.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rocetune.inventory import Access

DEFAULT_USER_ENV = "ROCETUNE_USER"
DEFAULT_PASSWORD_ENV = "ROCETUNE_PASSWORD"

Prompt = Callable[[str], str]


@dataclass(frozen=True)
class Credentials:
    """How to authenticate to one device."""

    username: str
    password: str | None = field(default=None, repr=False)
    use_keys: bool = False
    """Try the SSH agent and the default key files (``~/.ssh/id_*``)."""
    key_file: str | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """Strings that must never appear in a message or a file."""
        return (self.password,) if self.password else ()


class CredentialError(Exception):
    """No usable credentials for a device (a configuration problem, not a device failure)."""


@dataclass
class CredentialSource:
    """Resolves credentials for devices; caches prompted values per variable name."""

    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    prompt: Prompt | None = None
    """Asks for a secret (None: never prompt). Default on a TTY: getpass."""
    base: Path | None = None
    """Directory relative ``key_file`` paths are resolved against (the inventory's)."""
    _asked: dict[str, str] = field(default_factory=dict)

    @classmethod
    def default(cls, base: Path | None = None) -> CredentialSource:
        """Environment variables, plus a getpass prompt on a terminal (stdin and stderr)."""
        interactive = all(s is not None and s.isatty() for s in (sys.stdin, sys.stderr))
        return cls(prompt=getpass.getpass if interactive else None, base=base)

    def _lookup(self, env: str, label: str, secret: bool) -> str | None:
        value = self.environ.get(env)
        if value:
            return value
        if env in self._asked:
            return self._asked[env]
        if self.prompt is None:
            return None
        ask = self.prompt if secret else input
        value = ask(f"{label} (${env} is not set): ")
        self._asked[env] = value
        return value or None

    def _key_file(self, access: Access) -> str | None:
        if access.key_file is None:
            return None
        path = Path(access.key_file).expanduser()
        if not path.is_absolute() and self.base is not None:
            path = self.base / path
        if not path.is_file():
            msg = f"key_file {access.key_file!r} does not exist"
            raise CredentialError(msg)
        return str(path)

    def resolve(self, access: Access) -> Credentials:
        """Credentials for a device with these access settings; CredentialError if none."""
        user_env = access.username_env or DEFAULT_USER_ENV
        pass_env = access.password_env or DEFAULT_PASSWORD_ENV
        key_file = self._key_file(access)
        use_keys = bool(access.use_keys) or key_file is not None
        username = access.username or self._lookup(user_env, "SSH username", secret=False)
        if username is None:
            if access.ssh_config is None:
                msg = f"no username: set ${user_env}"
                raise CredentialError(msg)
            username = ""  # let ssh_config's User decide
        if use_keys:  # keys first: a password only when its variable is set
            password = self.environ.get(pass_env) or None
        else:
            password = self._lookup(pass_env, f"SSH password for {username or 'devices'}", True)
        if password is None and not use_keys:
            msg = (
                f"no password: set ${pass_env}, use an SSH key (use_keys/key_file in the "
                "inventory) or run rocetune on a terminal to be asked"
            )
            raise CredentialError(msg)
        return Credentials(username, password, use_keys, key_file)
