"""What each lobby socket sees (issue 17): the host's console the whole lobby (who waits,
who sits where and whether his device is there, the devices asking), a player his own
place, with his seat's token once seated (to his own socket only). `broadcast` sends every
socket of a lobby its view after a change.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from plugin.signing import INVITE

from .context import Server
from .lobbies import LobbyClient, LobbyRoom

_encode = msgspec.json.Encoder().encode


def in_use(server: Server, room: LobbyRoom) -> frozenset[int]:
    """The seats a player on the seat's own link holds now (connected, not from the lobby)."""
    lobby_seats = {e.seat for e in room.lobby.entries.values()}
    connected = server.hub.connected_seats(room.table.id)
    return frozenset(s for s in connected if isinstance(s, int) and s not in lobby_seats)


def broadcast(server: Server, room: LobbyRoom, *, refused_devices: set[str]) -> None:
    for client in list(room.clients):
        if client.ended:  # its socket is being closed: it is told nothing more
            continue
        client.refused = client.device in refused_devices
        client.connection.push_state(view(server, room, client))


def view(server: Server, room: LobbyRoom, client: LobbyClient) -> bytes:
    """What one socket sees: the host the whole lobby; a player who waits, and his own
    place (with his seat's token once seated, to his own socket only)."""
    lobby, table = room.lobby, room.table
    common: dict[str, Any] = {
        "type": "lobby",
        "table": table.id,
        "language": table.settings.language,
        "waiting": [e.name for e in lobby.waiting()],
    }
    if client.device is None:
        # The invite's token: the console makes the link from its own address, the one
        # the host reached this server by.
        generation = table.generations.get(INVITE, 0)
        common["invite"] = server.signer.issue(table.id, INVITE, generation=generation)
        # `online`: whether the player's device has its lobby socket open (issue 31).
        here = {c.device for c in room.clients if c.device is not None and not c.ended}
        # `member`: a club player who came by his own link (issue 33).
        common["entries"] = [
            {
                "entry": e.id,
                "name": e.name,
                "online": bool(e.devices & here),
                "member": e.player is not None,
            }
            for e in lobby.waiting()
        ]
        common["seated"] = [
            {"entry": e.id, "name": e.name, "seat": e.seat, "online": bool(e.devices & here)}
            for e in lobby.seated()
        ]
        common["requests"] = [
            {
                "request": r.id,
                "name": lobby.entries[r.entry].name,
                "seat": lobby.entries[r.entry].seat,
            }
            for r in sorted(lobby.requests.values(), key=lambda r: r.arrived)
        ]
        common["free"] = lobby.free_seats(in_use(server, room))
        common["seats"] = table.settings.seats
        return _encode(common)
    common["me"] = _place(server, room, client.device, refused=client.refused)
    return _encode(common)


def _place(server: Server, room: LobbyRoom, device: str, *, refused: bool) -> dict[str, Any]:
    state: Literal["new", "waiting", "pending", "seated", "refused"]
    entry = room.lobby.entry_of(device)
    request = room.lobby.request_of(device)
    if entry is not None and entry.seat is not None:
        seat, table = entry.seat, room.table
        token = server.signer.issue(table.id, seat, generation=table.generations.get(seat, 0))
        return {"state": "seated", "name": entry.name, "seat": seat, "token": token}
    if entry is not None:
        return {"state": "waiting", "name": entry.name}
    if request is not None:  # nothing of the seat until the host approves
        return {"state": "pending", "name": room.lobby.entries[request.entry].name}
    state = "refused" if refused else "new"
    return {"state": state}
