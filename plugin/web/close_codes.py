"""The WebSocket close codes of every socket this server serves (`/ws`, `/lobby`, `/video`),
written once: why the server refused or ended a connection (docs/protocol.md).

4000-4999 are the application's (RFC 6455, 7.4.2); 4xxx mirrors the HTTP status it means.
"""

from __future__ import annotations

from enum import IntEnum


class CloseCode(IntEnum):
    """Why a socket was closed by the server; a page treats UNAUTHORIZED, NO_TABLE and
    REMOVED as final (socket/reconnecting.js, FINAL_CLOSE_CODES) and reconnects after any
    other."""

    # "Try again later" (RFC 6455's 1013): another server hosts the table (a shared
    # PostgreSQL log), or the log is away for now; the page reconnects (there).
    ELSEWHERE = 1013
    UNAUTHORIZED = 4401  # the token is refused (malformed, forged, expired, re-issued, ...)
    FORBIDDEN_ORIGIN = 4403  # a browser page of a foreign origin
    NO_TABLE = 4404  # no such table here (none, archived, broken)
    REPLACED = 4409  # the same seat connected again (the video relay)
    ENDED = 4410  # the server ended the session (table archived or moved on, link re-issued)
    TOO_MANY = 4429  # too many connects or connections
    # The host removed this device from the lobby (remove, clear): its page stops there and
    # does not come back as a newcomer on its own (issue 31). 423: the lobby is locked to it.
    REMOVED = 4423
