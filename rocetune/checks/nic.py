"""Rules of the nic family (see rules/ and docs/rule-catalogue.md)."""

from __future__ import annotations

from rocetune.checks.base import Rule

RULES: tuple[type[Rule], ...] = ()
