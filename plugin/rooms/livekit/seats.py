"""Seats and LiveKit identities: which participant sits in which seat.

The seat comes only from the identity (`seat-7`), which the token's signer minted and
nobody can change once joined (issue 30). Attributes are visible to the room and writable
by any room admin (an old host token stays one until it expires) and by a participant
whose token allows metadata updates: an admin set seat 7's `seat` attribute to 1, and the
bot treated him as seat 1 (his view, his microphone in seat 1's speech, his `pass`). Our
tokens still carry `{"seat": "7"}` for a page to show; it binds nothing. A club's own token
server must give its players the identity `seat-N` (docs/livekit.md).
"""

from __future__ import annotations

import re
import secrets

HOST_IDENTITY = "host"  # the live host: always may publish
BOT_IDENTITY = "autohost-bot"  # our bot's voice: always may publish
# The reserved bot names: `autohost-bot` and `autohost-bot-<anything>`. A club's token
# server must never hand them out (docs/livekit.md). A bot replaced by an impostor under
# its name twice in a row joins again as `autohost-bot-<random>` (new_bot_identity), which
# nobody can guess ahead, and the impostor is then removed at each join (issue 30).
BOT_PREFIX = BOT_IDENTITY + "-"
SEAT_ATTRIBUTE = "seat"  # shown by pages; binds nothing
MAX_SEAT = 99

# One spelling of a seat number: ASCII digits, no
# leading zero ("03", "３", "٣", "²" are no seat: str.isdigit and int take any Unicode
# digit, and "²" passed isdigit and then broke int()).
_SEAT_NUMBER = re.compile(r"[1-9][0-9]?")
_SEAT_IDENTITY = re.compile(r"seat-([1-9][0-9]?)(?:\.[1-9][0-9]{0,8})?")  # seat-3, seat-3.1


def is_bot_identity(identity: str) -> bool:
    """Whether `identity` is one of the reserved bot names (ours or an impostor's)."""
    return identity == BOT_IDENTITY or identity.startswith(BOT_PREFIX)


def new_bot_identity() -> str:
    """A bot name of its own for one bot's join: `autohost-bot-<12 hex>`."""
    return BOT_PREFIX + secrets.token_hex(6)


def identity_for_seat(seat: int) -> str:
    """The identity our tokens give the player in `seat`."""
    return f"seat-{check_seat(seat)}"


def check_seat(seat: object) -> int:
    """`seat` as an int in 1..MAX_SEAT, or ValueError naming the bad value."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= MAX_SEAT:
        raise ValueError(f"a seat is an int from 1 to {MAX_SEAT}, not {seat!r}")
    return seat


def seat_of(identity: str) -> int | None:
    """The seat a participant sits in, from his identity only, or None (no seat)."""
    match = _SEAT_IDENTITY.fullmatch(identity)
    text = match.group(1) if match else None
    if text is None or not _SEAT_NUMBER.fullmatch(text):
        return None
    seat = int(text)
    return seat if 1 <= seat <= MAX_SEAT else None


# Our identities name the link they were minted for and its generation: `seat-3`, `host`,
# `watch-<hex>` for a link never re-issued, `seat-3.2`, `host.2`, `watch.2-<hex>` after.
# An identity cannot be changed once joined (attributes can, by any room admin: an old
# host's token stays one until it expires), so the generation is read from it.
_LINK_IDENTITY = re.compile(
    r"(?:seat-(?P<seat>[1-9][0-9]?)|(?P<host>host)|(?P<watch>watch))"
    r"(?:\.(?P<generation>[1-9][0-9]{0,8}))?(?(watch)-[0-9a-f]{12}|)"
)


def link_of(identity: str) -> tuple[int | str, int] | None:
    """(seat, "host" or "watch"; the link's generation) an identity of ours was minted
    for, or None for any other identity (a club's own: its re-issues are the club's)."""
    match = _LINK_IDENTITY.fullmatch(identity)
    if match is None:
        return None
    generation = int(match["generation"] or 0)
    if match["seat"]:
        return int(match["seat"]), generation
    return ("host" if match["host"] else "watch"), generation


def host_identity(generation: int = 0) -> str:
    """The live host's identity for the host link's generation (`host`, then `host.G`)."""
    return HOST_IDENTITY + (f".{generation}" if generation else "")


def is_host_identity(identity: str) -> bool:
    found = link_of(identity)
    return found is not None and found[0] == "host"
