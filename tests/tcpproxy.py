"""A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL), to stage its outages.

``cut()`` closes every proxied connection and refuses new ones, as a server that went away;
``listen()`` accepts them again. The real server is never touched. Used by
``tests/test_database_outage.py`` and ``bench/fault_run.py``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Proxy:
    """Forwards 127.0.0.1:<port> to ``target``; :meth:`cut` and :meth:`listen` stage an outage."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.AbstractServer | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.listen()

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def listen(self) -> None:
        self._call(self._listen())

    def cut(self) -> None:
        self._call(self._cut())

    def outage(self, seconds: float) -> None:
        self.cut()
        time.sleep(seconds)
        self.listen()

    def close(self) -> None:
        self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)

    async def _listen(self) -> None:
        if self.server is None:
            self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, reuse_address=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self.writers -= {writer, up_writer}

    async def _cut(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        for writer in list(self.writers):
            writer.transport.abort()
        self.writers.clear()
