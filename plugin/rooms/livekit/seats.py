"""Seats and LiveKit identities: which participant sits in which seat.

Our tokens bind the seat twice, in the identity (`seat-7`) and in the attributes
(`{"seat": "7"}`); a club's own tokens may carry only the attribute, so the attribute wins.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

HOST_IDENTITY = "host"  # the live host: always may publish
BOT_IDENTITY = "autohost-bot"  # our bot's voice: always may publish
SEAT_ATTRIBUTE = "seat"
# The generation of the link a token of ours was minted for (plugin/signing.py's link
# generations): a token minted before the seat's link was re-issued sits nowhere.
GENERATION_ATTRIBUTE = "autohost-gen"
MAX_SEAT = 99

# One spelling of a seat number, in the identity and in the attribute: ASCII digits, no
# leading zero ("03", "３", "٣", "²" are no seat: str.isdigit and int take any Unicode
# digit, and "²" passed isdigit and then broke int()).
_SEAT_NUMBER = re.compile(r"[1-9][0-9]?")
_SEAT_IDENTITY = re.compile(r"seat-([1-9][0-9]?)")


def identity_for_seat(seat: int) -> str:
    """The identity our tokens give the player in `seat`."""
    return f"seat-{check_seat(seat)}"


def check_seat(seat: object) -> int:
    """`seat` as an int in 1..MAX_SEAT, or ValueError naming the bad value."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= MAX_SEAT:
        raise ValueError(f"a seat is an int from 1 to {MAX_SEAT}, not {seat!r}")
    return seat


def seat_of(identity: str, attributes: Mapping[str, str] | None = None) -> int | None:
    """The seat a participant sits in (attribute first, then identity), or None (no seat)."""
    text = (attributes or {}).get(SEAT_ATTRIBUTE)
    if text is None:
        match = _SEAT_IDENTITY.fullmatch(identity)
        text = match.group(1) if match else None
    if text is None or not _SEAT_NUMBER.fullmatch(text):
        return None
    seat = int(text)
    return seat if 1 <= seat <= MAX_SEAT else None


def generation_of(attributes: Mapping[str, str] | None) -> int | None:
    """The link generation a token of ours carries; None for a token that carries none
    (a club's own: its re-issues are the club's to make)."""
    text = (attributes or {}).get(GENERATION_ATTRIBUTE)
    if text is None:
        return None
    return int(text) if re.fullmatch(r"0|[1-9][0-9]{0,8}", text) else -1  # garbled: stale
