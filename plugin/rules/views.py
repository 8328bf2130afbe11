"""What each client may see of the state, as JSON-able dicts.

Everyone gets the same public part, serialised the same way. A player adds his own role,
his team (black players see each other) and his own night results; the live host sees
everything. Nothing private reaches a view it does not belong to: a night's victim is not
shown as out before the morning, and roles are shown to all only when the game is over.
"""

from __future__ import annotations

from typing import Any

from .roles import BLACK
from .state import NIGHT_PHASES, GameState, Phase

_AFTER_SHOT = frozenset({Phase.DON_CHECK, Phase.SHERIFF_CHECK})


def public_view(state: GameState) -> dict[str, Any]:
    """The part of the state every participant (and a spectator) may see."""
    s = state
    alive = set(s.alive)
    if s.phase in _AFTER_SHOT and s.nights and s.nights[-1].killed is not None:
        alive.add(s.nights[-1].killed)  # the kill is told in the morning, not before
    view: dict[str, Any] = {
        "version": s.version,
        "rules": s.rules.name,
        "phase": s.phase.value,
        "day": s.day,
        "night": s.night if s.phase in NIGHT_PHASES else None,
        "players": s.players,
        "alive": sorted(alive),
        "fouls": {str(seat): n for seat, n in enumerate(s.fouls, start=1) if n},
        "removed": list(s.removed),
        "speaker": s.speaker,
        "speakers": sorted(s.speakers),
        "timer": None
        if s.timer is None
        else {"id": s.timer.id, "seconds": s.timer.seconds, "purpose": s.timer.purpose},
        "nominations": [list(pair) for pair in s.days[-1].nominations] if s.days else [],
        "vote": _vote_view(s),
        "manual": s.manual,
        "dialog": None if s.dialog is None else {"kind": s.dialog.kind},
        "winner": s.winner,
        "over": s.over,
        # The end of the game as one value (added; `winner` and `over` stay for the widgets).
        "outcome": None if s.outcome is None else s.outcome.record(),
    }
    if s.over and s.roles is not None:
        view["roles"] = {str(seat): role for seat, role in enumerate(s.roles, start=1)}
    return view


def _vote_view(s: GameState) -> dict[str, Any] | None:
    vote = s.vote
    if vote is None:
        return None
    view: dict[str, Any] = {
        "nominations": list(vote.nominations),
        "outcome": vote.outcome,
        "eliminated": list(vote.eliminated),
        "round": None,
    }
    r = vote.round
    if r is not None:
        open_now = s.phase is Phase.VOTING
        window = r.candidates[r.window] if r.kind != "lift" and open_now else None
        yes, no = r.lift_tally()
        view["round"] = {
            "number": r.number,
            "kind": r.kind,
            "open": open_now,
            "candidates": list(r.candidates),
            "voters": sorted(r.voters),
            "waiting": sorted(s.voters),
            "tally": {str(c): n for c, n in r.tally().items()},
            "lift": {"for": yes, "against": no} if r.kind == "lift" else None,
            # Seed 004: the tied candidates are outlined in yellow while the vote is open.
            "tied": list(s.tied_top) if open_now else [],
            "calling": window if s.rules.voting_mode == "sequential" else None,
        }
    return view


def seat_view(state: GameState, seat: int) -> dict[str, Any]:
    """What the player in `seat` may see: the public view plus his own secrets."""
    return {**public_view(state), "me": seat_secrets(state, seat)}


def seat_secrets(state: GameState, seat: int) -> dict[str, Any]:
    """The `me` part of seat_view: the player's own role, team, results and actions (the
    rest of his view is the public one, which a broadcast builds once for every seat)."""
    s = state
    role = s.role(seat)
    mine: dict[str, Any] = {
        "seat": seat,
        "role": role,
        "in_game": seat in s.alive,
        "can_vote": seat in s.voters,
        "checks": [
            {"kind": kind, "target": target, "result": result}
            for checker, kind, target, result in s.checks
            if checker == seat
        ],
        "action": _night_action(s, seat),
    }
    if role in BLACK and s.roles is not None:
        mine["black_team"] = [i for i, name in enumerate(s.roles, start=1) if name in BLACK]
        if s.phase is Phase.SHOT and s.nights:
            mine["shot"] = dict(s.nights[-1].shots).get(seat)
    if s.phase is Phase.SPEECH and s.speaker == seat and s.days:
        mine["may_nominate"] = not any(by == seat for by, _ in s.days[-1].nominations)
    return mine


def _night_action(s: GameState, seat: int) -> str | None:
    # The best move belongs to the first night's victim, who is already out of the game.
    if s.phase is Phase.MORNING_LAST_WORD and s.speaker == seat == s.first_killed:
        return "best_move" if s.best_move_open else None
    if seat not in s.alive:
        return None
    role = s.role(seat)
    if s.phase is Phase.SHOT and role in BLACK:
        return "shoot"
    if s.phase is Phase.DON_CHECK and role == "don":
        return "don_check"
    if s.phase is Phase.SHERIFF_CHECK and role == "sheriff":
        return "sheriff_check"
    return None


def host_view(state: GameState, public: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything, for the live host's console (`public`: this state's public_view, when
    the caller has built it already; it is not changed)."""
    s = state
    view = public_view(s) if public is None else dict(public)
    view["alive"] = sorted(s.alive)
    view["roles"] = (
        {str(seat): role for seat, role in enumerate(s.roles, start=1)} if s.roles else {}
    )
    view["checks"] = [
        {"by": checker, "kind": kind, "target": target, "result": result}
        for checker, kind, target, result in s.checks
    ]
    view["shots"] = [list(pair) for pair in s.nights[-1].shots] if s.nights else []
    view["dialog"] = (
        None
        if s.dialog is None
        else {
            "kind": s.dialog.kind,
            "candidates": list(s.dialog.candidates),
            "options": list(s.dialog.options),
            "default": s.dialog.default,
        }
    )
    view["awaiting_revote"] = s.phase is Phase.AWAIT_REVOTE
    view["skip_speech"] = sorted(s.skip_speech)
    view["best_move"] = s.best_move_record()
    view["speech_queue"] = list(s.speech_queue)
    return view
