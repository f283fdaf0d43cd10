"""The SSH device lab: emulated SONiC, Cumulus, EOS, NX-OS and Linux-host devices over real SSH.

- :mod:`tests.lab.server`: one asyncssh process, one listener per device on 127.0.0.1 port 0,
  a JSON ready line with the ports and the host key; ``record`` logs every command.
- :mod:`tests.lab.devices`: a device's settings and fault knobs (auth reject/delay, latency,
  per-command latency, disconnect mid-command, tarpit, refused port, unknown commands,
  pager, tty echo) and its answers (snapshot files named by
  ``rocetune.snapshot.command_filename``, per-device overrides).
- :mod:`tests.lab.profiles`: prompts, terminal acknowledgements, unknown-command texts.
- :mod:`tests.lab.lab`: start/stop the server, known_hosts, inventories pointing at it, the
  real CLI in a subprocess. :mod:`tests.lab.secrets`: outputs with planted secrets.
- ``conftest.py``: the session-scoped ``lab`` fixture (every device in one process).
"""
