"""A finished table as the club scores it: its protocol (plugin.protocol) with each seat's
club player (a member the lobby seated through his personal link: `lobby.join` records
carry his player id), turned into the scoring view (plugin.scoring.Game) and kept in the
club's records as JSON, so the standings are recomputed from the club's records alone,
never by replaying every table (bench/standings.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from plugin.scoring import Game, ScoringError, Seat, game_from_protocol


def seated_players(records: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """Seat -> club player id, from a table's lobby records (the members it seated) and its
    `club.seat` records (a tournament's table: its seats' players, a replacement's after)."""
    members: dict[str, str] = {}  # lobby entry -> player id
    seats: dict[int, str] = {}
    for record in records:
        kind = record.get("type")
        if kind == "lobby.join" and isinstance(record.get("player"), str):
            members[record["entry"]] = record["player"]
        elif kind == "lobby.leave":
            members.pop(record.get("entry", ""), None)
        elif kind == "lobby.seat" and record.get("entry") in members:
            seats[int(record["seat"])] = members[record["entry"]]
        elif kind == "club.seat":
            seats.update((int(seat), player) for seat, player in record["seats"].items())
    return seats


def game_of_table(protocol: Mapping[str, Any], players: Mapping[int, str]) -> Game:
    """The scoring view of a finished table; ScoringError when it is not over or not dealt."""
    return game_from_protocol(protocol, players)


def game_record(game: Game) -> dict[str, Any]:
    """A Game as the club's records keep it (JSON)."""
    return {
        "winner": game.winner,
        "best_move": None
        if game.best_move_by is None
        else {"by": game.best_move_by, "correct": game.best_move_correct},
        "seats": [
            {
                "seat": s.seat,
                "player": s.player,
                "role": s.role,
                "out": s.out,
                "night": s.night,
                "fouls": s.fouls,
            }
            for s in game.seats
        ],
    }


def game_from_record(record: Mapping[str, Any]) -> Game:
    best = record.get("best_move") or {}
    return Game(
        seats=tuple(
            Seat(
                seat=s["seat"],
                player=s["player"],
                role=s["role"],
                out=s.get("out"),
                night=s.get("night"),
                fouls=s.get("fouls", 0),
            )
            for s in record["seats"]
        ),
        winner=record.get("winner"),
        best_move_by=best.get("by"),
        best_move_correct=best.get("correct"),
    )


def with_players(
    game: dict[str, Any], players: Mapping[str, Any], known: set[str]
) -> dict[str, Any]:
    """The game record with some seats' players set by an admin's correction ({"3": "p7"} or
    a guest's "guest:Name"); ScoringError names a seat or a player that is not there."""
    seats = [dict(seat) for seat in game["seats"]]
    for key, player in players.items():
        if not key.isdigit() or not 1 <= int(key) <= len(seats):
            raise ScoringError("bad_seat", f"{key!r} is not a seat of this game")
        if not isinstance(player, str) or not (player in known or player.startswith("guest:")):
            raise ScoringError("no_player", f"seat {key}: the club has no player {player!r}")
        seats[int(key) - 1]["player"] = player
    taken = [s["player"] for s in seats if not s["player"].startswith("guest:")]
    if len(taken) != len(set(taken)):
        raise ScoringError("player_twice", "a player sits at one seat of a game")
    return {**game, "seats": seats}
