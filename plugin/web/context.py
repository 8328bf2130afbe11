"""What every route and socket of the web side shares: the server's configuration, the
`Server` they are built with (the registry, the hub, the signer, the lobbies) and the one
token check, `Server.admit` (STYLE.md, "Turn 3": one check of who is calling, not a
pattern repeated per route, as starlette's `requires`).

A token is checked in two steps: `claim` reads what it says (genuine, unexpired, of the
table named, of the kind wanted) before its table is at hand; `admit` lets it in against
the table's links (`LinkState`: a seat the table has, of the link's current generation).
Nothing is admitted by `claim` alone.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.routing import BaseRoute
from starlette.types import Scope

from plugin.host.ports import Clock, Leases, Log, LogUnavailable
from plugin.host.registry import MAX_TABLES, Registry, RoomFactory, VoiceFactory
from plugin.host.settings import SettingsError, TableSettings
from plugin.host.table import Table
from plugin.signing import INVITE, Grant, Invite, Signer, TokenError, Watch, table_links

from .hub import Hub
from .limits import (
    CONNECT_BURST,
    CONNECTS_PER_SECOND,
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    RateLimit,
    origin_allowed,
    origin_of,
)
from .lobbies import Lobbies

# What a token may be at the endpoint checking it: "link" a seat's, the host's or the
# spectators' watch link; "seat" a seat's or the host's only; "invite" the lobby's.
Accept = Literal["link", "seat", "invite"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    db_path: Path  # where the server's own files live (its secret, its admin key)
    admin_key: str
    # The event log and, on a shared log, this server's leases (the assembly chooses).
    log: Callable[[], tuple[Log, Leases | None]]
    base_url: str = "http://127.0.0.1:8000"
    secret: bytes | None = None  # default: $AUTOHOST_SECRET or the file beside the db
    clock: Clock | None = None
    room_factory: RoomFactory | None = None
    voice_factory: VoiceFactory | None = None
    max_tables: int = MAX_TABLES
    only: str | None = None  # a one-table server's table (autohost livekit --room)
    # Origins a browser page may change state from, besides the base URL's and the
    # server's own (a club's LiveKit frontend on another site, for example).
    allowed_origins: tuple[str, ...] = ()
    # The club's other servers on the same database (public origins): told to the pages,
    # which try them in turn, and allowed as origins like allowed_origins.
    peers: tuple[str, ...] = ()
    # Inline <style> texts the pages may show (the protocol sheet's: headers.py, by hash).
    inline_styles: tuple[str, ...] = ()
    hello_seconds: float = 10.0  # how long a new socket may take to send its token
    messages_per_second: float = MESSAGES_PER_SECOND  # per connection
    message_burst: float = MESSAGE_BURST
    routes: Sequence[BaseRoute | Callable[[Server], Sequence[BaseRoute]]] = field(
        default_factory=tuple
    )
    # A club member's personal link -> (his player id, his roster name), or TokenError: the
    # lobby joins him as himself (issue 33; the club, above the web, supplies it).
    member: Callable[[str], tuple[str, str]] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkState:
    """What a token is admitted against: its table, the table's number of seats and the
    current generation of each of its links (a re-issued link counts one up)."""

    table: str
    seats: int
    generations: Mapping[int | str, int]

    @classmethod
    def of(cls, table: Table) -> LinkState:
        """An open table's links, as they are now."""
        return cls(table=table.id, seats=table.settings.seats, generations=table.generations)


@dataclass(slots=True, kw_only=True)
class Server:
    """What the routes share: the configuration, the signer, the hub and the registry."""

    config: ServerConfig
    signer: Signer
    hub: Hub
    registry: Registry | None = None
    connects: RateLimit = field(
        default_factory=lambda: RateLimit(CONNECTS_PER_SECOND, CONNECT_BURST)
    )
    messages: RateLimit = field(init=False)
    lobbies: Lobbies = field(default_factory=Lobbies)  # the tables' lobbies (issue 17)

    def __post_init__(self) -> None:
        self.messages = RateLimit(self.config.messages_per_second, self.config.message_burst)

    def origin_allowed(self, scope: Scope) -> bool:
        """May a browser page at the request's Origin change state here (a POST, a socket)?"""
        headers = Headers(scope=scope)
        secure = scope.get("scheme") in ("https", "wss")
        return origin_allowed(
            headers.get("origin"),
            allowed=(
                origin_of(self.config.base_url),
                *self.config.allowed_origins,
                *(origin_of(peer) for peer in self.config.peers),
            ),
            host=headers.get("host"),
            scheme="https" if secure else "http",
        )

    async def table(self, table_id: str) -> Table | None:
        if self.registry is None:
            return None
        return await self.registry.get(table_id)

    # --- the token check ---------------------------------------------------------------

    @overload
    def claim(
        self, token: str, table: str | None = None, accept: Literal["link"] = "link"
    ) -> Grant | Watch: ...
    @overload
    def claim(self, token: str, table: str | None, accept: Literal["invite"]) -> Invite: ...
    def claim(
        self, token: str, table: str | None = None, accept: Literal["link", "invite"] = "link"
    ) -> Grant | Watch | Invite:
        """What a token says, before its table is at hand (to find it): a genuine,
        unexpired token of `table` (when given), a link's or (`accept` "invite") the
        lobby's invite; else TokenError. It admits nobody: `admit` does."""
        if accept == "invite":
            return self.signer.verify_invite(token, table=table)
        return self.signer.verify_any(token, table=table)

    @overload
    def admit(
        self, token: str, table: Table | LinkState, accept: Literal["link"] = "link"
    ) -> Grant | Watch: ...
    @overload
    def admit(self, token: str, table: Table | LinkState, accept: Literal["seat"]) -> Grant: ...
    @overload
    def admit(self, token: str, table: Table | LinkState, accept: Literal["invite"]) -> Invite: ...
    def admit(
        self, token: str, table: Table | LinkState, accept: Accept = "link"
    ) -> Grant | Watch | Invite:
        """The one check of a token at every route and socket: a genuine unexpired token of
        `table` (an open Table, or the LinkState of one that is not open here), of the kind
        `accept` names, for one of its seats (or the host, the watch link, the invite), of
        that link's current generation. Else TokenError, whose code the client is told."""
        links = table if isinstance(table, LinkState) else LinkState.of(table)
        grant = self.claim(token, links.table, "invite" if accept == "invite" else "link")
        seat = INVITE if isinstance(grant, Invite) else grant.seat
        if isinstance(seat, int) and not 1 <= seat <= links.seats:
            # Found by tests/fuzz: a genuine token for seat 42 of a 10-seat table broke the
            # table's broadcasts. A seat outside the table is refused on every endpoint.
            message = f"seat {seat} is not a seat of table {links.table}"
            raise TokenError("token_bad_seat", message)
        if grant.generation != links.generations.get(seat, 0):
            raise TokenError(
                "token_reissued", "this link was replaced; ask the host for the new one"
            )
        if accept == "seat" and isinstance(grant, Watch):
            raise TokenError("token_watch_only", "a watch link only opens the watch page")
        return grant

    def link_state(self, table_id: str) -> LinkState:
        """The links of a table, open here or not (archived, or hosted by another server of
        a shared log), as its log has them: no seats and no re-issue for a table the log
        does not know (or whose settings no longer load). LogUnavailable passes."""
        registry = self.registry
        table = registry.tables.get(table_id) if registry is not None else None
        if table is not None:
            return LinkState.of(table)
        if registry is None:
            return LinkState(table=table_id, seats=0, generations={})
        record = registry.log.table_settings(table_id)
        try:
            seats = TableSettings.from_record(record).seats if record is not None else 0
        except SettingsError:
            seats = 0
        generations = registry.link_generations(table_id)
        return LinkState(table=table_id, seats=seats, generations=generations)

    def authorize(self, table_id: str, token: str) -> int | str | None:
        """The seat (or "host") a token admits to `table_id`, None if refused (rtc_routes)."""
        table = self.registry.tables.get(table_id) if self.registry else None
        if table is None:
            return None
        try:
            return self.admit(token, table, "seat").seat
        except TokenError:
            return None

    def authorize_media(self, table_id: str, token: str) -> int | str | None:
        """Like `authorize`, and "watch" for a spectator's watch token: the embedded room
        admits him as a listener only (receive-only, never heard; issue 17)."""
        table = self.registry.tables.get(table_id) if self.registry else None
        if table is None:
            return None
        try:
            return self.admit(token, table).seat
        except TokenError:
            return None

    # --- where a table is --------------------------------------------------------------

    def missing(self, table_id: str) -> tuple[str, str]:
        """Why table `table_id` is not open: (code, message) for the client."""
        try:
            return self._missing(table_id)
        except LogUnavailable as failure:  # a shared log's database is away
            return "log_unavailable", str(failure)

    def _missing(self, table_id: str) -> tuple[str, str]:
        registry = self.registry
        if registry is not None and table_id in registry.broken:
            return "table_broken", f"table {table_id!r} could not be opened; the host is told"
        if registry is not None and registry.log.is_archived(table_id):
            return "table_archived", f"table {table_id!r} has ended; its protocol is kept"
        if registry is not None and registry.leases and registry.log.table_settings(table_id):
            return "table_elsewhere", f"another server hosts table {table_id!r}; try again"
        return "no_table", f"no table {table_id!r}"

    def elsewhere(self, table_id: str) -> str | None:
        """The public URL of the server that holds the table's lease now, if another."""
        if self.registry is None:
            return None
        try:
            url = self.registry.owner_url(table_id)
        except LogUnavailable:
            return None
        return url if url and url != self.config.base_url else None

    def room_for(self, table_id: str) -> Any:
        """The room backend of a running table, None if it is not open (rtc_routes)."""
        table = self.registry.tables.get(table_id) if self.registry else None
        return None if table is None else table.room

    def links(self, table: Table) -> dict[str, Any]:
        return table_links(
            self.signer, self.config.base_url, table.id, table.settings.seats,
            names=[table.settings.name_of(s) for s in range(1, table.settings.seats + 1)],
            generations=table.generations,
        )  # fmt: skip


# --- HTTP callers --------------------------------------------------------------------------


def is_admin(server: Server, request: Request) -> bool:
    """Whether the request carries the admin key (`Authorization: Bearer KEY`)."""
    admin_key = server.config.admin_key
    if not admin_key:  # no key is nobody's key (an empty header would match it)
        return False
    header = request.headers.get("authorization", "")
    scheme, _, key = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(key.encode(), admin_key.encode())


def bearer(request: Request) -> str | None:
    """The token of a request's `Authorization: Bearer TOKEN` header (a link's token goes
    there, never in the URL), None when it has none."""
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    return key if scheme.lower() == "bearer" else None
