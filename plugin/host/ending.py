"""The end of a game as the pages show it (issue 17, "The end of the game"): the result and
why, every seat's role, and the timeline (who left when and how, the checks, the best move,
the fouls), replayed from the table's logged events.

`replay_story` is the one replay both the end screen and the protocol export
(plugin.protocol.export) read: who left when and how is only known event by event (a
vote's result is told after its seats left, a foul's day is the day it was given), never
from the final state alone.

The end view is built only for a game that is over (`end_view` refuses anything else), so
roles and checks reach a player or a spectator only after the end: before it, no view has
an `end` at all (plugin.host.views).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from plugin.rules import GameState, RuleError, apply
from plugin.rules import events as ev
from plugin.rules.effects import VoteFinished
from plugin.rules.state import NIGHT_PHASES

from .game import is_event_record, new_game
from .settings import TableSettings


def when(state: GameState) -> dict[str, int]:
    """The day or night a moment of the game belongs to: {"day": n} or {"night": n}."""
    return {"night": state.night} if state.phase in NIGHT_PHASES else {"day": state.day}


@dataclass(slots=True)
class Story:
    """A game replayed event by event: the final state and what only the events tell."""

    state: GameState
    ballots: dict[tuple[int, int], list[dict[str, Any]]] = field(default_factory=dict)
    votes: dict[int, dict[str, Any]] = field(default_factory=dict)  # day -> its vote's result
    refused: list[dict[str, Any]] = field(default_factory=list)
    fouls: list[dict[str, Any]] = field(default_factory=list)  # {"seat", "day" | "night"}
    exits: dict[int, dict[str, Any]] = field(default_factory=dict)  # seat -> {"how", when}


def replay_story(state: GameState, records: Iterable[dict[str, Any]]) -> Story:
    """Apply the engine event records (log order, undone entries left out) to `state`, the
    game's lobby state. Records the engine refuses are listed in `refused`, never fatal."""
    story = Story(state)
    voted_out: dict[int, int] = {}  # seat -> the day whose vote put him out (he leaves later)
    for record in records:
        try:
            event = ev.from_record(record)
            before = story.state
            story.state, effects = apply(before, event)
        except RuleError as error:
            story.refused.append({"record": record, "reason": error.reason})
            continue
        after = story.state
        if isinstance(event, ev.CastVote | ev.CastLift):
            r = before.vote.round if before.vote is not None else None
            if r is not None:
                ballot = {
                    "voter": event.voter,
                    "choice": event.candidate if isinstance(event, ev.CastVote) else event.leave,
                }
                story.ballots.setdefault((before.day, r.number), []).append(ballot)
        if isinstance(event, ev.Foul):
            story.fouls.append({"seat": event.seat, **when(before)})
        for effect in effects:
            if isinstance(effect, VoteFinished):
                story.votes[after.day] = effect.result
                voted_out.update((s, after.day) for s in effect.result.get("eliminated", []))
        for seat in sorted(before.alive - after.alive):
            moment = when(before)
            if isinstance(event, ev.PlayerLeft):
                how = "left"
            elif isinstance(event, ev.Disqualify):
                how = "disqualified"
            elif seat in after.removed and seat not in before.removed:
                how = "fouls"
            else:  # the night's shot (or the day's vote: its result may come later, below)
                how, moment = "killed", {"night": after.night}
            story.exits[seat] = {"how": how, **moment}
    for seat, day in voted_out.items():  # a vote's result is told after its seats left
        if story.exits.get(seat, {}).get("how") in (None, "killed"):
            story.exits[seat] = {"how": "vote", "day": day}
    return story


def end_view(settings: TableSettings, records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """What every page shows once the game is over: `result` (winner, termination), `seats`
    (each seat's name, role, fouls and how he left), and the `timeline` in the order of
    the game: per day and night, who left and how, the checks, the best move, the fouls.
    ValueError if the game these records make is not over."""
    story = replay_story(new_game(settings), (r for r in records if is_event_record(r)))
    s = story.state
    if not s.over:
        raise ValueError("the end view is only for a game that is over")
    roles = s.roles or ()
    seats = [
        {
            "seat": seat,
            "name": settings.name_of(seat),
            "role": roles[seat - 1] if roles else None,
            "fouls": s.fouls[seat - 1],
            "out": story.exits.get(seat),
        }
        for seat in range(1, s.players + 1)
    ]
    items: list[dict[str, Any]] = []
    for seat, out in story.exits.items():
        items.append({"kind": out["how"], "seat": seat, **_moment(out)})
    for night in s.nights:
        if night.don_check is not None:
            target, sheriff = night.don_check
            items.append({"kind": "don_check", "target": target, "found": sheriff,
                          "night": night.night})  # fmt: skip
        if night.sheriff_check is not None:
            target, black = night.sheriff_check
            items.append({"kind": "sheriff_check", "target": target, "found": black,
                          "night": night.night})  # fmt: skip
    best = s.best_move_record()
    if best is not None:
        # Named in the first victim's last word: the morning after his night.
        morning = story.exits.get(best["by"], {}).get("night", 1) + 1
        items.append({"kind": "best_move", "seat": best["by"], "named": best["named"],
                      "correct": best["correct"], "day": morning})  # fmt: skip
    items += [{"kind": "foul", "seat": foul["seat"], **_moment(foul)} for foul in story.fouls]
    items.sort(key=_order)
    outcome = s.outcome
    return {
        "result": None if outcome is None else outcome.record(),
        "seats": seats,
        "timeline": items,
    }


_KIND_ORDER = {"foul": 0, "fouls": 1, "disqualified": 1, "left": 1, "vote": 2, "killed": 3,
               "don_check": 4, "sheriff_check": 5, "best_move": 6}  # fmt: skip


def _moment(record: dict[str, Any]) -> dict[str, int]:
    return {"night": record["night"]} if "night" in record else {"day": record.get("day", 0)}


def _order(item: dict[str, Any]) -> tuple[int, int, int]:
    """Day n comes before night n (night n is after day n; night 0 is the first night)."""
    period = 2 * item["night"] + 1 if "night" in item else 2 * item["day"]
    return (period, _KIND_ORDER.get(item["kind"], 9), item.get("seat", item.get("target", 0)))
