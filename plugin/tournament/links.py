"""Personal tournament links (issue 34): each player of a tournament has a link, his
tournament page, that follows him from table to table. It is signed by the server's one
signer like a table's links and the club's personal ones (plugin.club.links): its token's
"table" is `~tournament/<tournament>/<player>` and its generation the link's, so issuing
the link again (a new generation, `tournament.link`) or revoking it stops the old token
at once, on every server of the club's log.

A tournament link carries one power only: the seat's token of its player at his current
tournament table (a started round's table he sits at now, not left out of it, whose game
is not over), handed to his page in the same `moved` message the next game sends
(plugin.web.succession), with the seat's current link generation there. It is no table's
token: the table's socket and the club's routes refuse it (no such table, not personal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from plugin.club import ClubState
from plugin.club.links import LIFETIME
from plugin.signing import HOST, Signer, TokenError

from .round_tables import RoundTable
from .state import Tournament, TournamentError, TournamentState

PREFIX = "~tournament/"


def path_of(tid: str, player: str) -> str:
    return f"{PREFIX}{tid}/{player}"


def issue(signer: Signer, tid: str, player: str, generation: int) -> str:
    return signer.issue(path_of(tid, player), HOST, lifetime=LIFETIME, generation=generation)


def link_url(base_url: str, tid: str, token: str) -> str:
    """The page a player opens: the token in the fragment (never sent in a URL)."""
    return f"{base_url.rstrip('/')}/club/tournaments/{tid}/play#token={token}"


def admit(signer: Signer, state: TournamentState, token: str) -> tuple[Tournament, str]:
    """The tournament and player a tournament token admits now; else TokenError."""
    grant = signer.verify(token)
    tid, _, player = grant.table.removeprefix(PREFIX).partition("/")
    if not grant.table.startswith(PREFIX) or not grant.is_host:
        raise TokenError("token_not_tournament", "this is not a tournament link")
    tournament = state.tournaments.get(tid)
    if tournament is None or player not in tournament.links:
        raise TokenError("token_unknown", "this link is not one of the tournament's")
    if player in tournament.revoked:
        raise TokenError("token_revoked", "this link was revoked; ask the judges for a new one")
    if grant.generation != tournament.links[player]:
        raise TokenError("token_reissued", "this link was re-issued; use the newest one")
    return tournament, player


def issue_question(
    tid: str, refs: object, club: ClubState
) -> Callable[[ClubState, TournamentState], dict[str, Any]]:
    """The record of new links for these players (None: every player of the tournament)."""

    def ask(_: ClubState, state: TournamentState) -> dict[str, Any]:
        tournament = state.get(tid)
        players = tournament.players if refs is None else _players(tournament, refs, club)
        generations = {p: tournament.links.get(p, -1) + 1 for p in players}
        return {"type": "tournament.link", "tournament": tid, "generations": generations}

    return ask


def revoke_question(
    tid: str, ref: object, club: ClubState
) -> Callable[[ClubState, TournamentState], dict[str, Any]]:
    def ask(_: ClubState, state: TournamentState) -> dict[str, Any]:
        tournament = state.get(tid)
        (player,) = _players(tournament, [ref], club)
        if player not in tournament.links or player in tournament.revoked:
            raise TournamentError("no_link", f"{player} holds no tournament link to revoke", 409)
        return {"type": "tournament.link.revoke", "tournament": tid, "player": player}

    return ask


def _players(tournament: Tournament, refs: object, club: ClubState) -> list[str]:
    """Players of the tournament by id or nickname (a guest by `guest:<nick>`)."""
    if not isinstance(refs, list) or not refs:
        raise TournamentError("bad_field", "players is a list of the tournament's players")
    found = []
    # Its players, and those who replaced one at a table (plugin.tournament.seats).
    playing = set(tournament.players) | {p for t in tournament.tables.values() for p in t.seats}
    for ref in refs:
        player = ref if isinstance(ref, str) and ref in playing else None
        if player is None and isinstance(ref, str) and not ref.startswith("guest:"):
            known = next((p for p in club.players.values() if p.nick == ref), None)
            player = known.id if known is not None and known.id in playing else None
        if player is None:
            raise TournamentError("no_player", f"{ref!r} does not play {tournament.name!r}", 404)
        found.append(player)
    return found


def seat_of(
    tournament: Tournament, player: str, over: Callable[[str], bool]
) -> tuple[RoundTable, int] | None:
    """His current tournament table and seat: the last started round's table he sits at
    now (not left out of it) whose round is not finished and whose game is not `over`."""
    found = None
    for table in tournament.tables.values():  # in the order the rounds started
        stage = tournament.stages[table.stage]
        if table.round in stage.finished or player not in table.seats:
            continue
        seat = table.seats.index(player) + 1
        if seat not in table.absent and not over(table.id):
            found = (table, seat)
    return found


def links_answer(
    signer: Signer, base_url: str, tournament: Tournament, club: ClubState,
    players: Sequence[str],
) -> list[dict[str, Any]]:  # fmt: skip
    """Each player's link in its current generation."""
    answer = []
    for player in players:
        token = issue(signer, tournament.id, player, tournament.links[player])
        link = link_url(base_url, tournament.id, token)
        answer.append({"player": player, "nick": club.nick_of(player), "link": link,
                       "token": token})  # fmt: skip
    return answer
