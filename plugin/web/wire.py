"""What the WebSockets (`/ws` in table_socket.py, `/lobby`, `/video`) read the same way: the
token a socket opens with, one client message off the socket, and a bounded msgspec decode
of it. Each endpoint keeps its own limits, error class and replies; only the reading is
shared.

A page sends its token in the socket's first message, `{"type": "hello", "token": T,
"table": ID}`, never in the URL (proxies' and servers' access logs keep URLs). An older
client's `?token=` is still read.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TypeVar

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from .close_codes import CloseCode

T = TypeVar("T")


async def receive(websocket: WebSocket) -> str | bytes | None:
    """The next message as sent (a text frame or a binary one), None once the client left."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    raw: str | bytes | None = message.get("text")
    if raw is None:
        raw = message.get("bytes") or b""
    return raw


class Refused(Exception):
    """A message that does not decode. code: too_large | bad_json | bad_message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def decode(decoder: msgspec.json.Decoder[T], raw: str | bytes, limit: int) -> T:
    """Decode one message of at most `limit` bytes; Refused says why it does not."""
    data = raw.encode() if isinstance(raw, str) else raw
    if len(data) > limit:
        raise Refused("too_large", f"a message is at most {limit} bytes")
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as error:
        raise Refused("bad_message", str(error)) from None
    except msgspec.DecodeError as error:
        raise Refused("bad_json", f"not JSON: {error}") from None
    except RecursionError:
        # Found by tests/fuzz: ~1,000 nested brackets fit in 4 KiB and exhaust the stack when
        # msgspec skips ahead to a tagged union's "type". A single struct (video's Signal)
        # refuses the first bracket as bad_message instead and never gets here.
        raise Refused("bad_json", "a message may not be nested this deep") from None


MAX_HELLO_BYTES = 1024


class Hello(msgspec.Struct, tag="hello", tag_field="type", forbid_unknown_fields=True):
    token: str
    table: str | None = None
    v: int = 1


_HELLO = msgspec.json.Decoder(Hello)


async def opening_token(websocket: WebSocket, seconds: float) -> tuple[str, str | None]:
    """The token (and the table it names, if any) an accepted socket opens with: from an
    older client's URL, else from its first message within `seconds`. Refused with
    token_malformed when there is none."""
    token = websocket.query_params.get("token")
    if token is not None:
        return token, websocket.query_params.get("table")
    expected = 'the first message must be {"type": "hello", "token": ...}'
    try:
        raw = await asyncio.wait_for(receive(websocket), seconds)
    except TimeoutError:
        raise Refused("token_malformed", f"no token within {seconds:g} s") from None
    if raw is None:
        raise Refused("token_malformed", "the socket closed before its token")
    try:
        hello = decode(_HELLO, raw, MAX_HELLO_BYTES)
    except Refused as refusal:
        raise Refused("token_malformed", f"{expected} ({refusal.message})") from None
    return hello.token, hello.table


async def refuse(websocket: WebSocket, reply: bytes, code: str, close_code: CloseCode) -> None:
    """Send `reply` (the endpoint's own error message) and close with `close_code`. A
    client that already left (closed before its hello, or at once after a bad one, or the
    server shutting down under it) gets nothing, and that is not the server's failure:
    nothing is raised or logged (a traceback per such client was anyone's to cause)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await websocket.send_text(reply.decode())
        await websocket.close(code=close_code, reason=code)
