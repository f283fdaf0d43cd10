"""``rocetune apply``: a reviewed plan applied in a maintenance window, safely.

Modules: :mod:`.planfile` (the ``rocetune-plan/1`` input), :mod:`.window` (windows and
durations), :mod:`.states` (device and run state machines, exit codes), :mod:`.waves` (canary
and failure-domain-aware waves), :mod:`.gates` (the checks that gate a confirm),
:mod:`.record` (``runs/<run>/audit.jsonl`` and the lease), :mod:`.device` (one device's
transaction), :mod:`.run` (the run), :mod:`.resume` (``--resume``, ``--rollback``, ``--status``),
:mod:`.fleet` (what apply asks of the rest of rocetune; :mod:`rocetune.api.applying` provides it).
The per-platform drivers are in ``rocetune/platforms/<platform>/transaction.py``.
"""
