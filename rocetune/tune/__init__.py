"""Calculators that turn the intent and port facts into numbers (headroom, thresholds).

Pure functions of their inputs: no I/O, no model objects, no platform knowledge.
"""
