"""Connections that hold the server's descriptors without using them are bounded.

The outside check held 20,600 idle connections from one address (ones that send nothing,
or their headers a byte at a time): uvicorn times out only an idle keep-alive connection
after a response, so they stayed open until the server ran out of file descriptors and
/healthz stopped answering. Now a request must arrive whole within REQUEST_SECONDS, and
one address may hold CONNECTIONS_PER_ADDRESS connections (HTTP and WebSocket together).
These run the real uvicorn server in this process on loopback, with the limits made small.
"""

from __future__ import annotations

import asyncio
import time

import pytest
import websockets

from plugin.server import http
from plugin.server.http import listening


async def _app(scope, receive, send):  # type: ignore[no-untyped-def]
    if scope["type"] == "http":
        while (await receive()).get("more_body"):
            pass
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]}
        )
        await send({"type": "http.response.body", "body": b"ok"})
    elif scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> float:
    """How long until the server closed the connection (fails if it did not in time)."""
    started = time.monotonic()
    async with asyncio.timeout(seconds):
        while await reader.read(1024):
            pass
    return time.monotonic() - started


async def _get(port: int, writer_reader=None) -> bytes:  # type: ignore[no-untyped-def]
    reader, writer = writer_reader or await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
    await writer.drain()
    async with asyncio.timeout(5):
        head = await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)
    return head


async def test_a_request_must_arrive_whole_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "REQUEST_SECONDS", 0.5)
    async with listening(_app, lifespan="off") as where:
        silent = await asyncio.open_connection("127.0.0.1", where.port)
        trickle = await asyncio.open_connection("127.0.0.1", where.port)
        body = await asyncio.open_connection("127.0.0.1", where.port)
        body[1].write(b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nabc")
        kept = await asyncio.open_connection("127.0.0.1", where.port)
        for _ in range(3):  # keep-alive: each request in time is answered, on one connection
            assert (await _get(where.port, kept)).startswith(b"HTTP/1.1 200")

        async def drip() -> None:  # the head one byte at a time, never finished
            for byte in b"GET / HTTP/1.1\r\nhost: x\r\nx-slow: " + b"a" * 100:
                trickle[1].write(bytes([byte]))
                await asyncio.sleep(0.05)

        dripping = asyncio.create_task(drip())
        # ... and once idle it is closed like the others (before uvicorn's keep-alive, 5 s).
        for reader, _ in (silent, trickle, body, kept):
            assert await _closed_within(reader, 3) < 2
        dripping.cancel()
        for _, writer in (silent, trickle, body, kept):
            writer.close()
            await writer.wait_closed()


async def test_an_upgraded_websocket_outlives_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "REQUEST_SECONDS", 0.3)
    async with (
        listening(_app, lifespan="off") as where,
        websockets.connect(f"ws://127.0.0.1:{where.port}/") as socket,
    ):
        await asyncio.sleep(1.0)
        await socket.send("still here")
        pong = await socket.ping()
        async with asyncio.timeout(5):
            await pong


async def test_one_address_holds_a_bounded_number_of_connections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http, "CONNECTIONS_PER_ADDRESS", 4)
    async with listening(_app, lifespan="off") as where:
        held = [await asyncio.open_connection("127.0.0.1", where.port) for _ in range(3)]
        socket = await websockets.connect(f"ws://127.0.0.1:{where.port}/")  # the fourth
        over = await asyncio.open_connection("127.0.0.1", where.port)
        assert await _closed_within(over[0], 3) < 2  # the fifth is closed at once
        held[0][1].close()
        await socket.close()  # an upgraded connection gives its place back too
        await asyncio.sleep(0.2)
        again = [await asyncio.open_connection("127.0.0.1", where.port) for _ in range(2)]
        for pair in again:
            assert (await _get(where.port, pair)).startswith(b"HTTP/1.1 200")
        assert where.server.config.address_limits.refused == 1  # type: ignore[attr-defined]
        for _, writer in [*held, over, *again]:
            writer.close()
            await writer.wait_closed()


def _masked_frame(opcode: int, payload: bytes) -> bytes:
    mask = b"\x01\x02\x03\x04"
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + body


async def test_what_a_client_can_send_at_will_logs_no_traceback(caplog: pytest.LogCaptureFixture):
    """The outside check made the server log a traceback per client at will: a text frame
    that is not UTF-8 (uvicorn's own), and a body cut off by a client that went away
    (starlette's ClientDisconnect out of read_body). Both are the client's doing: closed
    or answered, never logged as a failure of the server."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route, WebSocketRoute

    from plugin.bodies import BadBody, read_body

    async def upload(request):  # type: ignore[no-untyped-def]
        try:
            return PlainTextResponse(str(len(await read_body(request, 1000))))
        except BadBody as refusal:
            return PlainTextResponse(refusal.code, status_code=refusal.status)

    async def echo(websocket):  # type: ignore[no-untyped-def]
        await websocket.accept()
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    app = Starlette(routes=[Route("/up", upload, methods=["POST"]), WebSocketRoute("/ws", echo)])
    caplog.set_level("INFO")
    async with listening(app, lifespan="off") as where:
        reader, writer = await asyncio.open_connection("127.0.0.1", where.port)
        writer.write(
            b"GET /ws HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: upgrade\r\n"
            b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
        )
        async with asyncio.timeout(5):
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
            writer.write(_masked_frame(0x1, b"\xff\xfe not utf-8"))
            close = await reader.readexactly(4)
        assert close[0] == 0x88 and int.from_bytes(close[2:4], "big") == 1007
        writer.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", where.port)
        writer.write(b"POST /up HTTP/1.1\r\nhost: x\r\ncontent-length: 500\r\n\r\n" + b"x" * 10)
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.close()  # gone mid-body
        await asyncio.sleep(0.3)
    failures = [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]
    assert failures == [], [r.getMessage() for r in failures]


def test_the_trusted_proxies_are_matched_as_the_configuration_writes_them() -> None:
    """The cap compared the peer's address as text with `[proxy] trusted`: "*" and a CIDR
    range (both documented) matched nothing, so the proxy itself got the cap (256 for the
    whole server), and so did 127.0.0.1 seen as ::ffff:127.0.0.1 on a dual-stack socket."""

    class Peer:
        def __init__(self, address: str) -> None:
            self.address = address

        def get_extra_info(self, name: str) -> tuple[str, int]:
            return (self.address, 5000)

    for trusted, proxy in ((["*"], "10.1.2.3"), (["127.0.0.0/8"], "127.9.9.9"),
                           (["127.0.0.1"], "::ffff:127.0.0.1"), (["::1"], "::1")):  # fmt: skip
        limits = http.AddressLimits(trusted)
        assert limits.enter(Peer(proxy)) == "", (trusted, proxy)  # type: ignore[arg-type]
    limits = http.AddressLimits(["127.0.0.1"])
    assert limits.enter(Peer("::ffff:192.0.2.7")) == "192.0.2.7"  # type: ignore[arg-type]
    assert limits.enter(Peer("192.0.2.7")) == "192.0.2.7"  # type: ignore[arg-type]
    assert limits.open == {"192.0.2.7": 2}  # one client, however his address is written
    uncapped = http.AddressLimits([], cap=0)  # `[proxy] connections_per_address = 0`
    assert all(uncapped.enter(Peer("192.0.2.7")) == "" for _ in range(300))  # type: ignore[arg-type]


async def test_a_tls_handshake_must_come_in_time(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Served with TLS, a connection is the server's only once its handshake is done, and
    asyncio waited 60 s for one: bare connections held descriptors that long each."""
    from testing.certs import self_signed

    monkeypatch.setattr(http, "REQUEST_SECONDS", 0.5)
    cert, key = self_signed(tmp_path, "localhost")
    async with listening(_app, lifespan="off", tls=(cert, key)) as where:
        reader, writer = await asyncio.open_connection("127.0.0.1", where.port)
        assert await _closed_within(reader, 5) < 3  # no handshake: closed
        writer.close()


def test_running_out_of_descriptors_is_said_once_not_per_accept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """asyncio's accept loop logged a traceback for every accept refused for want of file
    descriptors: 169,076 lines in a minute under the outside check's attack."""
    import errno as errnos

    loop = asyncio.new_event_loop()
    try:
        quiet = http._QuietDescriptorErrors(loop)
        error = OSError(errnos.EMFILE, "Too many open files")
        with caplog.at_level("ERROR"):
            for _ in range(1000):
                loop.call_exception_handler({"message": "accept failed", "exception": error})
        lines = [r for r in caplog.records if "file descriptors" in r.getMessage()]
        assert len(lines) == 1 and quiet.suppressed == 1000
        assert not any(r.exc_info for r in caplog.records)
        quiet.restore()
    finally:
        loop.close()


async def test_a_request_on_a_kept_alive_connection_gets_its_full_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deadline ran from the previous response, so a request begun after some idle time
    got what was left of it (the outside check cut a 6 s upload after 4.5 s idle)."""
    # The same deadline closes an idle kept-alive connection (the first test), so both
    # waits stay well inside it; together they outlast it by 0.4 s, which a deadline from
    # the response would cut (the server runs in this event loop: its timer fires first).
    monkeypatch.setattr(http, "REQUEST_SECONDS", 2.0)
    async with listening(_app, lifespan="off") as where:
        reader, writer = await asyncio.open_connection("127.0.0.1", where.port)
        assert (await _get(where.port, (reader, writer))).startswith(b"HTTP/1.1 200")
        await asyncio.sleep(1.2)  # idle, kept alive
        writer.write(b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\nhello")
        await asyncio.sleep(1.2)  # 2.4 s after the response, 1.2 s into this request
        writer.write(b"world")
        async with asyncio.timeout(5):
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        writer.close()
        await writer.wait_closed()
