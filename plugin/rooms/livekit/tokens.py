"""LiveKit access tokens: minting them for our players and host, verifying a club's own.

A player's token binds his seat in his identity `seat-N` (the attribute `seat` it also
carries is for pages to show: it binds nothing, seats.py; a club's own token must use the
identity `seat-N` too) and lets him
publish nothing at join: the engine's grant opens his microphone when his turn comes (a
token allowing it let a rejoining player talk for ~120 ms before the revoke). The host's
token is a room admin's and carries the host proof (proof.py). `token_route` serves
`POST /livekit/token`, authorized by our own signed seat link (checked by a callable passed
in, so this module does not depend on it).
"""

from __future__ import annotations

import datetime
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import jwt
from livekit.api import AccessToken, TokenVerifier, VideoGrants
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from plugin.bodies import BadBody, decode_json, read_body
from plugin.rooms.livekit.proof import host_attributes
from plugin.rooms.livekit.seats import (
    BOT_IDENTITY,
    SEAT_ATTRIBUTE,
    host_identity,
    identity_for_seat,
    is_host_identity,
    seat_of,
)

Seat = int | Literal["host"]
Viewer = Seat | Literal["watch"]  # "watch": a spectator (a watch link's token)
# our link token -> (table id, seat, "host" or "watch"), or None when it is not valid
# (table, seat, the link's generation) of one of our links, or None (refused).
LinkVerifier = Callable[[str], "tuple[str, Viewer, int] | None"]

Clock = Callable[[], float]  # seconds since the epoch: a token's nbf and exp are stamped with it

# Minutes, not hours (issue 30): a re-issued host link left a room admin for 6 h. LiveKit
# itself pushes a refreshed token to every connected participant (with the same identity,
# so the same link generation) well before it expires; a page that reloads asks
# /livekit/token again with its link, which is refused once the link was re-issued.
DEFAULT_TTL = datetime.timedelta(minutes=10)


class InvalidToken(ValueError):
    """A LiveKit token that is forged, expired, for another room or bound to no seat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Credentials:
    """Where the club's LiveKit server is and the API key pair that signs for it."""

    url: str
    api_key: str
    api_secret: str

    def __post_init__(self) -> None:
        for name in ("url", "api_key", "api_secret"):
            if not getattr(self, name):
                raise ValueError(f"LiveKit {name} is required")


MAX_BODY_BYTES = 16 * 1024  # {"link": token} or {"token": a LiveKit token}: under 2 KiB
CREDENTIALS_ENV = ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET")


def credentials_from(environ: Mapping[str, str]) -> Credentials:
    """The club's LiveKit server and API key from the environment (ValueError naming what
    is missing): a secret stays out of the command line."""
    missing = [name for name in CREDENTIALS_ENV if not environ.get(name)]
    if missing:
        raise ValueError(f"set {', '.join(missing)} (the club's LiveKit server and API key)")
    return Credentials(
        url=environ["LIVEKIT_URL"],
        api_key=environ["LIVEKIT_API_KEY"],
        api_secret=environ["LIVEKIT_API_SECRET"],
    )


def _sign(
    creds: Credentials,
    identity: str,
    name: str,
    grants: VideoGrants,
    ttl: datetime.timedelta,
    attributes: dict[str, str] | None = None,
    clock: Clock = time.time,
) -> str:
    """AccessToken's claims, stamped (nbf, exp) with `clock`, not this machine's time as
    AccessToken.to_jwt does. A server of a shared log passes the log's clock (EventLog.wall,
    the database's, as its links' Signer), so every server of the club mints the same
    validity window whatever its own clock says (issue 31, "time across servers"): LiveKit
    checks them with its own clock and one minute of leeway (livekit/protocol
    auth/verifier.go, tokenLeeway), so a server more than a minute fast minted tokens
    LiveKit refused as not yet valid, and one slow minted tokens that lived less."""
    if grants.room_join and not (identity and grants.room):
        raise ValueError("identity and room must be set when joining a room")
    token = AccessToken(creds.api_key, creds.api_secret).with_identity(identity).with_name(name)
    if attributes:
        token = token.with_attributes(attributes)
    claims = token.with_grants(grants).claims.asdict()
    issued = int(clock())
    claims.update(
        {
            "sub": identity,
            "iss": creds.api_key,
            "nbf": issued,
            "exp": issued + int(ttl.total_seconds()),
        }
    )
    return jwt.encode(claims, creds.api_secret, algorithm="HS256")


def service_token(
    creds: Credentials, grants: VideoGrants | None, *, clock: Clock = time.time
) -> str:
    """A RoomService call's token, as the SDK's Service._auth_header mints it (no identity)
    but stamped with `clock`: the SDK stamps it with this machine's clock, which LiveKit
    refused ("token is not valid yet") from a server more than a minute fast (issue 31)."""
    return _sign(creds, "", "", grants or VideoGrants(), DEFAULT_TTL, clock=clock)


def player_token(
    creds: Credentials,
    room: str,
    seat: int,
    *,
    name: str = "",
    ttl: datetime.timedelta = DEFAULT_TTL,
    generation: int = 0,
    clock: Clock = time.time,
) -> str:
    """A player's token: identity `seat-N` (`seat-N.G` once his link was re-issued G
    times), attribute seat, may publish nothing until the engine grants his microphone."""
    grants = VideoGrants(
        room_join=True,
        room=room,
        can_publish=False,
        can_subscribe=True,
        can_publish_data=True,
    )
    attributes = {SEAT_ATTRIBUTE: str(seat)}
    identity = player_identity(seat, generation)
    return _sign(creds, identity, name or f"{seat}", grants, ttl, attributes, clock)


def player_identity(seat: int, generation: int = 0) -> str:
    """A player's identity for his link's generation. A re-issued link's token gets one of
    its own, so the old token's holder, who may rejoin with it until it expires, never
    replaces the new one in the room (LiveKit lets one session per identity)."""
    return identity_for_seat(seat) + (f".{generation}" if generation else "")


def host_token(
    creds: Credentials,
    room: str,
    *,
    ttl: datetime.timedelta = DEFAULT_TTL,
    generation: int = 0,
    clock: Clock = time.time,
) -> str:
    """The live host's token: room admin, may publish every source, proved (proof.py);
    identity `host`, or `host.G` for the host link's generation G (its own proof)."""
    grants = VideoGrants(
        room_join=True,
        room_admin=True,
        room=room,
        can_publish=True,
        can_subscribe=True,
        can_publish_data=True,
    )
    identity = host_identity(generation)
    attributes = host_attributes(creds.api_secret, room, identity)
    return _sign(creds, identity, "host", grants, ttl, attributes, clock)


def bot_token(
    creds: Credentials,
    room: str,
    *,
    ttl: datetime.timedelta = DEFAULT_TTL,
    identity: str = BOT_IDENTITY,
    clock: Clock = time.time,
) -> str:
    """The bot's token: a visible participant that publishes the host's voice."""
    grants = VideoGrants(
        room_join=True,
        room=room,
        can_publish=True,
        can_publish_sources=["microphone"],
        can_subscribe=True,
        can_publish_data=True,
    )
    return _sign(creds, identity, "Host (autohost)", grants, ttl, clock=clock)


def spectator_token(
    creds: Credentials,
    room: str,
    identity: str,
    *,
    ttl: datetime.timedelta = DEFAULT_TTL,
    clock: Clock = time.time,
) -> str:
    """A spectator's token (issue 17): hidden from the room, subscribes only; may publish
    no track and no data, and update nothing of his own."""
    grants = VideoGrants(
        room_join=True,
        room=room,
        hidden=True,
        can_publish=False,
        can_subscribe=True,
        can_publish_data=False,
        can_update_own_metadata=False,
    )
    return _sign(creds, identity, "", grants, ttl, clock=clock)


def new_spectator_identity(generation: int = 0) -> str:
    """A fresh identity for one spectator: `watch-<random>` (no seat, never the bot's),
    `watch.G-<random>` for the watch link's generation G."""
    return f"watch{f'.{generation}' if generation else ''}-{secrets.token_hex(6)}"


def token_for(
    creds: Credentials,
    room: str,
    seat: Viewer,
    identity: str = "",
    generation: int = 0,
    clock: Clock = time.time,
) -> str:
    if seat == "watch":
        return spectator_token(creds, room, identity or new_spectator_identity(), clock=clock)
    if seat == "host":
        return host_token(creds, room, generation=generation, clock=clock)
    return player_token(creds, room, seat, generation=generation, clock=clock)


def verify_club_token(verifier: TokenVerifier, token: str) -> tuple[str, Seat]:
    """(room, seat or "host") of a LiveKit token, for a club's own tokens.

    Raises InvalidToken when the signature or expiry is wrong, no room or no seat is bound,
    or a "host" token is not a room admin's.
    """
    try:
        claims = verifier.verify(token)
    except (jwt.PyJWTError, ValueError) as error:
        raise InvalidToken(f"LiveKit token refused: {error}") from error
    video = claims.video
    if video is None or not video.room:
        raise InvalidToken("LiveKit token names no room")
    if is_host_identity(claims.identity):
        if not video.room_admin:
            raise InvalidToken("a host token must be a room admin's")
        return video.room, "host"
    seat = seat_of(claims.identity)  # the identity only, as in the room (seats.py)
    if seat is None:
        raise InvalidToken(f"LiveKit token for {claims.identity!r} is bound to no seat")
    return video.room, seat


def verify_seat(verifier: TokenVerifier, token: str, *, room: str | None = None) -> Seat:
    """The seat (or "host") a LiveKit token is bound to; InvalidToken as above, or when
    it is for another room than `room`."""
    token_room, seat = verify_club_token(verifier, token)
    if room is not None and token_room != room:
        raise InvalidToken(f"LiveKit token is not for room {room!r}")
    return seat


def link_route(
    verifier: TokenVerifier,
    table_for_room: Callable[[str], str | None],
    issue_link: Callable[[str, Seat], str],
    path: str = "/livekit/link",
) -> Route:
    """`POST /livekit/link` with JSON {"token": "<a club's own LiveKit token>"} answers
    {"table", "seat", "link"}: our seat link for the seat that token is bound to, so a
    widget in a club's frontend speaks our WebSocket protocol with the club's tokens."""

    async def exchange(request: Request) -> JSONResponse:
        token = await _string_field(request, "token", 'expected {"token": "<LiveKit token>"}')
        if isinstance(token, JSONResponse):
            return token
        try:
            room, seat = verify_club_token(verifier, token)
        except InvalidToken as refusal:
            return _refuse(401, "unauthorized", str(refusal))
        table = table_for_room(room)
        if table is None:
            return _refuse(404, "no_table", f"no table in LiveKit room {room!r}")
        return JSONResponse({"table": table, "seat": seat, "link": issue_link(table, seat)})

    return Route(path, exchange, methods=["POST"])


def token_route(
    creds: Credentials,
    seat_for_link_token: LinkVerifier,
    room_for_table: Callable[[str], str | None] = lambda table: table,
    path: str = "/livekit/token",
    clock: Clock = time.time,
) -> Route:
    """`POST /livekit/token` with JSON {"link": "<our seat link token>"} answers
    {"url", "room", "identity", "seat", "token"}: the LiveKit token for that seat, stamped
    with `clock` (the log's, on a server: _sign)."""

    async def mint(request: Request) -> JSONResponse:
        link = await _string_field(request, "link", 'expected {"link": "<seat link token>"}')
        if isinstance(link, JSONResponse):
            return link
        bound = seat_for_link_token(link)
        if bound is None:
            return _refuse(401, "unauthorized", "the seat link is not valid")
        table, seat, generation = bound
        room = room_for_table(table)
        if room is None:
            return _refuse(404, "no_table", f"no LiveKit room for table {table!r}")
        if seat == "watch":
            identity = new_spectator_identity(generation)
        elif seat == "host":
            identity = host_identity(generation)
        else:
            identity = player_identity(seat, generation)
        token = token_for(creds, room, seat, identity, generation, clock=clock)
        return JSONResponse(
            {"url": creds.url, "room": room, "identity": identity, "seat": seat, "token": token}
        )

    return Route(path, mint, methods=["POST"])


async def _string_field(request: Request, name: str, expected: str) -> str | JSONResponse:
    """The non-empty string `name` of the request's JSON body, or the refusal to answer."""
    try:
        body = decode_json(await read_body(request, MAX_BODY_BYTES))
    except BadBody as refusal:
        code = "too_large" if refusal.status == 413 else "malformed"
        return _refuse(refusal.status, code, refusal.message)
    value = body.get(name) if isinstance(body, dict) else None
    if not isinstance(value, str) or not value:
        return _refuse(400, "malformed", expected)
    return value


def _refuse(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)
