"""Verification: perftest output parsing, the test plan and counter deltas.

- :mod:`rocetune.verify.perftest` - perftest output -> :class:`~rocetune.model.PerftestResult`.
- :mod:`rocetune.verify.plan` - NIC pairs, rounds and the exact perftest command lines.
- :mod:`rocetune.verify.counters` - counter snapshots -> deltas for the RT8xx rules.
"""
