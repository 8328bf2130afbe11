"""Who a participant is to a table's room: `Seen`, made from what LiveKit lists (`see`).

His seat, whether he is the proved live host (proof.py), whether his token was minted for
a link re-issued since (stale: nobody's seat), and what he may publish now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from livekit.protocol.models import ParticipantInfo, ParticipantPermission

from plugin.rooms.livekit.permissions import PublishPermission
from plugin.rooms.livekit.proof import is_proved_host
from plugin.rooms.livekit.seats import link_of, seat_of


@dataclass(frozen=True, slots=True)
class Seen:
    """A participant as we last saw him: his seat, kind, session, what he may publish (None:
    unknown) and the whole permission that is part of (kept when we change it)."""

    seat: int | None
    publishing: PublishPermission | None
    standard: bool = True
    sid: str = ""
    permission: ParticipantPermission | None = None
    host: bool = False  # the proved live host (proof.py)
    stale: bool = False  # his token was minted for a link re-issued since: nobody's seat
    left: bool = False  # a leave was reported; still controlled until a listing drops him


def see(
    info: ParticipantInfo,
    host_proof: str | Callable[[str], str] | None,
    seats: int,
    generations: Mapping[int | str, int],
) -> Seen:
    """`info` as the room sees him at a table of `seats` with its links' `generations`."""
    standard = info.kind == ParticipantInfo.Kind.STANDARD
    permission = ParticipantPermission()
    permission.CopyFrom(info.permission)
    host = is_proved_host(host_proof, info.identity, info.attributes, permission)
    seat = None if host else seat_of(info.identity)  # never from attributes (issue 30)
    if seat is not None and seat > seats:
        seat = None
    stale = is_stale(info.identity, generations)
    return Seen(
        seat=None if stale else seat,
        publishing=PublishPermission.of(permission),
        standard=standard,
        sid=info.sid,
        permission=permission,
        host=host and not stale,
        stale=stale,
    )


def is_stale(identity: str, generations: Mapping[int | str, int]) -> bool:
    """Whether this identity of ours was minted for a link re-issued since (its
    generation is older than its link's now): he sits nowhere, is not the host, is
    silenced, and the re-issue removes him. Read from the identity, which nobody can
    change once joined; a club's own identities are the club's to re-issue."""
    minted = link_of(identity)
    if minted is None:
        return False
    link, generation = minted
    return generation < generations.get(link, 0)
