"""Helpers shared by platform parsers (format readers, not vendor syntax)."""
