"""LiveKit mode as a server hosts it: every table lives in its own LiveKit room (the one its
settings name, `livekit_room`, else `autohost-<table id>`), with one bot per table speaking
there; the server mounts /livekit/token, /livekit/link and one /livekit/webhook for every
table (events routed by room name), and the static files of LiveKit mode.

`autohost livekit --room NAME` is the same code with one table: `only` that table is
hosted (others in the log stay silent, as before), in the room `rooms` names for it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Literal

from livekit.api import TokenVerifier
from starlette.routing import BaseRoute

from plugin.host.ports import LogUnavailable, RoomBackend, Voice
from plugin.host.settings import TableSettings
from plugin.host.silent import SilentRoom, SilentVoice
from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import RUN_END_FRAMES, LiveKitBot
from plugin.rooms.livekit.botroom import BotRoom, VoiceOnDemand
from plugin.rooms.livekit.guard import DataGuard, tell_hosts
from plugin.rooms.livekit.rpc import OverlayChannel
from plugin.rooms.livekit.static import static_routes
from plugin.rooms.livekit.tokens import Credentials, bot_token, link_route, token_route
from plugin.rooms.livekit.webhook import webhook_route
from plugin.signing import TokenError
from plugin.web.context import Server
from voice.announcer import Announcer

from .overlay import TableOverlay

log = logging.getLogger(__name__)

LINK_FROM_CLUB_TOKEN_SECONDS = 12 * 3600  # a link from a club's token: one evening
ROOM_PREFIX = "autohost-"  # a table without a room of its own: autohost-<table id>
# The bot sends no silence, so its announcer's clock rests half a second after a phrase
# (not 5 s): 50 ticks a second of Python for nothing at every table that just spoke.
BOT_IDLE_FRAMES = 5 * RUN_END_FRAMES  # and the bot still sees every phrase end


def room_name_for(table_id: str, settings: TableSettings) -> str:
    """The LiveKit room of a table: the one its settings name, else one from its id."""
    return settings.livekit_room or f"{ROOM_PREFIX}{table_id}"


class LiveKitTables:
    """Registry factories: each table in its LiveKit room, with its bot and its voice.

    A room is hosted by one table at a time: a table that names a room another table holds
    (a club's room reused for the next game) takes it over, and the older table's bot
    leaves without touching a microphone.
    """

    def __init__(
        self,
        creds: Credentials,
        *,
        only: str | None = None,
        rooms: Mapping[str, str] | None = None,
        voice_factory: Callable[[str], Voice] | None = None,
        reconcile_every: float = 5.0,
        grace: float = 10.0,
    ) -> None:
        self.creds = creds
        self.only = only
        self.hosted: dict[str, BotRoom] = {}  # table id -> its room
        self.tables_by_room: dict[str, str] = {}  # LiveKit room name -> table id
        self.rooms_by_table: dict[str, str] = {}
        self._fixed_rooms = dict(rooms or {})
        self._voice_factory = voice_factory  # None: each table's Announcer, with its pack
        self._voices: dict[str, Voice] = {}
        self._reconcile_every = reconcile_every
        self._grace = grace
        self.overlays: dict[str, TableOverlay] = {}  # table id -> its overlay (RPC, data)
        self._reissues: dict[str, asyncio.Task[None]] = {}  # table id -> its pass
        self._reissue_again: set[str] = set()  # re-issued while its pass ran
        self._tasks: set[asyncio.Task[None]] = set()  # floods being answered
        self._server: Server | None = None  # set by routes(), before any table opens
        # Whether this server may touch a table's microphones now (its lease is fresh):
        # the registry's answer once routes() has the server.
        self.holds: Callable[[str], bool] = lambda table_id: True
        # What our LiveKit tokens are stamped with (tokens._sign): this machine's clock
        # until routes() hands us the server's, whose signer keeps the log's time (issue 31).
        self.clock: Callable[[], float] = time.time

    def room(self, table_id: str, settings: TableSettings) -> RoomBackend:
        if self.only is not None and table_id != self.only:
            return SilentRoom()
        name = self._fixed_rooms.get(table_id) or room_name_for(table_id, settings)
        previous = self.tables_by_room.get(name)
        replaces = self.hosted.pop(previous, None) if previous not in (None, table_id) else None
        if previous is not None and previous != table_id:
            self.rooms_by_table.pop(previous, None)
            log.warning("livekit: table %s takes room %s over from %s", table_id, name, previous)
        room = LiveKitRoom.connect(
            self.creds.url, self.creds.api_key, self.creds.api_secret, name,
            reconcile_every=self._reconcile_every, grace=self._grace,
            may_act=lambda: self.holds(table_id), seats=settings.seats,
            generations=lambda: self._generations(table_id), clock=self.clock,
        )  # fmt: skip
        # The overlay's RPC methods are registered at each join of the bot (a rejoin, or a
        # new owner after a failover, is a new session: the methods go with it).
        channel = OverlayChannel(room)
        channel.handler = self.overlays[table_id] = TableOverlay(
            table_id, channel, lambda: self._server
        )

        async def joined(sid: str) -> None:
            await room.bot_joined(sid, bot.room.local_participant.identity)
            channel.attach(bot.room)

        def bot_token_for(identity: str) -> str:
            """The bot's token for this join; the room knows the name before the server's
            webhook can name it (else our own bot would look like an impostor)."""
            room.bot_identity = identity
            return bot_token(self.creds, name, identity=identity, clock=self.clock)

        def flooding(identity: str, dropped: int) -> None:
            """A participant keeps flooding the bot with data: removed, the host told."""
            self._spawn(self._remove_flooder(room, bot, identity, dropped))

        bot = LiveKitBot(
            self.creds.url,
            lambda: bot_token(self.creds, name, clock=self.clock),
            events=room,
            on_session=joined,
            on_reconnect=room.relist_soon,
            guard=DataGuard(on_flood=flooding),
            token_for=bot_token_for,
        )

        def impostor(identity: str) -> None:  # removed by the room: the host is told
            notice = {"event": "bot_impostor", "identity": identity, "removed": True}
            self._spawn(tell_hosts(bot.room, room.hosts(), notice))

        room.on_impostor = impostor
        hosted = BotRoom(room, bot, None, replaces=replaces)
        voice = (
            self._voice_factory(settings.language)
            if self._voice_factory
            else Announcer(
                settings.language,
                pack=settings.voice_pack,
                idle_frames=BOT_IDLE_FRAMES,
                engine=settings.voice_engine,
                voice=settings.voice_name,
                seats=range(1, settings.seats + 1),  # rendered before the game starts
            )
        )
        voice.on_cut(bot.interrupt)  # an urgent phrase drops what the bot has queued
        self._voices[table_id] = VoiceOnDemand(voice, hosted)
        self.hosted[table_id] = hosted
        self.tables_by_room[name] = table_id
        self.rooms_by_table[table_id] = name
        return hosted

    async def _remove_flooder(
        self, room: LiveKitRoom, bot: LiveKitBot, identity: str, dropped: int
    ) -> None:
        removed = await room.remove(identity)
        if bot.guard is not None:
            bot.guard.forget(identity)
        notice = {"event": "data_flood", "identity": identity, "dropped": dropped,
                  "removed": removed}  # fmt: skip
        await tell_hosts(bot.room, room.hosts(), notice)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def voice(self, table_id: str, settings: TableSettings) -> Voice:
        return self._voices.pop(table_id, None) or SilentVoice()

    def _generations(self, table_id: str) -> Mapping[int | str, int]:
        """Each seat's link generation at a table (none known before routes() ran)."""
        registry = self._server.registry if self._server is not None else None
        if registry is None:
            return {}
        try:
            return registry.link_generations(table_id)
        except LogUnavailable:
            return {}

    def reissued(self, table_id: str, viewer: object, code: str, message: str) -> None:
        """Hub.on_close_viewer: a link of `table_id` was re-issued; its room removes the
        sessions of older tokens of ours (LiveKitRoom.reissued)."""
        if table_id in self._reissues:  # a pass is on its way: one more after it, which
            self._reissue_again.add(table_id)  # sees every re-issue made by then
            return
        hosted = self.hosted.get(table_id)
        if hosted is None:
            return
        task = asyncio.get_running_loop().create_task(hosted.room.reissued())
        self._reissues[table_id] = task
        task.add_done_callback(lambda done: self._reissue_done(table_id, done))

    def _reissue_done(self, table_id: str, task: asyncio.Task[None]) -> None:
        self._reissues.pop(table_id, None)
        if not task.cancelled() and task.exception() is not None:
            log.warning("livekit: removing re-issued sessions failed: %s", task.exception())
        if table_id in self._reissue_again:
            self._reissue_again.discard(table_id)
            self.reissued(table_id, None, "", "")

    def events_for(self, room_name: str) -> BotRoom | None:
        """The webhook's lookup: the BotRoom of a LiveKit room name, if it is ours."""
        table_id = self.tables_by_room.get(room_name)
        return None if table_id is None else self.hosted.get(table_id)

    def routes(self, server: Server) -> list[BaseRoute]:
        """/livekit/token, /livekit/link, /livekit/webhook and LiveKit mode's static files."""

        def seat_for_link(link: str) -> tuple[str, int | Literal["host", "watch"], int] | None:
            """A link of a table, for one of its seats, of the seat's current link: the
            same check as every other endpoint's (Server.admit); a watch link gets a
            spectator's subscribe-only, hidden LiveKit token (tokens.spectator_token). On a
            shared log a table another server hosts is checked against the log, so a page
            gets its LiveKit token from any server of the club (the bot is in the room
            whichever server runs it)."""
            registry = server.registry
            if registry is None:
                return None
            try:
                claimed = server.claim(link)
                table = registry.tables.get(claimed.table)
                if table is None:
                    if registry.leases is None or registry.log.is_archived(claimed.table):
                        return None
                    if registry.log.table_settings(claimed.table) is None:
                        return None
                links = table if table is not None else server.link_state(claimed.table)
                grant = server.admit(link, links)
            except (TokenError, LogUnavailable):
                return None
            return grant.table, grant.seat, grant.generation

        def room_of(table_id: str) -> str | None:
            """The LiveKit room of a table: the one its bot is in here, else (a table
            another server hosts) the one its settings name."""
            name = self.rooms_by_table.get(table_id)
            registry = server.registry
            if name is not None or registry is None or table_id in registry.tables:
                return name  # hosted here: its bot's room, or none (a table without one)
            if registry.leases is None:
                return None
            try:
                record = registry.log.table_settings(table_id)
            except LogUnavailable:
                return None
            if record is None:
                return None
            settings = TableSettings.from_record(record)
            return self._fixed_rooms.get(table_id) or room_name_for(table_id, settings)

        def issue_link(table: str, seat: int | Literal["host"]) -> str:
            registry = server.registry  # the seat's link as it is now (re-issued or not)
            generation = registry.link_generations(table).get(seat, 0) if registry else 0
            return server.signer.issue(
                table, seat, lifetime=LINK_FROM_CLUB_TOKEN_SECONDS, generation=generation
            )

        self._server = server
        # The links' clock, read at each mint: the lifespan sets it to the log's (app.py).
        self.clock = lambda: server.signer.clock()
        self.holds = lambda table_id: server.registry is None or server.registry.holds(table_id)
        server.hub.on_close_viewer(self.reissued)  # the old LiveKit sessions go too
        verifier = TokenVerifier(self.creds.api_key, self.creds.api_secret)
        return [
            token_route(self.creds, seat_for_link, room_of, clock=self.clock),
            link_route(verifier, self.tables_by_room.get, issue_link),
            webhook_route(
                self.creds.api_key, self.creds.api_secret, self.events_for, clock=self.clock
            ),
            *static_routes(),
        ]
