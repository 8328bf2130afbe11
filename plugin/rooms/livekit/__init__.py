"""LiveKit rooms: the table lives in a club's LiveKit room.

- `LiveKitRoom` (backend.py): the RoomBackend; microphones through server-side permissions.
- tokens.py: player and host tokens, verifying a club's own tokens, `POST /livekit/token`.
- webhook.py: `POST /livekit/webhook`, verified room events feeding presence.
- bot.py: `LiveKitBot`, the visible participant that publishes the host's voice.
- botroom.py: `BotRoom`, a table's room and bot together; `VoiceOnDemand`.
- proof.py: how the live host and the bot are proved (not just named).
The assembly (plugin/server/livekit.py) gives every table of a server one of each.
"""

from plugin.rooms.livekit.backend import LiveKitRoom, Retry
from plugin.rooms.livekit.permissions import Policy, PublishPermission
from plugin.rooms.livekit.seats import BOT_IDENTITY, HOST_IDENTITY, identity_for_seat, seat_of

__all__ = [
    "BOT_IDENTITY",
    "HOST_IDENTITY",
    "LiveKitRoom",
    "Policy",
    "PublishPermission",
    "Retry",
    "identity_for_seat",
    "seat_of",
]
