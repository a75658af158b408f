"""``python play.py ui=web``: the web player served on ``host:port`` until Ctrl-C."""

from __future__ import annotations

import socket
import sys
import threading
import time

import uvicorn

from web.app import create_app
from web.config import WebConfig


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: any free one); a ``ValueError`` saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port} ({error.strerror or error}); choose "
                         "another port= or host=") from None
    sock.listen(64)
    return sock


def address(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(config: WebConfig) -> None:
    app = create_app(config)
    sock = listen(config.play.host, config.play.port)
    if config.exposed:
        print(f"warning: host={config.play.host} lets other machines reach this server: anyone who "
              "can open it can start games and run agents here", file=sys.stderr)
    print(f"web player on {address(sock)} (Ctrl-C stops it)", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])


class Background:
    """The web player served from a thread of this process, on a free local port: for tests
    and scripts that drive it (``url``; ``stop()`` when done)."""

    def __init__(self, config: WebConfig, start_seconds: float = 20):
        sock = listen("127.0.0.1", 0)
        self.url = address(sock)
        self.server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + start_seconds
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
