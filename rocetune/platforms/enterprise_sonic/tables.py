"""What the Klish reader produces: CONFIG_DB tables with the CLI line of every field, plus
the ports, facts and bindings that only the CLI text shows."""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.platforms.sonic.tables import Entry, RawDb


@dataclass
class KlishDb:
    """The tables a ``sonic-cli`` configuration writes, and what else it says."""

    db: RawDb = field(default_factory=RawDb)
    ports: dict[str, int] = field(default_factory=dict)
    """Physical port -> line of its (first) ``interface`` line, in file order."""
    facts: dict[str, str] = field(default_factory=dict)
    hostname: tuple[str, int] | None = None
    roce_line: int | None = None
    breakouts: dict[str, tuple[str, int]] = field(default_factory=dict)
    """``S/P`` -> (breakout mode, line)."""
    policies: dict[str, dict[int, int]] = field(default_factory=dict)
    """Scheduler policy -> its queues (queue -> line)."""

    def entry(self, table: str, key: str, line: int) -> Entry:
        """The entry ``table|key`` (created on first use, at ``line``)."""
        self.db.table_lines.setdefault(table, line)
        entries = self.db.tables.setdefault(table, {})
        found = entries.get(key)
        if found is None:
            found = Entry(table, key, {}, line, {})
            entries[key] = found
        return found

    def put(self, entry: object, name: str, value: str, line: int) -> None:
        """Set one field; a later line overrides an earlier one, as the CLI does."""
        assert isinstance(entry, Entry)
        entry.fields[name] = value
        entry.field_lines[name] = line
