"""The embedded room: this server is the table's WebRTC audio room (no outside service).

Public API:
- `EmbeddedRoom`: the RoomBackend; `await room.accept(seat, sdp, type)` answers a peer.
- `SeatStats`: a seat's forwarding counters (`room.stats()`).
- `rtc_routes(room_for, authorize)`: starlette routes for `POST /rtc/{table_id}/offer`.
- `use_loopback_ice()`, `loopback_ice()`: ICE on 127.0.0.1 only (tests, local demo);
  `use_host_and_loopback_ice()`: the machine's addresses and loopback (a server);
  `rtc_ice_servers(entries)`: STUN/TURN entries as aiortc's RTCIceServer list;
  `use_udp_port_range(low, high)`: host candidates bind ports in that range only.
- `RoomClient`: an aiortc peer that joins a room like a browser (simulated players,
  tests, benches).
"""

from .ice import (
    loopback_ice,
    restore_host_ice,
    restore_udp_ports,
    rtc_ice_servers,
    use_host_and_loopback_ice,
    use_loopback_ice,
    use_udp_port_range,
)
from .peer import SeatStats
from .room import HOST, EmbeddedRoom

__all__ = [
    "HOST",
    "EmbeddedRoom",
    "SeatStats",
    "loopback_ice",
    "restore_host_ice",
    "restore_udp_ports",
    "rtc_ice_servers",
    "use_host_and_loopback_ice",
    "use_loopback_ice",
    "use_udp_port_range",
]
