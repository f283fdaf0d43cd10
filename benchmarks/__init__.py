"""Reproducible speed and scale measurements (not part of the test run)."""
