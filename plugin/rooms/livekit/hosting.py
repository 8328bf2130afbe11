"""A table hosted in a LiveKit room: the room backend with the bot that speaks in it.

`BotRoom` is the table's RoomBackend: LiveKitRoom for the microphones plus LiveKitBot,
which joins as a visible participant and plays the table's voice (the announcer's 20 ms
PCM frames). `LiveKitTables` gives the host registry its factories: the table bound to
the LiveKit room gets a BotRoom and an Announcer sharing one voice; other tables are
left to the defaults.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Literal

from livekit.protocol.models import ParticipantInfo
from starlette.applications import Starlette
from starlette.routing import BaseRoute

from plugin.rooms.base import PresenceCallback, RoomBackend, Voice
from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import LiveKitBot
from plugin.rooms.livekit.tokens import Credentials, bot_token

log = logging.getLogger(__name__)

FrameSource = Callable[[], AsyncIterator[Any]]
LINK_FROM_CLUB_TOKEN_SECONDS = 12 * 3600  # a link from a club's token: one evening


class BotRoom:
    """RoomBackend: microphones through `room`, the voice through `bot`."""

    def __init__(self, room: LiveKitRoom, bot: LiveKitBot, frames: FrameSource | None) -> None:
        self.room = room
        self.bot = bot
        self._frames = frames
        self._playing: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.room.start()
        await self.bot.start()
        if self._frames is not None:
            self._playing = asyncio.create_task(self._play(self._frames), name="livekit-voice")

    async def _play(self, frames: FrameSource) -> None:
        try:
            await self.bot.play(frames())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("livekit: the bot's voice stopped")

    async def set_speakers(self, seats: frozenset[int]) -> None:
        await self.room.set_speakers(seats)

    async def release_all(self) -> None:
        await self.room.release_all()

    def on_presence(self, callback: PresenceCallback) -> None:
        self.room.on_presence(callback)

    async def participant_joined(self, info: ParticipantInfo) -> None:
        await self.room.participant_joined(info)

    async def participant_left(self, identity: str) -> None:
        await self.room.participant_left(identity)

    async def stop(self) -> None:
        if self._playing is not None:
            self._playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._playing
        await self.bot.stop()
        await self.room.stop()


class LiveKitTables:
    """Registry factories: table `table_id` lives in LiveKit room `room_name`."""

    def __init__(
        self,
        creds: Credentials,
        table_id: str,
        room_name: str,
        *,
        voice_factory: Callable[[str], Voice] | None = None,
        reconcile_every: float = 5.0,
        grace: float = 10.0,
    ) -> None:
        self.creds = creds
        self.table_id = table_id
        self.room_name = room_name
        self.rooms: dict[str, BotRoom] = {}
        self._voice_factory = voice_factory or _announcer
        self._voices: dict[str, Voice] = {}
        self._reconcile_every = reconcile_every
        self._grace = grace

    def room(self, table_id: str, settings: Any) -> RoomBackend:
        from plugin.host.silent import SilentRoom

        if table_id != self.table_id:
            return SilentRoom()
        voice = self._voice_factory(settings.language)
        self._voices[table_id] = voice
        room = LiveKitRoom.connect(
            self.creds.url, self.creds.api_key, self.creds.api_secret, self.room_name,
            reconcile_every=self._reconcile_every, grace=self._grace,
        )  # fmt: skip
        bot = LiveKitBot(self.creds.url, lambda: bot_token(self.creds, self.room_name), events=room)
        frames = getattr(voice, "pcm_frames", None)
        on_cut = getattr(voice, "on_cut", None)
        if on_cut is not None:
            on_cut(bot.interrupt)  # an urgent phrase drops what the bot has queued
        hosted = BotRoom(room, bot, frames)
        self.rooms[table_id] = hosted
        return hosted

    def voice(self, table_id: str, settings: Any) -> Voice:
        from plugin.host.silent import SilentVoice

        return self._voices.pop(table_id, None) or SilentVoice()

    def events_for(self, room_name: str) -> BotRoom | None:
        """The webhook's lookup: the BotRoom of a LiveKit room name, if it is ours."""
        if room_name != self.room_name:
            return None
        return self.rooms.get(self.table_id)


def _announcer(language: str) -> Voice:
    from voice.announcer import Announcer

    return Announcer(language)


def livekit_app(
    creds: Credentials,
    room_name: str,
    table_id: str,
    *,
    db_path: Path,
    admin_key: str,
    base_url: str,
    voice: bool = True,
    reconcile_every: float = 5.0,
    grace: float = 10.0,
) -> tuple[Starlette, LiveKitTables]:
    """Our server (plugin.web.app) with table `table_id` hosted in LiveKit room `room_name`:
    its room and voice through LiveKitTables, plus /livekit/token, /livekit/webhook and
    the static files of LiveKit mode."""
    from livekit.api import TokenVerifier

    from plugin.host.silent import SilentVoice
    from plugin.rooms.livekit.static import static_routes
    from plugin.rooms.livekit.tokens import link_route, token_route
    from plugin.rooms.livekit.webhook import webhook_route
    from plugin.web.app import Server, ServerConfig, create_app
    from plugin.web.tokens import TokenError

    tables = LiveKitTables(
        creds, table_id, room_name,
        voice_factory=None if voice else (lambda language: SilentVoice()),
        reconcile_every=reconcile_every, grace=grace,
    )  # fmt: skip

    def livekit_routes(server: Server) -> list[BaseRoute]:
        def seat_for_link(link: str) -> tuple[str, int | Literal["host"]] | None:
            try:
                grant = server.signer.verify(link)
            except TokenError:
                return None
            return grant.table, grant.seat

        def issue_link(table: str, seat: int | Literal["host"]) -> str:
            return server.signer.issue(table, seat, lifetime=LINK_FROM_CLUB_TOKEN_SECONDS)

        rooms = {table_id: room_name}
        tables_by_room = {room_name: table_id}
        verifier = TokenVerifier(creds.api_key, creds.api_secret)
        return [
            token_route(creds, seat_for_link, rooms.get),
            link_route(verifier, tables_by_room.get, issue_link),
            webhook_route(creds.api_key, creds.api_secret, tables.events_for),
            *static_routes(),
        ]

    config = ServerConfig(
        db_path=db_path, admin_key=admin_key, base_url=base_url,
        room_factory=tables.room, voice_factory=tables.voice, routes=(livekit_routes,),
    )  # fmt: skip
    return create_app(config), tables
