"""Render intended configs from the tuned target, and plan the change from the running config.

The platform's ``context.py`` (a :class:`~rocetune.platforms.spec.RenderSpec`) says what to
render; :mod:`rocetune.render.run` renders, :mod:`rocetune.render.plan` diffs against the
running config through the platform's ``changeset.py``.
"""
