"""What a re-issued link ends (issue 17; issue 31: "a re-issue must end every path the old
device had"): the link's new generation first, durable; then every socket of the old one
(/ws, /lobby, and through Hub.close_viewer /video and the embedded room's peers), and the
lobby's entry seated on a re-issued seat with its devices' lobby sockets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from plugin.host.inputs import HOST, WATCH
from plugin.host.table import Table
from plugin.host.views import STREAM, Viewer
from plugin.signing import INVITE

from . import lobby_presence
from .context import Server

Link = int | Literal["host", "watch", "invite"]


async def reissue(server: Server, table: Table, seats: Sequence[Link]) -> None:
    """New links for `seats` of an open table, and nothing of the old ones left open.
    LogUnavailable passes (nothing changed)."""
    await table.reissue(seats)
    if INVITE in seats:  # the lobby's players reconnect with the new invite link
        server.lobbies.close_players(table.id, "token_reissued", "this link was replaced")
        lobby_presence.schedule_sweep(server, server.lobbies.room(table))
    if HOST in seats:  # the old host token's console would still seat players
        server.lobbies.close_consoles(table.id, "token_reissued", "this link was replaced")
    for seat in seats:  # spectators are the public viewer (None), the overlay "stream"
        if seat == INVITE:
            continue
        viewers: list[Viewer] = [None, STREAM] if seat == WATCH else [seat]
        for viewer in viewers:
            server.hub.close_viewer(table.id, viewer, "token_reissued", "this link was replaced")
    await lobby_presence.vacate(server, table, [s for s in seats if isinstance(s, int)])
