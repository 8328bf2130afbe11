"""A TCP proxy on loopback for blips between a client and a server (issue 30).

`TcpProxy(host, port)` listens on a free loopback port and forwards every connection to
`host:port`, byte for byte, both ways. While it runs a test can:

- `reset(down=s)`: abort every connection at once (an RST, as a NAT or a proxy that
  restarts does) and refuse new ones for `s` seconds (they are accepted and aborted);
- `stall(s)`: forward nothing for `s` seconds, either way, on every connection, old and
  new (a silent stall: nothing is closed, the bytes are delivered late, after it);
- `cut(s, how)`: either of them at random or named ("reset" or "stall").

asyncio only: it runs in the test's loop, beside an in-process bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Literal

from .loopback import free_port

CHUNK = 64 * 1024


class TcpProxy:
    """Forwards 127.0.0.1:`port` to `target_host`:`target_port` (see the module docstring)."""

    def __init__(self, target_host: str, target_port: int, *, port: int = 0) -> None:
        self.target = (target_host, target_port)
        self.port = port or free_port()
        self.connections = 0  # accepted and forwarded
        self.resets = 0
        self.stalls = 0
        self._server: asyncio.Server | None = None
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._refusing_until = 0.0
        self._open: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stall_task: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._abort_all()
            await self._server.wait_closed()
            self._server = None
        if self._stall_task is not None:
            self._stall_task.cancel()
        self._flowing.set()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def __aenter__(self) -> TcpProxy:
        return await self.start()

    async def __aexit__(self, *_: object) -> None:
        await self.stop()

    def reset(self, *, down: float = 0.0) -> None:
        """Abort every open connection now; refuse new ones for `down` seconds."""
        self.resets += 1
        loop = asyncio.get_running_loop()
        self._refusing_until = max(self._refusing_until, loop.time() + down)
        self._abort_all()

    def stall(self, seconds: float) -> None:
        """Forward nothing, either way, for `seconds` (a stall already on is lengthened)."""
        self.stalls += 1
        if self._stall_task is not None:
            self._stall_task.cancel()
        self._flowing.clear()
        self._stall_task = asyncio.get_running_loop().create_task(self._flow_after(seconds))

    def cut(self, seconds: float, how: Literal["reset", "stall"]) -> None:
        if how == "reset":
            self.reset(down=seconds)
        else:
            self.stall(seconds)

    async def _flow_after(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        self._flowing.set()

    def _abort_all(self) -> None:
        for writer in list(self._open):
            _abort(writer)
        self._open.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if asyncio.get_running_loop().time() < self._refusing_until:
            _abort(writer)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            _abort(writer)
            return
        self.connections += 1
        self._open.update((writer, up_writer))
        pumps = [
            asyncio.create_task(self._pump(reader, up_writer)),
            asyncio.create_task(self._pump(up_reader, writer)),
        ]
        for task in pumps:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await asyncio.gather(*pumps, return_exceptions=True)
        for end in (writer, up_writer):
            self._open.discard(end)
            with contextlib.suppress(Exception):
                end.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await self._flowing.wait()
                data = await reader.read(CHUNK)
                if not data:
                    break
                await self._flowing.wait()  # read before the stall: delivered after it
                if writer.is_closing():
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                if writer.can_write_eof():
                    writer.write_eof()


def _abort(writer: asyncio.StreamWriter) -> None:
    """Close with an RST, not a FIN (SO_LINGER 0), as a reset on the way does."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
