"""What the club's pages show, as JSON and CSV (issue 33): a season's standings with the
scoring system's columns and each player's rating, a player's page (his games, per role:
games, wins, first killed, best-move accuracy, fouls, points; his rating after each game),
and a signed game's record.

Each read is the public's unless the caller sees everything: `hidden` names the signed
games whose judges' extras the public may not see now (a tournament's, issue 34:
plugin.club.site.ClubSite.hidden_extras); those count, show and add up without them
(plugin.club.results.public_sheet, the tournament's public standings' rule too). The
ratings need nothing hidden: extra points never move one (plugin.club.results)."""

from __future__ import annotations

import csv
import io
from collections.abc import Collection
from typing import Any

from plugin.scoring import Rating

from .club import Club
from .results import Scored
from .state import ClubError

NONE_HIDDEN: frozenset[str] = frozenset()

COLUMNS = ("rank", "nick", "games", "wins", "main", "extra", "best_move", "penalty", "ci",
           "total", "special_role_wins", "first_night_deaths", "rating")  # fmt: skip


ROLE_COLUMNS = ("games", "wins", "first_killed", "best_moves", "fouls", "points")


def seasons(club: Club) -> list[str]:
    return sorted(club.results.seasons, reverse=True)


def _season(club: Club, season: str | None) -> str:
    known = seasons(club)
    if season is None or season == "":
        if not known:
            raise ClubError("no_games", "no game has been signed yet", 404)
        return known[0]
    if season not in club.results.seasons:
        raise ClubError("no_season", f"no signed game in season {season!r}", 404)
    return season


def _rating(rating: Rating) -> dict[str, float]:
    return {"rating": round(rating.ordinal, 2), "mu": round(rating.mu, 3),
            "sigma": round(rating.sigma, 3)}  # fmt: skip


def _scored(club: Club, game_id: str, hidden: Collection[str]) -> Scored:
    """A signed game's scores as this reader may see them."""
    if game_id in hidden:
        return club.results.public(club.state.signed[game_id])
    return club.results.games[game_id]


def standings(
    club: Club, season: str | None, hidden: Collection[str] = NONE_HIDDEN
) -> dict[str, Any]:
    """A season's standings, ranked by the system's tie-breaks."""
    chosen = _season(club, season)
    table = club.results.public_standings(chosen, club.state.signed, hidden)
    rows: list[dict[str, Any]] = []
    # The club's players only (a guest is scored, and rated, but has no line): a place is
    # one more than the players ranked strictly above him, so ties still share it.
    members = [row for row in table.rows() if row.player in club.state.players]
    place, ratings = 0, club.results.ratings
    for index, row in enumerate(members):  # ranked already: a tie keeps the place before
        if index == 0 or members[index - 1].rank != row.rank:
            place = index + 1
        rating = ratings.of(row.player)
        record = {**row.record(), "rank": place, "nick": club.state.nick_of(row.player)}
        rows.append({**record, **_rating(rating)})
    # how many of its games the public sees without the judges' extras (the page says so)
    veiled = sum(game_id in table for game_id in hidden)
    return {"season": chosen, "seasons": seasons(club), "system": table.system.name,
            "games": table.games, "columns": list(COLUMNS), "rows": rows,
            "extras_hidden": veiled}  # fmt: skip


def standings_csv(club: Club, season: str | None, hidden: Collection[str] = NONE_HIDDEN) -> str:
    """The standings as CSV (one row per player, the page's columns)."""
    document = standings(club, season, hidden)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in document["rows"]:
        writer.writerow([row[column] for column in COLUMNS])
    return out.getvalue()


def player_page(
    club: Club, ref: str, season: str | None = None, hidden: Collection[str] = NONE_HIDDEN
) -> dict[str, Any]:
    """A player's page: his games in signing order, per-role sums of the season (or of
    every season: season "all"), and his rating after each game."""
    player = club.state.player(ref)
    results = club.results
    after = {game_id: rating for game_id, rating in results.ratings.history.get(player.id, [])}
    chosen = None if season in (None, "", "all") else season
    games = []
    for game_id in results.order:
        scored = _scored(club, game_id, hidden)
        if chosen is not None and scored.season != chosen:
            continue
        mine = next((s for s in scored.scores if s.player == player.id), None)
        if mine is None:
            continue
        rating = after.get(game_id)
        games.append({"game_id": game_id, "season": scored.season,
                      "date": club.state.signed[game_id].game.get("date", ""), "seat": mine.seat,
                      "role": mine.role, "won": mine.won, "points": round(float(mine.points), 2),
                      "fouls": mine.fouls, "extras_hidden": game_id in hidden,
                      "rating": None if rating is None else round(rating.ordinal, 2)})  # fmt: skip
    per_role: dict[str, dict[str, Any]] = {}
    correct: dict[str, int] = {}
    for listed in games:
        mine = _scored(club, listed["game_id"], hidden).scores[listed["seat"] - 1]
        sums = per_role.setdefault(mine.role, dict.fromkeys(ROLE_COLUMNS, 0))
        sums["games"] += 1
        sums["wins"] += mine.won
        sums["first_killed"] += mine.first_night_death
        sums["fouls"] += mine.fouls
        sums["points"] = round(sums["points"] + float(mine.points), 2)
        if mine.best_move_correct is not None:
            sums["best_moves"] += 1
            correct[mine.role] = correct.get(mine.role, 0) + mine.best_move_correct
    for role, sums in per_role.items():  # named black seats out of three, over his best moves
        moves = sums["best_moves"]
        sums["best_move_accuracy"] = round(correct[role] / (3 * moves), 3) if moves else None
    history = results.ratings.history.get(player.id, [])
    return {"player": player.record(), **_rating(results.ratings.of(player.id)),
            "season": chosen or "all", "seasons": seasons(club), "games": games,
            "roles": per_role, "extras_hidden": sum(g["extras_hidden"] for g in games),
            "history": [{"game_id": game_id, **_rating(r)} for game_id, r in history]}  # fmt: skip


def games(club: Club) -> list[dict[str, Any]]:
    """Every signed game, the last signed first: its season, date, result, corrections."""
    listed = []
    for game_id in reversed(club.state.sign_order):
        signed = club.state.signed[game_id]
        listed.append({"game_id": game_id, "season": signed.season,
                       "date": signed.game.get("date", ""), "winner": signed.game["winner"],
                       "corrections": len(signed.history) - 1})  # fmt: skip
    return listed


def game_json(club: Club, game_id: str, hidden: Collection[str] = NONE_HIDDEN) -> dict[str, Any]:
    """A signed game's record: the game, the sheet, every seat's points and its history."""
    from .sheets import signed_view

    signed = club.state.signed.get(game_id)
    if signed is None:
        raise ClubError("not_signed", f"no signed game {game_id!r}", 404)
    return signed_view(club, signed, hidden=game_id in hidden)
