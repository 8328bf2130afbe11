"""`autohost simulate`: whole games played by simulated players choosing random legal actions.

Every action comes from `legal_actions` (or the always-legal fouls and leaves), so an
action the engine then refuses is an error, as is a game that does not end or breaks an
invariant. The randomness lives here, seeded; the engine stays deterministic.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from plugin.rules import (
    GameState,
    Phase,
    RuleError,
    Rules,
    apply,
    legal_actions,
    load_preset,
    new_game,
    preset_names,
)
from plugin.rules import events as ev

MAX_EVENTS = 20_000


@dataclass(slots=True)
class GameOutcome:
    winner: str | None
    events: int
    error: str | None = None
    log: list[ev.Event] | None = None  # the accepted events, when asked for


# Phases where only the clock acts (besides the always-legal fouls and leaves).
_CLOCK_ONLY = frozenset(
    {
        Phase.BLACK_MEETING,
        Phase.DON_MEETING,
        Phase.SHERIFF_MEETING,
        Phase.FREE_SEATING,
        Phase.VOTE_INTRO,
        Phase.REVOTE_PAUSE,
        Phase.FINAL_MINUTE,
    }
)


def _choose(state: GameState, rng: random.Random) -> ev.Event:
    if state.phase in _CLOCK_ONLY and state.timer is not None and rng.random() >= 0.004:
        return ev.TimerExpired(timer=state.timer.id)
    actions = legal_actions(state)
    timer = [a for a in actions if isinstance(a, ev.TimerExpired)]
    others = [a for a in actions if not isinstance(a, ev.TimerExpired)]
    phase = state.phase
    if phase is Phase.SHOT:  # each black player shoots once, at a seat in the game
        shot = {by for by, _ in state.nights[-1].shots}
        others = [
            a
            for a in others
            if isinstance(a, ev.Shoot) and a.by not in shot and a.target in state.alive
        ]
    if rng.random() < 0.004 and state.phase is not Phase.LOBBY:
        seat = rng.choice(sorted(state.alive))
        return ev.Foul(seat=seat) if rng.random() < 0.9 else ev.PlayerLeft(seat=seat)
    if phase is Phase.VOTING and others:
        return rng.choice(others)  # everyone votes before the window closes
    if phase is Phase.SHOT and others:
        # The black team mostly agrees on one red seat (a kill), sometimes not (a miss).
        black = {a.by for a in others if isinstance(a, ev.Shoot)}
        reds = sorted(seat for seat in state.alive if not state.is_black(seat))
        if reds and rng.random() < 0.85:
            target = (state.night * 7919 + state.players) % len(reds)
            agreed = [a for a in others if isinstance(a, ev.Shoot) and a.target == reds[target]]
            if agreed and len(black) > 0:
                return agreed[0]
        return rng.choice(others)
    if phase in (Phase.DIALOG, Phase.AWAIT_REVOTE, Phase.LOBBY) and others:
        return rng.choice(others)
    if others and rng.random() < 0.35:
        return rng.choice(others)
    if timer:
        return timer[0]
    return rng.choice(others)


@lru_cache(maxsize=8)
def _preset(name: str) -> Rules:
    return load_preset(name)


def play(
    rules_name: str, seed: int, players: int = 10, manual: bool = False, keep_log: bool = False
) -> GameOutcome:
    """One game with random legal actions; never raises."""
    rng = random.Random(seed)
    rules = _preset(rules_name)
    state = new_game(rules, players=players, seed=seed, manual=manual)
    count = 0
    log: list[ev.Event] | None = [] if keep_log else None
    try:
        while not state.over:
            count += 1
            if count > MAX_EVENTS:
                return GameOutcome(None, count, f"no end after {MAX_EVENTS} events")
            action = _choose(state, rng)
            before = state
            try:
                state, _ = apply(state, action)
            except RuleError as error:
                return GameOutcome(None, count, f"legal action refused: {action!r}: {error}")
            if log is not None:
                log.append(action)
            problem = _invariant(before, state)
            if problem:
                return GameOutcome(None, count, problem)
    except Exception as error:  # a crash is an error of the engine, reported, not raised
        return GameOutcome(None, count, f"{type(error).__name__}: {error}")
    return GameOutcome(state.winner, count, log=log)


def _invariant(before: GameState, after: GameState) -> str | None:
    if not after.alive <= before.alive:
        return "a player came back into the game"
    last_word = after.phase in (Phase.LAST_WORD, Phase.MORNING_LAST_WORD)
    outside = after.speakers - after.alive - ({after.speaker} if last_word else set())
    if outside:
        return f"seats out of the game may speak: {sorted(outside)}"
    if after.phase in (Phase.SHOT, Phase.DON_CHECK, Phase.SHERIFF_CHECK) and after.speakers:
        return "somebody may speak at night"
    if after.vote is not None and after.vote.round is not None:
        r = after.vote.round
        if len({voter for voter, _ in r.ballots}) != len(r.ballots):
            return "a voter was counted twice"
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="autohost simulate", description=__doc__)
    parser.add_argument("--rules", default="classic", choices=preset_names())
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--manual", action="store_true", help="a live host answers the dialogs")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    winners: Counter[str] = Counter()
    errors: list[str] = []
    started = time.perf_counter()
    events = 0
    for game in range(args.games):
        outcome = play(args.rules, args.seed * 1_000_003 + game, args.players, args.manual)
        events += outcome.events
        if outcome.error is not None:
            errors.append(f"game {game}: {outcome.error}")
        else:
            winners[outcome.winner or "none"] += 1
    elapsed = time.perf_counter() - started
    for line in errors[:10]:
        print(line, file=sys.stderr)
    summary = {
        "games": args.games,
        "city": winners["city"],
        "mafia": winners["mafia"],
        "draw": winners["draw"],
        "errors": len(errors),
        "games_per_second": round(args.games / elapsed, 1),
        "events_per_second": round(events / elapsed),
    }
    print(
        f"{args.games} games ({args.rules}): city {summary['city']}, mafia "
        f"{summary['mafia']}, draw {summary['draw']}, errors {len(errors)}; "
        f"{summary['games_per_second']} games/s"
    )
    print(json.dumps(summary))
    return 1 if errors else 0
