"""LiveKit mode as a server hosts it: table `table_id` lives in LiveKit room `room_name`, its
bot speaks there, and the server mounts /livekit/token, /livekit/link, /livekit/webhook and
the static files of LiveKit mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from livekit.api import TokenVerifier
from starlette.routing import BaseRoute

from plugin.host.ports import RoomBackend, Voice
from plugin.host.settings import TableSettings
from plugin.host.silent import SilentRoom, SilentVoice
from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import LiveKitBot
from plugin.rooms.livekit.botroom import BotRoom
from plugin.rooms.livekit.static import static_routes
from plugin.rooms.livekit.tokens import Credentials, bot_token, link_route, token_route
from plugin.rooms.livekit.webhook import webhook_route
from plugin.signing import TokenError
from plugin.web.app import Server
from voice.announcer import Announcer

LINK_FROM_CLUB_TOKEN_SECONDS = 12 * 3600  # a link from a club's token: one evening


class LiveKitTables:
    """Registry factories: table `table_id` lives in LiveKit room `room_name`; other tables
    (replayed from the log) get the silent adapters."""

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
        self._voice_factory = voice_factory
        self._voices: dict[str, Voice] = {}
        self._reconcile_every = reconcile_every
        self._grace = grace

    def room(self, table_id: str, settings: TableSettings) -> RoomBackend:
        if table_id != self.table_id:
            return SilentRoom()
        voice = (
            self._voice_factory(settings.language)
            if self._voice_factory
            else Announcer(settings.language, pack=settings.voice_pack)
        )
        self._voices[table_id] = voice
        room = LiveKitRoom.connect(
            self.creds.url, self.creds.api_key, self.creds.api_secret, self.room_name,
            reconcile_every=self._reconcile_every, grace=self._grace,
        )  # fmt: skip
        bot = LiveKitBot(self.creds.url, lambda: bot_token(self.creds, self.room_name), events=room)
        voice.on_cut(bot.interrupt)  # an urgent phrase drops what the bot has queued
        hosted = BotRoom(room, bot, voice.pcm_frames)
        self.rooms[table_id] = hosted
        return hosted

    def voice(self, table_id: str, settings: TableSettings) -> Voice:
        return self._voices.pop(table_id, None) or SilentVoice()

    def events_for(self, room_name: str) -> BotRoom | None:
        """The webhook's lookup: the BotRoom of a LiveKit room name, if it is ours."""
        if room_name != self.room_name:
            return None
        return self.rooms.get(self.table_id)

    def routes(self, server: Server) -> list[BaseRoute]:
        """/livekit/token, /livekit/link, /livekit/webhook and LiveKit mode's static files."""

        def seat_for_link(link: str) -> tuple[str, int | Literal["host"]] | None:
            try:
                grant = server.signer.verify(link)
            except TokenError:
                return None
            return grant.table, grant.seat

        def issue_link(table: str, seat: int | Literal["host"]) -> str:
            return server.signer.issue(table, seat, lifetime=LINK_FROM_CLUB_TOKEN_SECONDS)

        rooms = {self.table_id: self.room_name}
        tables_by_room = {self.room_name: self.table_id}
        verifier = TokenVerifier(self.creds.api_key, self.creds.api_secret)
        return [
            token_route(self.creds, seat_for_link, rooms.get),
            link_route(verifier, tables_by_room.get, issue_link),
            webhook_route(self.creds.api_key, self.creds.api_secret, self.events_for),
            *static_routes(),
        ]
