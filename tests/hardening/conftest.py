"""The hardening suite uses the SSH device lab (its hostile peers are lab devices)."""

from tests.lab.conftest import lab

__all__ = ["lab"]
