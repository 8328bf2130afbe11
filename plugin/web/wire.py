"""What the two WebSockets (`/ws` in app.py, `/video` in video.py) read the same way: one
client message off the socket, and a bounded msgspec decode of it. Each endpoint keeps its
own limits, error class and replies; only the reading is shared.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec
from starlette.websockets import WebSocket

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
