"""The one place that runs uvicorn: every server, the demo, the tests and the benchmarks
listen through `listening`, and the command line stops them through `run_until_signalled`.

The bounded protocols subclass uvicorn's private protocol classes and startup is wrapped:
pyproject.toml pins uvicorn to the series they were checked against, and
tests/test_patched_internals.py fails, naming the part, when a uvicorn release changes one.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import resource
import signal
import socket
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .tls import check_tls_files

logger = logging.getLogger(__name__)
# A shutdown waits this long for open connections (a client that never reads must not hold
# the server forever), then closes them.
SHUTDOWN_SECONDS = 10.0
# Twice the largest WebSocket message either protocol accepts (the video signalling's SDP,
# 32 KiB): up to this a message too big for its socket is read and refused with an error,
# a bigger frame closes the connection (1009) before it is read in full.
WS_MAX_BYTES = 64 * 1024
# What one client may make the server hold unsent (its pongs, its states) before it is cut
# off: a client that sends pings and never reads fills this, not the server's memory.
WS_WRITE_BUFFER_BYTES = 1024 * 1024
# How long a client has to send a whole request (head and body): from its connection's
# opening, or from the first byte of a request on a kept-alive one (an idle kept-alive
# connection is closed by uvicorn's keep-alive timeout, 5 s, or by this deadline if it is
# the shorter: it is armed again after each response). A connection that sends nothing, or its
# headers a byte at a time, is closed then instead of holding a descriptor for good; an
# honest page's largest body (a 6 KiB offer) takes a fraction of it even on a slow link.
REQUEST_SECONDS = 20.0
# Open connections (HTTP and WebSocket) from one address. A club room of 12 players behind
# one router needs about 12 x 9 (a browser's 6 for HTTP, its sockets): 256 leaves room;
# one address holding thousands of idle connections used up the server's descriptors.
# Not for the trusted reverse proxies, whose address is every client's.
CONNECTIONS_PER_ADDRESS = 256
# The largest request head (the request line and every header) a client may send, however
# it arrives (issue 31: a 100 KB head in one read was accepted; h11 bounds only a head
# still incomplete after a read). A browser's head is 1-2 KiB; the pages send no cookies.
MAX_HEAD_BYTES = 16 * 1024
_HEAD_REFUSAL = b"the request head is too large\n"
_HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8"
    b"\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_HEAD_REFUSAL), _HEAD_REFUSAL)
)


class AddressLimits:
    """The open connections of each client address, for one listening server; shared by
    its HTTP and WebSocket protocols (a connection upgraded to a WebSocket still counts).
    `trusted`: the reverse proxies, as `[proxy] trusted` has them (addresses, networks,
    "*"), never capped; an IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is a.b.c.d."""

    def __init__(self, trusted: Sequence[str], cap: int | None = None) -> None:
        self.cap = CONNECTIONS_PER_ADDRESS if cap is None else cap  # 0: none
        self.trust_all = "*" in trusted
        self.trusted_networks = []
        for entry in trusted:
            with contextlib.suppress(ValueError):
                self.trusted_networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        self.open: dict[str, int] = {}
        self.refused = 0  # connections closed at once for their address's count

    def _trusted(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return self.trust_all or any(address in network for network in self.trusted_networks)

    def enter(self, transport: asyncio.BaseTransport) -> str | None:
        """Count a new connection; None when its address already has its fill (closed)."""
        peer = transport.get_extra_info("peername")
        try:
            ip = ipaddress.ip_address(peer[0]) if isinstance(peer, tuple) and peer else None
        except ValueError:
            ip = None
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if ip is None or self.cap <= 0 or self._trusted(ip):
            return ""
        address = str(ip)
        if self.open.get(address, 0) >= self.cap:
            self.refused += 1
            return None
        self.open[address] = self.open.get(address, 0) + 1
        return address

    def leave(self, address: str | None) -> None:
        if not address:
            return
        left = self.open.get(address, 0) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)


def _limits(config: uvicorn.Config) -> AddressLimits:
    limits = getattr(config, "address_limits", None)
    if limits is None:  # a Config not made by `listening` (uvicorn's own tools)
        limits = AddressLimits(())
        config.address_limits = limits  # type: ignore[attr-defined]
    return limits


class BoundedHttpProtocol(H11Protocol):
    """uvicorn's h11 protocol, with a deadline on receiving each request (REQUEST_SECONDS)
    and a cap on the connections of one address (CONNECTIONS_PER_ADDRESS). uvicorn times
    out only an idle keep-alive connection, and only after a response; one that never
    sends a whole request was kept forever."""

    _address: str | None = ""
    _deadline: asyncio.TimerHandle | None = None
    _upgraded = False
    _between_requests = False  # a response is done and the next request has not begun
    _head_bytes = 0  # of the request head being received (MAX_HEAD_BYTES)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._address = _limits(self.config).enter(transport)
        if self._address is None:
            transport.abort()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests and data:  # a new request begins: its own full time
            self._between_requests = False
            self._head_bytes = 0
            self._arm()
        if not self._upgraded and self.conn.their_state == h11.IDLE and self._head_too_large(data):
            self._disarm()
            self.transport.write(_HEAD_TOO_LARGE)
            self.transport.close()
            return
        super().data_received(data)
        if self._upgraded or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # the request is in (the app answers it in its own time)

    def _head_too_large(self, data: bytes) -> bool:
        """Count this read's part of the request head (up to its blank line, or all of it
        while the head goes on): past MAX_HEAD_BYTES the request is refused (431)."""
        end = data.find(b"\r\n\r\n")
        self._head_bytes += len(data) if end < 0 else end + 4
        return self._head_bytes > MAX_HEAD_BYTES

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._between_requests = True
            self._arm()  # the next request on this connection, in its turn

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._upgraded = True
        self._disarm()
        # The WebSocket protocol counts the connection from here (BoundedWebSocketProtocol).
        _limits(self.config).leave(self._address)
        self._address = ""
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        _limits(self.config).leave(self._address)
        self._address = ""
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._upgraded or self.transport.is_closing():
            return
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self.transport.close()


class BoundedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, with a ceiling on what a client that does not
    read can make the server buffer for it: past WS_WRITE_BUFFER_BYTES the connection is
    aborted (every pong it provoked included). It counts in its address's connections."""

    _address: str | None = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._address = _limits(self.config).enter(transport)
        if self._address is None and isinstance(transport, asyncio.Transport):
            transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        _limits(self.config).leave(self._address)
        self._address = ""
        super().connection_lost(exc)

    def send_receive_event_to_app(self) -> None:
        """A text message that is not UTF-8 closes the socket (1007) quietly: uvicorn does
        the same but logs a traceback for it, which any client could make at will."""
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                self.conn.send_close(1007, "invalid UTF-8")
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()

    def data_received(self, data: bytes) -> None:
        if self._over_buffer():
            return
        super().data_received(data)
        self._over_buffer()

    def _over_buffer(self) -> bool:
        transport = self.transport
        if transport.is_closing():
            return True
        if transport.get_write_buffer_size() > WS_WRITE_BUFFER_BYTES:
            transport.abort()
            return True
        return False


class PortInUse(OSError):
    """The server's address cannot be bound (in use, or not this machine's)."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        super().__init__(f"cannot listen on {host}:{port}: {reason}")
        self.host, self.port, self.reason = host, port, reason


@dataclass(frozen=True, slots=True)
class Listening:
    """Where a running server listens, and how to ask it to stop."""

    host: str
    port: int
    server: uvicorn.Server
    scheme: str = "http"  # "https" when this process serves TLS itself

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"

    @property
    def stopping(self) -> bool:
        return bool(self.server.should_exit)

    def stop(self) -> None:
        self.server.should_exit = True


@contextlib.asynccontextmanager
async def listening(
    app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    lifespan: Literal["auto", "on", "off"] = "on",
    tls: tuple[Path, Path] | None = None,
    trusted_proxies: Sequence[str] = (),
    connections_per_address: int | None = None,
) -> AsyncIterator[Listening]:
    """Serve `app` with uvicorn in this event loop while the block runs (port 0: a free one).

    The socket is bound before uvicorn starts, so the port is known and nobody races for
    it; a port already in use raises PortInUse at once. uvicorn's own handling of SIGINT and
    SIGTERM applies: it stops serving (the lifespan closes every table), and the block ends
    when `wait_stopped` returns or the block exits.

    `tls`: (certificate, key) PEM files: serve HTTPS (and WSS) directly. `trusted_proxies`:
    the reverse proxies whose X-Forwarded-Proto/-For are believed (the client's scheme and
    address then come from them); none by default, so a client cannot claim another
    address or scheme.
    """
    if tls is not None:
        check_tls_files(*tls)  # one line naming the file, before uvicorn's traceback could
    sock = listening_socket(host)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise PortInUse(host, port, error.strerror or str(error)) from None
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan=lifespan,
        http=BoundedHttpProtocol,
        ws=BoundedWebSocketProtocol,
        ws_max_size=WS_MAX_BYTES,
        # h11's own bound on a head still incomplete, above ours (which counts every read).
        h11_max_incomplete_event_size=2 * MAX_HEAD_BYTES,
        # A state message is ~1.5 KiB; deflating it cost a quarter of the send path's CPU
        # (bench/vote_latency.py profile, 600 clients), more than the bytes are worth.
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=int(SHUTDOWN_SECONDS),
        ssl_certfile=str(tls[0]) if tls else None,
        ssl_keyfile=str(tls[1]) if tls else None,
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies) or None,
    )
    cap = CONNECTIONS_PER_ADDRESS if connections_per_address is None else connections_per_address
    config.address_limits = AddressLimits(trusted_proxies, cap)  # type: ignore[attr-defined]
    server = uvicorn.Server(config)
    loop = asyncio.get_running_loop()
    quiet = _QuietDescriptorErrors(loop)
    if tls is not None:  # the handshake is the first thing a client owes: 10 s, not 60
        _bound_tls_handshakes(loop)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="uvicorn")
    try:
        while not server.started:
            if task.done():
                task.result()  # raises the startup error
                raise RuntimeError("the server stopped while starting")
            await asyncio.sleep(0.01)
        vars(loop).pop("create_server", None)  # loop.create_server is the loop's own again
        port = int(sock.getsockname()[1])
        yield Listening(host, port, server, scheme="https" if tls else "http")
    finally:
        server.should_exit = True
        await task
        vars(loop).pop("create_server", None)
        quiet.restore()
        sock.close()


def _bound_tls_handshakes(loop: asyncio.AbstractEventLoop) -> None:
    """uvicorn makes its server with asyncio's default TLS handshake timeout, 60 s, and a
    connection is ours (counted, timed) only once its handshake is done: bare connections
    that never start one held descriptors for a minute each (the outside check ran the
    server out of them). Only uvicorn's startup calls this wrapper; it is removed after."""
    create_server = loop.create_server

    async def bounded(*args: Any, **kwargs: Any) -> asyncio.Server:
        if kwargs.get("ssl") is not None:
            kwargs.setdefault("ssl_handshake_timeout", REQUEST_SECONDS)
        return await create_server(*args, **kwargs)

    loop.create_server = bounded  # type: ignore[method-assign]


class _QuietDescriptorErrors:
    """Out of file descriptors, asyncio's accept loop logs a traceback for every refused
    accept: 169,076 lines in a minute under an attack. One line every 10 s says it, with
    the count; every other error goes to the handler there was. The soft limit on open
    files is raised to the hard one, so there is room before it comes to that."""

    EVERY = 10.0

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.previous = loop.get_exception_handler()
        self.suppressed = 0
        self.said_at = float("-inf")
        loop.set_exception_handler(self.handle)
        with contextlib.suppress(ValueError, OSError):
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            if soft < hard:
                resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    def handle(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in (errno.EMFILE, errno.ENFILE):
            self.suppressed += 1
            now = time.monotonic()
            if now - self.said_at >= self.EVERY:
                self.said_at = now
                logger.error(
                    "out of file descriptors: %d connections refused (%s)",
                    self.suppressed,
                    error.strerror,
                )
            return
        if self.previous is not None:
            self.previous(loop, context)
        else:
            loop.default_exception_handler(context)

    def restore(self) -> None:
        self.loop.set_exception_handler(self.previous)


def listening_socket(host: str) -> socket.socket:
    """A TCP socket for `host` whose accepted connections send at once (TCP_NODELAY).

    asyncio turns Nagle's algorithm off only on sockets whose `proto` is IPPROTO_TCP, and a
    socket made with `socket.socket(AF_INET)` has proto 0, and so has every connection it
    accepts. Found by bench/load.py: with Nagle on, an ack written just after a state
    waited for the client's delayed ACK, 40 ms on Linux, so a vote's round trip was 45 ms
    instead of 4 on an idle server. Both are set: the proto for asyncio, the option on the
    listening socket, which Linux copies to every connection it accepts.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


async def wait_stopped(where: Listening) -> None:
    """Return once the server was asked to stop (a signal, or `stop()`)."""
    while not where.stopping:
        await asyncio.sleep(0.05)


def run_until_signalled(main: Callable[[], Coroutine[Any, Any, int]], *, name: str) -> int:
    """Run `main()` in a new event loop; SIGTERM or SIGINT stop it cleanly with status 0.

    uvicorn handles both signals itself (graceful shutdown) and then re-raises the signal to
    the handler that was there before it: this one only notes it, so a clean stop ends with
    status 0 instead of death by signal.
    """
    stopped_by: list[int] = []
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda sig, frame: stopped_by.append(sig))
    code = asyncio.run(main())
    if stopped_by:
        # Whoever started us may have stopped reading our output already.
        with contextlib.suppress(BrokenPipeError):
            print(f"{name}: stopped ({signal.Signals(stopped_by[0]).name})", flush=True)
    return code
