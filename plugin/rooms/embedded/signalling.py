"""WebRTC signalling for the embedded room: `POST /rtc/{table_id}/offer`.

Body `{"sdp": str, "type": "offer"}` with `Authorization: Bearer <token>` (or, from an
older page, the token as the body's "token" field) → `{"sdp": str, "type": "answer"}`.
Who the caller is comes only from the token, through the `authorize` callable the web
layer passes in (plugin/signing.py signs them; this module does not know how). A token in
the header is checked before the body is read; every body is read within MAX_BODY_BYTES.
Errors are JSON `{"error": code, "message": text}`: 400 bad_request, 403 forbidden,
404 no_table, 413 too_large, 429 too_many_spectators, 503 room_stopped. A refused offer
changes nothing. A spectator's watch token (authorize gives "watch") is admitted as a
listener, with a receive-only offer only. The token is checked again once the body is read
(the link may have been re-issued meanwhile), and an offer whose link is re-issued while it
is answered is refused too (403 forbidden): a re-issue leaves no peer of the old token.
Whether a table exists is said only to a token it admits (404 after the token check), and
what aiortc says of a bad offer is logged, not sent (it names the server's internals).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from plugin.bodies import BadBody, decode_json, read_body

from .room import Disconnected, EmbeddedRoom, RoomFull

logger = logging.getLogger(__name__)
MAX_BODY_BYTES = 64 * 1024  # a browser's audio offer is 3-6 KiB

Authorize = Callable[[str, str], "int | str | Awaitable[int | str | None] | None"]
RoomFor = Callable[[str], EmbeddedRoom | None]


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def rtc_routes(room_for: RoomFor, authorize: Authorize) -> list[Route]:
    """Routes answering WebRTC offers.

    room_for(table_id) gives the table's room or None; authorize(table_id, token) gives
    the seat number, "host", "watch" (a spectator, who only listens), or None (refused);
    it may be sync or async.
    """

    async def admitted(table_id: str, token: str) -> int | str | None:
        seat = authorize(table_id, token)
        return await seat if inspect.isawaitable(seat) else seat

    async def offer(request: Request) -> JSONResponse:
        table_id = request.path_params["table_id"]
        scheme, _, header_token = request.headers.get("authorization", "").partition(" ")
        seat: int | str | None = None
        if header_token:  # the token first: whether a table exists is nobody else's business
            seat = await admitted(table_id, header_token) if scheme.lower() == "bearer" else None
            if seat is None:
                return _error(403, "forbidden", "the token does not admit you to this table")
        try:
            message = decode_json(await read_body(request, MAX_BODY_BYTES))
        except BadBody as refusal:
            code = "too_large" if refusal.status == 413 else "bad_request"
            return _error(refusal.status, code, refusal.message)
        if not isinstance(message, dict):
            return _error(400, "bad_request", "the body must be a JSON object")
        wanted = ("sdp", "type") if header_token else ("sdp", "type", "token")
        missing = [name for name in wanted if not isinstance(message.get(name), str)]
        if missing:
            return _error(400, "bad_request", f"missing or not a string: {', '.join(missing)}")
        sdp, kind = str(message["sdp"]), str(message["type"])
        if kind != "offer":
            return _error(400, "bad_request", f"type must be 'offer', not {kind!r}")
        # Checked (again) now, just before the room takes the offer: reading the body
        # awaited, and a link re-issued meanwhile must not open a peer.
        token = header_token or str(message["token"])
        seat = await admitted(table_id, token)
        if seat is None:
            return _error(403, "forbidden", "the token does not admit you to this table")
        room = room_for(table_id)
        if room is None:
            return _error(404, "no_table", f"no table {table_id!r} here")
        try:
            answer = await room.accept(seat, sdp, kind)
        except Disconnected as error:
            return _error(403, "forbidden", str(error))
        except RoomFull as error:
            return _error(429, "too_many_spectators", str(error))
        except ValueError as error:  # aiortc's own words name its internals: not sent
            logger.info("rtc %s: an offer was refused: %s", table_id, error)
            return _error(400, "bad_request", "the offer is not an SDP this room can answer")
        except RuntimeError as error:
            logger.info("rtc %s: the room took no offer: %s", table_id, error)
            return _error(503, "room_stopped", "the table's room is not taking offers now")
        return JSONResponse({"sdp": answer.sdp, "type": answer.type})

    return [Route("/rtc/{table_id}/offer", offer, methods=["POST"])]
