"""The embedded room: this server is the table's WebRTC audio room (no outside service).

Public API:
- `EmbeddedRoom`: the RoomBackend; `await room.accept(seat, sdp, type)` answers a peer.
- `SeatStats`: a seat's forwarding counters (`room.stats()`).
- `rtc_routes(room_for, authorize)`: starlette routes for `POST /rtc/{table_id}/offer`.
- `use_loopback_ice()`, `loopback_ice()`: ICE on 127.0.0.1 only (tests, local demo);
  `use_host_and_loopback_ice()`: the machine's addresses and loopback (a server).
- `RoomClient`: an aiortc peer that joins a room like a browser (simulated players,
  tests, benches).
"""

from .ice import loopback_ice, restore_host_ice, use_host_and_loopback_ice, use_loopback_ice
from .peer import SeatStats
from .room import HOST, EmbeddedRoom

__all__ = [
    "HOST",
    "EmbeddedRoom",
    "SeatStats",
    "loopback_ice",
    "restore_host_ice",
    "use_host_and_loopback_ice",
    "use_loopback_ice",
]
