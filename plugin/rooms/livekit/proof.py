"""Proofs for the powerful identities: the live host and our bot.

An identity alone proves nothing: a club's token service may let a player pick `host`, and
anybody holding a token can join as `autohost-bot`. LiveKit does not show a participant's
room-admin grant to anybody (ParticipantInfo has no such field), so the host proves himself
with what his token carries: the attribute `autohost-host`, an HMAC of the room and the
identity under the API secret (only whoever holds the secret can mint it), in a token that
does not let him change his own attributes (or he could have copied another participant's,
since attributes are visible to the room). Our `host_token` carries it; a club that mints
its own host tokens adds `host_attributes(secret, room)`. The bot is proved by its session:
only the sid our own bot connected with (LiveKitRoom.bot_joined) may publish as the bot.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable, Mapping

from livekit.protocol.models import ParticipantPermission

from plugin.rooms.livekit.seats import HOST_IDENTITY, is_host_identity

HOST_PROOF_ATTRIBUTE = "autohost-host"


def host_proof(api_secret: str, room: str, identity: str = HOST_IDENTITY) -> str:
    """The attribute value that proves `identity` is the live host of `room`."""
    message = f"autohost host\n{room}\n{identity}".encode()
    digest = hmac.new(api_secret.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def host_attributes(api_secret: str, room: str, identity: str = HOST_IDENTITY) -> dict[str, str]:
    """The attributes a host token for `room` carries (for a club's own token service).
    The proof is bound to the identity, and a re-issued host link's tokens have their own
    (`host.G`): an old host token proves nothing for the new one."""
    return {HOST_PROOF_ATTRIBUTE: host_proof(api_secret, room, identity)}


def is_proved_host(
    expected: str | Callable[[str], str] | None,
    identity: str,
    attributes: Mapping[str, str],
    permission: ParticipantPermission | None,
) -> bool:
    """Whether this participant is the live host: identity, proof and a token that cannot
    rewrite its own attributes. `expected`: the proof for `host`, or the proof of any host
    identity (`host`, `host.G`)."""
    if expected is None or not is_host_identity(identity):
        return False
    if permission is None or permission.can_update_metadata:
        return False
    proof = expected(identity) if callable(expected) else expected
    if not callable(expected) and identity != HOST_IDENTITY:
        return False
    return hmac.compare_digest(attributes.get(HOST_PROOF_ATTRIBUTE, ""), proof)
