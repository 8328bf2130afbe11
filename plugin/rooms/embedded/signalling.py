"""WebRTC signalling for the embedded room: `POST /rtc/{table_id}/offer`.

Body `{"sdp": str, "type": "offer", "token": str}` → `{"sdp": str, "type": "answer"}`.
Who the caller is comes only from the token, through the `authorize` callable the web
layer passes in (plugin/signing.py signs them; this module does not know how).
Errors are JSON `{"error": code, "message": text}`: 400 bad_request, 403 forbidden,
404 no_table, 413 too_large, 503 room_stopped. A refused offer changes nothing.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .room import EmbeddedRoom

MAX_BODY_BYTES = 64 * 1024  # a browser's audio offer is 3-6 KiB

Authorize = Callable[[str, str], "int | str | Awaitable[int | str | None] | None"]
RoomFor = Callable[[str], EmbeddedRoom | None]


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def rtc_routes(room_for: RoomFor, authorize: Authorize) -> list[Route]:
    """Routes answering WebRTC offers.

    room_for(table_id) gives the table's room or None; authorize(table_id, token) gives
    the seat number, "host", or None (refused); it may be sync or async.
    """

    async def offer(request: Request) -> JSONResponse:
        table_id = request.path_params["table_id"]
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _error(413, "too_large", f"the offer is over {MAX_BODY_BYTES} bytes")
        try:
            message = json.loads(body)
        except ValueError:
            return _error(400, "bad_request", "the body is not JSON")
        if not isinstance(message, dict):
            return _error(400, "bad_request", "the body must be a JSON object")
        fields = {name: message.get(name) for name in ("sdp", "type", "token")}
        missing = [name for name, value in fields.items() if not isinstance(value, str)]
        sdp, kind, token = (str(fields[name]) for name in ("sdp", "type", "token"))
        if missing:
            return _error(400, "bad_request", f"missing or not a string: {', '.join(missing)}")
        if kind != "offer":
            return _error(400, "bad_request", f"type must be 'offer', not {kind!r}")

        room = room_for(table_id)
        if room is None:
            return _error(404, "no_table", f"no table {table_id!r}")
        seat = authorize(table_id, token)
        if inspect.isawaitable(seat):
            seat = await seat
        if seat is None:
            return _error(403, "forbidden", "the token does not admit you to this table")
        try:
            answer = await room.accept(seat, sdp, kind)
        except ValueError as error:
            return _error(400, "bad_request", str(error))
        except RuntimeError as error:
            return _error(503, "room_stopped", str(error))
        return JSONResponse({"sdp": answer.sdp, "type": answer.type})

    return [Route("/rtc/{table_id}/offer", offer, methods=["POST"])]
