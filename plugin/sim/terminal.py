"""`autohost demo --terminal`: one day's vote played in the terminal, with real timers.

Issue 2's demo, kept: the engine runs a day vote on its own (plugin.rules.new_vote) for ten
players with three candidates; simulated voters vote at random moments of the window so
that the first round ties (seed 004: the tied candidates speak again, then the revote)
and the revote decides. Every announcement is printed in the table's language as the host
says it, with each speech, each vote and the running tally, as it happens. Timers are the
preset's, divided by `speed`.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from plugin.rules import apply, load_preset, new_vote
from plugin.rules import effects as fx
from plugin.rules import events as ev
from plugin.rules.errors import RuleError

from .speech import speech_line
from .speed import scaled_timers

NOMINATIONS = (3, 7, 5)
SPEECH_SHARE = 0.4  # a simulated speaker uses this share of his time, then passes


def _ballot(round_number: int, candidates: list[int], voters: list[int]) -> dict[int, int]:
    """Who votes for whom: the first round ties the first two candidates; later rounds
    put the first candidate out (nobody votes for himself: seed 004)."""
    first, second = candidates[0], candidates[1]
    if round_number > 1:
        return {v: (second if v == first else first) for v in voters}
    plan: dict[int, int] = {}
    counts = {first: 0, second: 0}
    for voter in voters:  # the two leaders first, so they never vote for themselves
        if voter in (first, second):
            choice = second if voter == first else first
            plan[voter] = choice
            counts[choice] += 1
    for voter in voters:
        if voter in plan:
            continue
        if counts[first] == counts[second] and len(voters) - len(plan) == 1:
            break  # an odd voter out abstains, so the tie stays exact
        choice = first if counts[first] <= counts[second] else second
        plan[voter] = choice
        counts[choice] += 1
    return plan


async def run_terminal_vote(
    *,
    lang: str = "en",
    speed: float = 1.0,
    seed: int = 1,
    preset: str = "online",
    players: int = 10,
    out: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Play the day vote; returns {"eliminated": [...], "rounds": n, "outcome": ...}."""
    from voice.phrases import Catalogue

    catalogue = Catalogue.load(lang)
    rng = random.Random(seed)
    rules = load_preset(preset, scaled_timers(preset, speed))
    state = new_vote(rules, players=players, nominations=NOMINATIONS)
    started = time.monotonic()
    planned: list[tuple[float, Any]] = []
    planned_for: set[tuple[Any, ...]] = set()
    deadline: float | None = None
    rounds = 0
    result: dict[str, Any] = {"eliminated": [], "rounds": 0, "outcome": None}

    def say(text: str) -> None:
        out(f"[{time.monotonic() - started:6.1f}s] {text}")

    def carry_out(effects: list[Any]) -> None:
        nonlocal deadline
        for effect in effects:
            if isinstance(effect, fx.Announce):
                say(f"HOST: {catalogue.text(effect.key, effect.params)}")
            elif isinstance(effect, fx.SetSpeakers):
                say(f"  microphones open: {sorted(effect.seats) or 'none'}")
            elif isinstance(effect, fx.StartTimer):
                deadline = time.monotonic() + effect.seconds
            elif isinstance(effect, fx.StopTimer):
                deadline = None
            elif isinstance(effect, fx.VoteFinished):
                result["outcome"] = effect.result
            elif isinstance(effect, fx.PlayersOut):
                result["eliminated"] += list(effect.seats)
                say(f"  out: {list(effect.seats)}")

    def step(event: Any) -> bool:
        nonlocal state
        try:
            state, effects = apply(state, event)
        except RuleError as refusal:
            say(f"  (refused {type(event).__name__}: {refusal.message})")
            return False
        carry_out(effects)
        return True

    def plan() -> None:
        nonlocal rounds
        now = time.monotonic()
        timer = state.timer
        window = timer.seconds if timer is not None else 1.0
        r = state.vote.round if state.vote is not None else None
        phase = state.phase.value
        key: tuple[Any, ...]
        if phase == "voting" and r is not None and r.kind != "lift":
            key = ("vote", r.number)
            if key not in planned_for:
                planned_for.add(key)
                rounds += 1
                ballot = _ballot(rounds, list(r.candidates), sorted(state.voters))
                for voter, candidate in ballot.items():
                    at = now + rng.uniform(0.1, 0.6) * window
                    planned.append((at, ev.CastVote(voter=voter, candidate=candidate)))
        elif phase == "voting" and r is not None:
            key = ("lift", r.number)
            if key not in planned_for:
                planned_for.add(key)
                for voter in sorted(state.voters):
                    at = now + rng.uniform(0.1, 0.6) * window
                    planned.append((at, ev.CastLift(voter=voter, leave=rng.random() < 0.5)))
        elif state.speaker is not None and phase in ("defense", "last_word"):
            key = ("speech", phase, state.speaker, timer.id if timer else None)
            if key not in planned_for:
                planned_for.add(key)
                say(f"  seat {state.speaker} speaks: «{speech_line(lang, state.speaker)}»")
                planned.append((now + SPEECH_SHARE * window, ev.PassSpeech(seat=state.speaker)))

    # The first timer (0 s) opens the vote (new_vote: leaves may come before it).
    say(f"Day vote, {players} players, candidates {list(NOMINATIONS)}, rules {preset!r}, "
        f"timers x1/{speed:g}")  # fmt: skip
    assert state.timer is not None  # new_vote starts with that timer
    step(ev.TimerExpired(timer=state.timer.id))
    while not state.over:
        plan()
        planned.sort(key=lambda item: item[0])
        next_action = planned[0][0] if planned else None
        candidates = [t for t in (next_action, deadline) if t is not None]
        if not candidates:
            say("  (nothing left to wait for)")
            break
        due = min(candidates)
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        if next_action is not None and next_action <= due:
            _, event = planned.pop(0)
            before = state
            if step(event) and isinstance(event, ev.CastVote) and state.vote is not None:
                r = state.vote.round or (before.vote.round if before.vote else None)
                if r is not None:
                    tally = "  ".join(f"{c}→{n}" for c, n in r.tally().items())
                    say(f"  seat {event.voter} votes for {event.candidate}   tally: {tally}")
        elif state.timer is not None:
            deadline = None
            planned.clear()  # what was planned for this phase is moot now
            step(ev.TimerExpired(timer=state.timer.id))
    result["rounds"] = rounds
    say(f"The vote is over: out {result['eliminated'] or 'nobody'} after {rounds} round(s).")
    return result
