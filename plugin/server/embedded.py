"""The embedded room as a server hosts it: per table an EmbeddedRoom whose bot voice is the
table's announcer, and the routes a whole server mounts (pages, rtc offer, video mesh)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from aiortc import RTCIceServer
from starlette.routing import BaseRoute

from plugin.host.ports import RoomBackend, Voice
from plugin.host.settings import TableSettings
from plugin.host.silent import SilentRoom, SilentVoice
from plugin.host.views import STREAM, Viewer
from plugin.rooms.embedded.room import MAX_LISTENERS, WATCH, EmbeddedRoom
from plugin.rooms.embedded.signalling import rtc_routes
from plugin.web.context import Server
from plugin.web.pages import page_routes
from plugin.web.video import video_routes
from voice.announcer import Announcer


class EmbeddedTables:
    """Registry factories for the embedded room: table `table_id` (or every table, when
    None) gets an EmbeddedRoom whose bot voice is the table's Announcer; the rest get the
    silent adapters (old demo tables replayed from the log cost nothing).

    The registry asks for a table's room before its voice, so `room()` makes both and
    `voice()` hands the announcer over.
    """

    def __init__(
        self,
        *,
        table_id: str | None = None,
        voice: bool = True,
        ice_servers: Callable[[], Sequence[RTCIceServer]] | None = None,
        max_listeners: int = MAX_LISTENERS,
    ) -> None:
        self.table_id = table_id
        self.max_listeners = max_listeners  # spectators listening per table
        self.voice_on = voice
        self.ice_servers = ice_servers  # every server-side peer's STUN/TURN servers
        self.rooms: dict[str, EmbeddedRoom] = {}
        self._voices: dict[str, Voice] = {}

    def room(self, table_id: str, settings: TableSettings) -> RoomBackend:
        if self.table_id is not None and table_id != self.table_id:
            return SilentRoom()
        announcer = Announcer(
            settings.language,
            enabled=self.voice_on,
            pack=settings.voice_pack,
            engine=settings.voice_engine,
            voice=settings.voice_name,
            seats=range(1, settings.seats + 1),  # its phrases rendered before the game starts
        )
        self._voices[table_id] = announcer
        room = EmbeddedRoom(
            seats=settings.seats, bot_audio=announcer.pcm_frames(), ice_servers=self.ice_servers,
            max_listeners=self.max_listeners,
        )  # fmt: skip
        self.rooms[table_id] = room
        return room

    def voice(self, table_id: str, settings: TableSettings) -> Voice:
        return self._voices.pop(table_id, None) or SilentVoice()

    def room_for(self, table_id: str) -> EmbeddedRoom | None:
        return self.rooms.get(table_id)

    def routes(self, server: Server) -> list[BaseRoute]:
        """`POST /rtc/{table_id}/offer`, admitting the seat (or host) of a signed token, and
        a spectator's watch token as a listener. A re-issued link's peer is closed with the
        link's other sessions (Hub.close_viewer)."""
        server.hub.on_close_viewer(self.disconnect)
        return list(rtc_routes(self.room_for, server.authorize_media))

    def disconnect(self, table_id: str, viewer: Viewer, code: str, message: str) -> None:
        """Close the room's peer of one seat or the host; the spectators' (viewer None, or
        the stream overlay's) all: they share the watch link. A WebRTC peer has no close
        code: its page sees the connection fail, and its next offer is refused."""
        room = self.rooms.get(table_id)
        if room is not None:
            room.disconnect(WATCH if viewer is None or viewer == STREAM else viewer)


def embedded_routes(tables: EmbeddedTables) -> Sequence[Callable[[Server], Sequence[BaseRoute]]]:
    """Every route a full server mounts: the pages, the rtc offer, the video mesh."""
    return (page_routes, tables.routes, video_routes)
