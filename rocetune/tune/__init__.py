"""Calculators that turn the intent and port facts into numbers (headroom, thresholds).

Pure functions of their inputs: no I/O and no platform knowledge. The calculators
(headroom, ecn, dcqcn) take plain numbers; target.py turns the model and the intent into
the per-device target state, every value with its reason.
"""
