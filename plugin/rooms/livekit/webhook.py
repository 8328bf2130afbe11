"""`POST /livekit/webhook`: the LiveKit server tells us who joined and left a room.

The Authorization header carries the raw JWT (no "Bearer") signed with our API key, whose
`sha256` claim is the body's hash; `WebhookReceiver` checks both, so a forged or altered
event gets 401 and changes nothing. Joins and leaves go to the room's events sink (the
LiveKitRoom), which reports a leave only after its reconnect grace period.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from google.protobuf.json_format import ParseError
from livekit.api import TokenVerifier, WebhookReceiver
from livekit.protocol.models import ParticipantInfo
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

log = logging.getLogger(__name__)

LEFT_EVENTS = frozenset({"participant_left", "participant_connection_aborted"})


class RoomEvents(Protocol):
    """Where a room's joins and leaves go; LiveKitRoom is one."""

    async def participant_joined(self, info: ParticipantInfo) -> None: ...

    async def participant_left(self, identity: str) -> None: ...


def webhook_route(
    api_key: str,
    api_secret: str,
    rooms: Callable[[str], RoomEvents | None],
    path: str = "/livekit/webhook",
) -> Route:
    """The webhook endpoint; `rooms(name)` finds the events sink of a room (None: not ours)."""
    receiver = WebhookReceiver(TokenVerifier(api_key, api_secret))

    async def receive(request: Request) -> JSONResponse:
        auth = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not auth:
            return _refuse(401, "missing Authorization")
        try:
            body = (await request.body()).decode()
            event = receiver.receive(body, auth)
        except (ParseError, UnicodeDecodeError) as error:
            return _refuse(400, f"malformed event: {error}")
        except Exception as error:  # signature, expiry or body hash: WebhookReceiver's errors
            log.warning("livekit webhook refused: %s", error)
            return _refuse(401, f"refused: {error}")
        sink = rooms(event.room.name) if event.HasField("room") else None
        if sink is not None and event.HasField("participant"):
            if event.event == "participant_joined":
                await sink.participant_joined(event.participant)
            elif event.event in LEFT_EVENTS:
                await sink.participant_left(event.participant.identity)
        return JSONResponse({"ok": True, "event": event.event})

    return Route(path, receive, methods=["POST"])


def _refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
