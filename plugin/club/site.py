"""The club on a running server: the Club over the log the server opened (at each start of
its app), and the one check of who is calling a club route (`caller`), as the web side's
`Server.admit` is for a table's routes.

Who may call: the machine's admin key (`Authorization: Bearer KEY`, as the table API), a
person's personal link (player, judge, admin: plugin.club.links), or, for one table's sheet,
that table's host link (the host signs his own game when the club has no judge there).
What each may do is decided in the routes (plugin.club.api) by `Caller.may`, never by
what a page shows.

What the public may not see (issue 34): a tournament hides the judges' extra points of its
later stages until they are revealed. The club does not know the tournaments (a layer
above it); the one question it asks is `hidden_extras()`, the signed games whose extras
the public may not see now, which the tournaments' routes answer
(plugin.tournament.api.TournamentSite sets it; without them nothing is hidden). Every
public read of the club passes it on unless `sees_hidden` (a judge's or an admin's link,
or the admin key)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from starlette.requests import Request

from plugin.host.ports import LogUnavailable
from plugin.signing import TokenError
from plugin.web.context import Server, bearer, is_admin

from .club import Club, ClubLog
from .links import Person
from .state import ClubError

Right = Literal["admin", "judge", "person"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Caller:
    admin_key: bool = False
    person: Person | None = None
    host_of: str | None = None  # the table whose host link it is

    @property
    def source(self) -> str:
        """How the club's records name him."""
        if self.person is not None:
            return self.person.source
        return "admin" if self.admin_key else f"host:{self.host_of}"

    def may(self, right: Right, table_id: str | None = None) -> bool:
        """admin: the admin key or an admin's link; judge: those, a judge's link, or the
        host link of `table_id`; person: any personal link."""
        kind = self.person.kind if self.person is not None else None
        if right == "admin":
            return self.admin_key or kind == "admin"
        if right == "judge":
            hosting = table_id is not None and self.host_of == table_id
            return self.admin_key or kind in ("admin", "judge") or hosting
        return self.person is not None


class ClubSite:
    """The club of one server (see the module docstring)."""

    def __init__(self) -> None:
        self.server: Server | None = None
        self._club: Club | None = None
        # the signed games whose judges' extras are hidden from the public now (see above)
        self.hidden_extras: Callable[[], frozenset[str]] = frozenset

    def sees_hidden(self, request: Request) -> bool:
        """Whether this caller sees what is hidden from the public: a judge's or admin's
        link, or the admin key. A request without credentials is the public's; a link that
        is sent and refused is refused (TokenError), not shown the public's view silently."""
        if "authorization" not in request.headers:
            return False
        return self.caller(request).may("judge")

    def hidden_from(self, request: Request) -> frozenset[str]:
        """The games whose extras this caller may not see (none for a judge or an admin)."""
        return frozenset() if self.sees_hidden(request) else self.hidden_extras()

    def bind(self, server: Server) -> None:
        self.server = server

    @property
    def club(self) -> Club:
        """The club over the server's log (made again when the app reopened its log)."""
        server = self.server
        registry = server.registry if server is not None else None
        if server is None or registry is None:
            raise ClubError("not_ready", "the server is starting or stopping", 503)
        log = registry.log
        if not isinstance(log, ClubLog):
            raise ClubError("no_club", "this server's log keeps no club", 503)
        if self._club is None or self._club.log is not log:
            self._club = Club(log, server.signer)
        self._club.refresh()
        return self._club

    def member(self, token: str) -> tuple[str, str]:
        """(player id, nickname) of a player's link: the lobby joins him as himself
        (TokenError for any refusal, the club's too: the lobby answers only those)."""
        try:
            person = self.club.person(token)
        except ClubError as refusal:
            raise TokenError(refusal.code, refusal.message) from None
        except LogUnavailable as failure:
            raise TokenError("log_unavailable", str(failure)) from None
        if person.kind != "player":
            raise TokenError("token_not_player", "a judge's or admin's link joins no table")
        return person.player.id, person.player.nick

    def caller(self, request: Request, table_id: str | None = None) -> Caller:
        """Who sends this request; TokenError when nobody (or a refused link)."""
        server = self.server
        assert server is not None
        if is_admin(server, request):
            return Caller(admin_key=True)
        token = bearer(request)
        if not token:
            raise TokenError("no_token", "send a personal link's token (or the admin key)")
        try:
            return Caller(person=self.club.person(token))
        except TokenError as refusal:
            if refusal.code != "token_not_personal" or table_id is None:
                raise
        grant = server.admit(token, server.link_state(table_id), "seat")
        if not grant.is_host:
            raise TokenError("token_not_host", "a seat's link signs no sheet")
        return Caller(host_of=table_id)
