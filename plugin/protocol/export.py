"""Replay a table's logged events into its protocol: seats, names, roles, fouls (each with
the day or night it was given), nominations and every ballot per day, kills, checks, who
left when and how, the best move and the result (winner and why)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from plugin.rules import RuleError, apply, load_preset, new_game
from plugin.rules import events as ev
from plugin.rules.effects import VoteFinished
from plugin.rules.state import NIGHT_PHASES, GameState


def _when(state: GameState) -> dict[str, int]:
    """The day or night a moment of the game belongs to: {"day": n} or {"night": n}."""
    return {"night": state.night} if state.phase in NIGHT_PHASES else {"day": state.day}


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
    state: GameState = new_game(
        load_preset(preset, overrides or {}), players=seats, roles=roles, seed=seed, manual=manual
    )
    ballots: dict[tuple[int, int], list[dict[str, Any]]] = {}
    votes: dict[int, dict[str, Any]] = {}
    refused: list[dict[str, Any]] = []
    fouls: list[dict[str, Any]] = []
    exits: dict[int, dict[str, Any]] = {}
    voted_out: dict[int, int] = {}  # seat -> the day whose vote put him out (he leaves later)
    for record in records:
        try:
            event = ev.from_record(record)
            before = state
            state, effects = apply(state, event)
        except RuleError as error:
            refused.append({"record": record, "reason": error.reason})
            continue
        if isinstance(event, ev.CastVote | ev.CastLift):
            r = before.vote.round if before.vote is not None else None
            if r is not None:
                ballot = {
                    "voter": event.voter,
                    "choice": event.candidate if isinstance(event, ev.CastVote) else event.leave,
                }
                ballots.setdefault((before.day, r.number), []).append(ballot)
        if isinstance(event, ev.Foul):
            fouls.append({"seat": event.seat, **_when(before)})
        for effect in effects:
            if isinstance(effect, VoteFinished):
                votes[state.day] = effect.result
                voted_out.update((s, state.day) for s in effect.result.get("eliminated", []))
        for seat in sorted(before.alive - state.alive):
            when = _when(before)
            if isinstance(event, ev.PlayerLeft):
                how = "left"
            elif isinstance(event, ev.Disqualify):
                how = "disqualified"
            elif seat in state.removed and seat not in before.removed:
                how = "fouls"
            else:  # the night's shot (or the day's vote: its result may come later, below)
                how, when = "killed", {"night": state.night}
            exits[seat] = {"how": how, **when}
    for seat, day in voted_out.items():  # a vote's result is told after its seats left
        if exits.get(seat, {}).get("how") in (None, "killed"):
            exits[seat] = {"how": "vote", "day": day}
    protocol = _protocol(state, names, ballots, votes, refused, table, preset)
    protocol.update(language=language, club=club, host=host, date=date, fouls=fouls)
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
