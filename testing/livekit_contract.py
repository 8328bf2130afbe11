"""A loopback stand-in for LiveKit's RoomService, for what the real server won't do on demand.

It serves `POST /twirp/livekit.RoomService/<Method>` like the real one: protobuf bodies,
a JWT bearer whose `video` grant must carry roomAdmin and the request's room, Twirp JSON
errors, 404 for an unknown participant. A revoked microphone is unpublished, as the real
server does. On demand it answers 500 or never answers (a timeout), records every request
and the most calls it ever processed at once for one room (livekit/livekit#2079).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from dataclasses import dataclass, field

import jwt
from aiohttp import web
from livekit.api import TokenVerifier
from livekit.protocol.models import (
    ParticipantInfo,
    ParticipantPermission,
    TrackInfo,
    TrackSource,
    TrackType,
)
from livekit.protocol.room import (
    ListParticipantsRequest,
    ListParticipantsResponse,
    RemoveParticipantResponse,
    RoomParticipantIdentity,
    UpdateParticipantRequest,
)

MIC = TrackSource.MICROPHONE
Request = ListParticipantsRequest | UpdateParticipantRequest | RoomParticipantIdentity
PARSERS: dict[str, Callable[[bytes], Request]] = {
    "ListParticipants": ListParticipantsRequest.FromString,
    "UpdateParticipant": UpdateParticipantRequest.FromString,
    "GetParticipant": RoomParticipantIdentity.FromString,
    "RemoveParticipant": RoomParticipantIdentity.FromString,
}


@dataclass
class Recorded:
    method: str
    request: Request


@dataclass
class ContractServer:
    api_key: str
    api_secret: str
    processing: float = 0.002  # seconds a call is "in flight", so overlaps can be seen
    list_delay: float = 0.0  # ListParticipants takes this much longer (a distant server)
    rooms: dict[str, dict[str, ParticipantInfo]] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    max_in_flight: int = 0
    _faults: collections.deque[str] = field(default_factory=collections.deque)
    _in_flight: collections.Counter[str] = field(default_factory=collections.Counter)
    _runner: web.AppRunner | None = None
    _closing: asyncio.Event = field(default_factory=asyncio.Event)
    port: int = 0

    # control -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def inject(self, *faults: str) -> None:
        """Queue faults for the next calls: "500" answers an internal error, "hang" never
        answers (the client times out and nothing is applied)."""
        assert all(fault in {"500", "hang"} for fault in faults)
        self._faults.extend(faults)

    def join(
        self,
        room: str,
        identity: str,
        *,
        attributes: dict[str, str] | None = None,
        mic: bool = True,
    ) -> ParticipantInfo:
        """A participant joins with a player token's grants (microphone only) and, if `mic`,
        a published microphone track."""
        info = ParticipantInfo(
            sid=f"PA_{identity}",
            identity=identity,
            state=ParticipantInfo.State.ACTIVE,
            attributes=attributes or {},
            kind=ParticipantInfo.Kind.STANDARD,
            permission=ParticipantPermission(
                can_subscribe=True,
                can_publish=True,
                can_publish_data=True,
                can_publish_sources=[MIC],
            ),
        )
        if mic:
            info.tracks.append(TrackInfo(sid=f"TR_{identity}", source=MIC, type=TrackType.AUDIO))
        self.rooms.setdefault(room, {})[identity] = info
        return info

    def leave(self, room: str, identity: str) -> None:
        self.rooms.get(room, {}).pop(identity, None)

    def publishing(self, room: str) -> set[str]:
        """Identities with a published microphone in `room`."""
        return {
            p.identity
            for p in self.rooms.get(room, {}).values()
            if any(t.source == MIC for t in p.tracks)
        }

    def updates(self) -> list[UpdateParticipantRequest]:
        return [r.request for r in self.requests if r.method == "UpdateParticipant"]  # type: ignore[misc]

    # server --------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/twirp/livekit.RoomService/{method}", self._handle)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        parse = PARSERS.get(method)
        if parse is None:
            return _error(404, "bad_route", f"no method {method}")
        if request.content_type != "application/protobuf":
            return _error(400, "malformed", "expected application/protobuf")
        try:
            message = parse(await request.read())
        except Exception:
            return _error(400, "malformed", "undecodable protobuf body")
        denied = self._authorize(request.headers.get("Authorization", ""), message.room)
        if denied is not None:
            return denied
        self.requests.append(Recorded(method, message))
        if self._faults:
            fault = self._faults.popleft()
            if fault == "hang":
                await self._closing.wait()  # the client gives up; nothing is applied
            return _error(500, "internal", "injected failure")
        self._in_flight[message.room] += 1
        self.max_in_flight = max(self.max_in_flight, self._in_flight[message.room])
        try:
            listing = isinstance(message, ListParticipantsRequest)
            if listing:  # the answer is the room as it was when the call arrived
                answer = self._apply(method, message)
            await asyncio.sleep(self.processing + (self.list_delay if listing else 0.0))
            return answer if listing else self._apply(method, message)
        finally:
            self._in_flight[message.room] -= 1

    def _authorize(self, header: str, room: str) -> web.Response | None:
        if not header.startswith("Bearer "):
            return _error(401, "unauthenticated", "missing bearer token")
        try:
            claims = TokenVerifier(self.api_key, self.api_secret).verify(header[7:])
        except jwt.PyJWTError as error:
            return _error(401, "unauthenticated", f"invalid token: {error}")
        video = claims.video
        if video is None or not video.room_admin or video.room != room:
            return _error(403, "permission_denied", "needs roomAdmin for this room")
        return None

    def _apply(self, method: str, message: Request) -> web.Response:
        if isinstance(message, ListParticipantsRequest):
            listed = ListParticipantsResponse(
                participants=list(self.rooms.get(message.room, {}).values())
            )
            return _ok(listed)
        assert isinstance(message, UpdateParticipantRequest | RoomParticipantIdentity)
        info = self.rooms.get(message.room, {}).get(message.identity)
        if info is None:
            return _error(404, "not_found", "participant does not exist")
        if method == "RemoveParticipant":
            del self.rooms[message.room][message.identity]
            return _ok(RemoveParticipantResponse())
        if isinstance(message, UpdateParticipantRequest) and message.HasField("permission"):
            info.permission.CopyFrom(message.permission)  # replaces every field, like LiveKit
            allowed = info.permission.can_publish and (
                not info.permission.can_publish_sources
                or MIC in info.permission.can_publish_sources
            )
            if not allowed:
                kept = [t for t in info.tracks if t.source != MIC]
                del info.tracks[:]
                info.tracks.extend(kept)
        return _ok(info)


def _ok(message: object) -> web.Response:
    return web.Response(body=message.SerializeToString(), content_type="application/protobuf")  # type: ignore[attr-defined]


def _error(status: int, code: str, msg: str) -> web.Response:
    return web.json_response({"code": code, "msg": msg}, status=status)
