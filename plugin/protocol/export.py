"""Replay a table's logged events into its protocol: seats, names, roles, fouls (each with
the day or night it was given), nominations and every ballot per day, kills, checks, who
left when and how, the best move and the result (winner and why). The replay itself is
plugin.host.ending's, which the end screen reads too."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from plugin.host.ending import replay_story
from plugin.host.game import is_event_record
from plugin.host.ports import Log
from plugin.host.records import with_logged_names
from plugin.host.settings import TableSettings
from plugin.rules import load_preset, new_game
from plugin.rules.state import GameState


def game_protocol(
    *,
    preset: str,
    seats: int,
    records: Iterable[dict[str, Any]],
    names: Sequence[str] = (),
    overrides: dict[str, Any] | None = None,
    roles: dict[int, str] | None = None,
    seed: int = 0,
    manual: bool = False,
    table: str = "",
    language: str = "en",
    club: str = "",
    host: str = "",
    date: str = "",
) -> dict[str, Any]:
    """The protocol of a game from its engine event records, in log order (undone entries
    already left out). Records the engine refuses are listed, never fatal."""
    story = replay_story(
        new_game(
            load_preset(preset, overrides or {}), players=seats, roles=roles, seed=seed,
            manual=manual,
        ),
        records,
    )  # fmt: skip
    state, exits = story.state, story.exits
    protocol = _protocol(state, names, story.ballots, story.votes, story.refused, table, preset)
    protocol.update(language=language, club=club, host=host, date=date, fouls=story.fouls)
    for player in protocol["players"]:
        player["out"] = exits.get(player["seat"])
    return protocol


def _protocol(
    state: GameState,
    names: Sequence[str],
    ballots: dict[tuple[int, int], list[dict[str, Any]]],
    votes: dict[int, dict[str, Any]],
    refused: list[dict[str, Any]],
    table: str,
    preset: str,
) -> dict[str, Any]:
    roles = state.roles or ()
    players = [
        {
            "seat": seat,
            "name": names[seat - 1] if seat <= len(names) else f"Player {seat}",
            "role": roles[seat - 1] if roles else None,
            "fouls": state.fouls[seat - 1],
            "in_game": seat in state.alive,
            "removed": seat in state.removed,
        }
        for seat in range(1, state.players + 1)
    ]
    days = []
    for record in state.days:
        vote = votes.get(record.day)
        rounds = []
        for number, round_record in enumerate((vote or {}).get("rounds", []), start=1):
            rounds.append({**round_record, "ballots": ballots.get((record.day, number), [])})
        days.append(
            {
                "day": record.day,
                "opener": record.opener,
                "speakers": list(record.speakers),
                "nominations": [{"by": by, "target": target} for by, target in record.nominations],
                "vote": None
                if vote is None
                else {
                    "outcome": vote["outcome"],
                    "eliminated": vote["eliminated"],
                    "rounds": rounds,
                },
            }
        )
    nights = [
        {**n.record(), "shots": [{"by": by, "target": target} for by, target in n.shots]}
        for n in state.nights
    ]
    return {
        "table": table,
        "rules": preset,
        "players": players,
        "days": days,
        "nights": nights,
        "best_move": state.best_move_record(),
        "winner": state.winner,
        "over": state.over,
        "outcome": None if state.outcome is None else state.outcome.record(),
        "refused": refused,
    }


def table_protocol(log: Log, table_id: str) -> dict[str, Any] | None:
    """The protocol of table `table_id` as its log holds it (live or archived), with the
    table's names, language, club, host and the date of its first input (the server's
    local time: a club's evening; a table without inputs: the day it was made); None if
    the log has no such table."""
    record = log.table_settings(table_id)
    if record is None:
        return None
    entries = log.entries(table_id)
    settings = with_logged_names(  # the names the lobby seated
        TableSettings.from_record(record), [e.record for e in entries]
    )
    # A table without inputs is dated the day it was made, never the day it is read.
    played = entries[0].wall if entries else (log.table_created(table_id) or time.time())
    return game_protocol(
        preset=settings.preset,
        seats=settings.seats,
        records=[e.record for e in entries if is_event_record(e.record)],
        names=settings.names,
        overrides=settings.overrides,
        roles=settings.roles,
        seed=settings.seed,
        manual=settings.manual,
        table=table_id,
        language=settings.language,
        club=settings.club,
        host=settings.host_name,
        date=time.strftime("%Y-%m-%d", time.localtime(played)),
    )
