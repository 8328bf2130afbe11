"""The embedded room as a server hosts it: per table an EmbeddedRoom whose bot voice is the
table's announcer, the rtc signalling route, and ICE that also offers loopback.

`autohost serve` and `autohost demo` assemble their server from here, so both serve the same
pages, media and video routes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from starlette.routing import BaseRoute

from plugin.host.settings import TableSettings
from plugin.host.silent import SilentRoom, SilentVoice
from plugin.rooms.base import RoomBackend, Voice

from .room import EmbeddedRoom
from .signalling import rtc_routes


class EmbeddedTables:
    """Registry factories for the embedded room: table `table_id` (or every table, when
    None) gets an EmbeddedRoom whose bot voice is the table's Announcer; the rest get the
    silent adapters (old demo tables replayed from the log cost nothing).

    The registry asks for a table's room before its voice, so `room()` makes both and
    `voice()` hands the announcer over.
    """

    def __init__(self, *, table_id: str | None = None, voice: bool = True) -> None:
        self.table_id = table_id
        self.voice_on = voice
        self.rooms: dict[str, EmbeddedRoom] = {}
        self._voices: dict[str, Voice] = {}

    def room(self, table_id: str, settings: TableSettings) -> RoomBackend:
        if self.table_id is not None and table_id != self.table_id:
            return SilentRoom()
        from voice.announcer import Announcer

        announcer = Announcer(settings.language, enabled=self.voice_on)
        self._voices[table_id] = announcer
        room = EmbeddedRoom(seats=settings.seats, bot_audio=announcer.pcm_frames())
        self.rooms[table_id] = room
        return room

    def voice(self, table_id: str, settings: TableSettings) -> Voice:
        return self._voices.pop(table_id, None) or SilentVoice()

    def room_for(self, table_id: str) -> EmbeddedRoom | None:
        return self.rooms.get(table_id)

    def routes(self, server: Any) -> list[BaseRoute]:
        """`POST /rtc/{table_id}/offer`, admitting the seat (or host) of a signed token."""
        return list(rtc_routes(self.room_for, server.authorize))


def use_host_and_loopback_ice() -> None:
    """Gather the machine's addresses AND 127.0.0.1: a browser on another machine reaches
    the LAN address, the simulated players in this process reach loopback (aioice leaves
    127.0.0.1 out by itself, FIELD-NOTES). Process-wide, like plugin.rooms.embedded.ice."""
    import aioice.ice

    from plugin.rooms.embedded.ice import _ORIGINAL

    def addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        found = list(_ORIGINAL(use_ipv4=use_ipv4, use_ipv6=use_ipv6))
        return found + (["127.0.0.1"] if use_ipv4 and "127.0.0.1" not in found else [])

    aioice.ice.get_host_addresses = addresses


def server_routes(tables: EmbeddedTables) -> Sequence[Callable[[Any], Sequence[BaseRoute]]]:
    """Every route a full server mounts: the pages, the rtc offer, the video mesh."""
    from plugin.web.pages import page_routes
    from plugin.web.video import video_routes

    return (page_routes, tables.routes, video_routes)
