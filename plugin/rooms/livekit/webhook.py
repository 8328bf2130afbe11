"""`POST /livekit/webhook`: the LiveKit server tells us who joined and left a room.

The Authorization header carries the raw JWT (no "Bearer") signed with our API key, whose
`sha256` claim is the body's hash; `WebhookReceiver` checks both, so a forged or altered
event gets 401 and changes nothing. A genuine event can be replayed for as long as its JWT
is valid (300 s from the server), and LiveKit itself retries a delivery: each event is
applied once, by its id (`Recent`, bounded). The ids are this process's memory only, so
an event created before the room's sink first listed the room (`listed_since`: a restart,
or a failover to this server) is history, not news: that listing already showed the room
as it was after it, and a replay of it is acknowledged and not applied (a captured join
replayed after a restart made the room adopt a dead session). Both times are the LiveKit
server's (`listed_since` is its listing's answer's Date, server_clock.py): this server's own
clock, 10 s fast, took a join just after the listing for history, and 10 s slow applied a
captured one from before it (issue 31, "time across servers"). Joins and leaves go to the
room's events sink (the LiveKitRoom), found by the room's name, which matches them to the
participant's session and reports a leave only after its reconnect grace period.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

import jwt
from google.protobuf.json_format import Parse, ParseError
from livekit.protocol.models import ParticipantInfo
from livekit.protocol.webhook import WebhookEvent
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from plugin.bodies import BadBody, read_body

MAX_WEBHOOK_BYTES = 64 * 1024  # a LiveKit event is a few KiB

log = logging.getLogger(__name__)

LEFT_EVENTS = frozenset({"participant_left", "participant_connection_aborted"})
REPLAY_WINDOW = 600.0  # seconds: twice the server's webhook JWT lifetime (FIELD-NOTES)
MAX_REMEMBERED = 20_000  # event ids; ~2 MB, hours of joins and leaves of a big club


LEEWAY = 60.0  # seconds either side of the JWT's times: LiveKit's own (auth/verifier.go)
STALE_SKEW = 2.0  # seconds: an event's created_at and an answer's Date are whole seconds


class RoomEvents(Protocol):
    """Where a room's joins and leaves go; LiveKitRoom is one. `listed_since` (unix seconds
    by the LiveKit server's clock, 0 for none yet) is when it first read the room itself."""

    @property
    def listed_since(self) -> float: ...

    async def participant_joined(self, info: ParticipantInfo) -> None: ...

    async def participant_left(self, info: ParticipantInfo) -> None: ...


class Recent:
    """Event ids seen within `window` seconds, at most `limit` of them (oldest dropped)."""

    def __init__(
        self,
        window: float = REPLAY_WINDOW,
        limit: int = MAX_REMEMBERED,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.window, self.limit, self._clock = window, limit, clock
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, event_id: str) -> bool:
        """True the first time `event_id` is seen (and remembers it), False for a repeat."""
        now = self._clock()
        while self._seen and (
            len(self._seen) >= self.limit or next(iter(self._seen.values())) < now - self.window
        ):
            self._seen.popitem(last=False)
        if event_id in self._seen:
            return False
        self._seen[event_id] = now
        return True

    def __len__(self) -> int:
        return len(self._seen)


def webhook_route(
    api_key: str,
    api_secret: str,
    rooms: Callable[[str], RoomEvents | None],
    path: str = "/livekit/webhook",
    recent: Recent | None = None,
    clock: Callable[[], float] = time.time,
) -> Route:
    """The webhook endpoint; `rooms(name)` finds the events sink of a room (None: not ours).
    `clock` is what the JWT's times are checked with (the log's, on a server)."""
    seen = recent or Recent()

    async def receive(request: Request) -> JSONResponse:
        auth = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not auth:
            return _refuse(401, "missing Authorization")
        try:
            raw = await read_body(request, MAX_WEBHOOK_BYTES)
            event = verified(raw.decode(), auth, api_key, api_secret, clock())
        except BadBody as refusal:
            return _refuse(refusal.status, refusal.message)
        except (ParseError, UnicodeDecodeError) as error:
            return _refuse(400, f"malformed event: {error}")
        except Exception as error:  # signature, expiry or body hash: WebhookReceiver's errors
            log.warning("livekit webhook refused: %s", error)
            return _refuse(401, f"refused: {error}")
        # The server gives every event an id; without one, the body itself is the event.
        event_id = event.id or "sha256:" + hashlib.sha256(raw).hexdigest()
        if not seen.first_time(event_id):
            return JSONResponse({"ok": True, "event": event.event, "duplicate": True})
        sink = rooms(event.room.name) if event.HasField("room") else None
        since = sink.listed_since if sink is not None else 0.0
        if sink is not None and event.created_at and event.created_at < since - STALE_SKEW:
            return JSONResponse({"ok": True, "event": event.event, "stale": True})
        if sink is not None and event.HasField("participant"):
            if event.event == "participant_joined":
                await sink.participant_joined(event.participant)
            elif event.event in LEFT_EVENTS:
                await sink.participant_left(event.participant)
        return JSONResponse({"ok": True, "event": event.event})

    return Route(path, receive, methods=["POST"])


def verified(body: str, auth: str, api_key: str, api_secret: str, now: float) -> WebhookEvent:
    """The event of a genuine webhook: WebhookReceiver.receive's checks (HS256 by our key,
    an expiry, the body's hash), but its JWT's times are checked against `now` (the log's
    clock), not this machine's (pyjwt's): a server 90 s slow refused every genuine webhook
    as not yet valid (issue 31, "time across servers"). Raises on any failure."""
    options: Any = {"require": ["exp"], "verify_exp": False, "verify_nbf": False,
                    "verify_iat": False}  # fmt: skip
    claims = jwt.decode(auth, api_secret, algorithms=["HS256"], issuer=api_key, options=options)
    if not isinstance(claims["exp"], int | float) or now > claims["exp"] + LEEWAY:
        raise jwt.ExpiredSignatureError("the webhook's token has expired")
    for name in ("nbf", "iat"):
        if name in claims and (not isinstance(claims[name], int | float)
                               or now < claims[name] - LEEWAY):  # fmt: skip
            raise jwt.ImmatureSignatureError(f"the webhook's token is not valid yet ({name})")
    digest = base64.b64decode(str(claims.get("sha256") or ""))
    if not digest or not hmac.compare_digest(hashlib.sha256(body.encode()).digest(), digest):
        raise ValueError("the webhook's body does not match its token's hash")
    return Parse(body, WebhookEvent(), ignore_unknown_fields=True)


def _refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
