"""A ProxyCommand for ssh_config tests: relay stdin/stdout to HOST PORT (like ``nc %h %p``)."""

from __future__ import annotations

import os
import select
import socket
import sys


def main() -> None:
    """``python tests/lab/proxy.py HOST PORT``."""
    sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    sources = [stdin, sock.fileno()]
    while True:
        ready, _, _ = select.select(sources, [], [])
        if stdin in ready:
            data = os.read(stdin, 65536)
            if data:
                sock.sendall(data)
            else:
                sock.shutdown(socket.SHUT_WR)
                sources.remove(stdin)
        if sock.fileno() in ready:
            data = sock.recv(65536)
            if not data:
                return
            os.write(stdout, data)


if __name__ == "__main__":
    main()
