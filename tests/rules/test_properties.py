"""Properties over random ballots and random legal play (hypothesis)."""

from __future__ import annotations

import contextlib
import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.rules import RuleError, apply, legal_actions, load_preset, new_game, new_vote
from plugin.rules import events as ev
from plugin.rules.effects import VoteFinished
from plugin.rules.legal import always_legal
from plugin.rules.state import Phase

seats = st.integers(min_value=1, max_value=10)
ballot = st.tuples(seats, st.one_of(st.none(), seats))


def run_vote(rules: str, nominations: list[int], rounds: list[list[tuple[int, int | None]]]):
    """Feed each round's ballots (in arrival order, any window); return the accepted ones
    per round, the result and the final state."""
    state = new_vote(load_preset(rules), players=10, nominations=nominations)
    accepted: list[list[tuple[int, int | None]]] = []
    result = None
    pending = list(rounds)
    fed: set[int] = set()
    for _ in range(500):
        if state.over:
            break
        r = state.vote.round if state.vote is not None else None
        if state.phase is Phase.VOTING and r.kind != "lift" and pending and r.number not in fed:
            fed.add(r.number)
            batch, pending = pending[0], pending[1:]
            accepted.append([])
            for voter, candidate in batch:
                before = state
                try:
                    state, _ = apply(state, ev.CastVote(voter=voter, candidate=candidate))
                    accepted[-1].append((voter, candidate))
                except RuleError:
                    assert state == before  # a refused event changes nothing
        if state.phase is Phase.DIALOG:
            state, _ = apply(state, ev.HostChoice(choice="close"))
            continue
        state, effects = apply(state, ev.TimerExpired(timer=state.timer.id))
        for effect in effects:
            if isinstance(effect, VoteFinished):
                result = effect.result
    assert state.over and result is not None
    return accepted, result, state


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(["online", "classic"]),
    nominations=st.lists(seats, min_size=0, max_size=4, unique=True),
    rounds=st.lists(st.lists(ballot, max_size=14), max_size=3),
)
def test_every_accepted_ballot_counted_once(rules, nominations, rounds) -> None:
    accepted, result, _ = run_vote(rules, nominations, rounds)
    vote_rounds = [r for r in result["rounds"] if r["kind"] != "lift"]
    for given_ballots, record in zip(accepted, vote_rounds, strict=False):
        voters = [v for v, _ in given_ballots]
        assert len(voters) == len(set(voters))  # one ballot per voter per round
        assert set(voters) <= set(record["voters"])
        counted = sum(record["tally"].values())
        assert counted == sum(1 for _, c in given_ballots if c is not None)
    # nobody is eliminated who was not a candidate
    assert set(result["eliminated"]) <= set(nominations)
    assert result["outcome"] in ("eliminated", "nobody", "withdrawn", "cancelled")


@settings(max_examples=60, deadline=None)
@given(
    nominations=st.lists(seats, min_size=2, max_size=4, unique=True),
    rounds=st.lists(st.lists(ballot, max_size=12), max_size=3),
)
def test_same_events_same_state(nominations, rounds) -> None:
    first = run_vote("online", nominations, rounds)
    second = run_vote("online", nominations, rounds)
    assert first[1] == second[1] and first[2] == second[2]


# Whole games driven by a list of picks among the legal actions (the two game properties).
PRESETS = st.sampled_from(["classic", "online", "fiim"])
SEEDS = st.integers(min_value=0, max_value=10_000)


def picks(*, max_size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(min_value=0, max_value=10_000), min_size=50, max_size=max_size)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=PRESETS, seed=SEEDS, choices=picks(max_size=400))
def test_legal_actions_are_accepted_and_replay_is_deterministic(rules, seed, choices) -> None:
    """Every action legal_actions offers is accepted; replaying the same events gives the
    same state; any other event is refused without a change."""
    state = new_game(load_preset(rules), players=10, seed=seed)
    log: list[ev.Event] = []
    for pick in choices:
        if state.over:
            break
        actions = legal_actions(state)
        if pick % 17 == 0:
            actions = actions + always_legal(state)
        action = actions[pick % len(actions)]
        state, _ = apply(state, action)  # must not raise
        log.append(action)
        probe = ev.CastVote(voter=pick % 10 + 1, candidate=(pick // 10) % 10 + 1)
        with contextlib.suppress(RuleError):
            apply(state, probe)  # refused or not, `state` itself must not change
    replay = new_game(load_preset(rules), players=10, seed=seed)
    for action in log:
        replay, _ = apply(replay, action)
    assert replay == state


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=PRESETS, seed=SEEDS, choices=picks(max_size=300))
def test_apply_never_changes_the_state_it_was_given(rules, seed, choices) -> None:
    """The state's records (rounds, days, nights) are plain slotted classes built for speed
    and only treated as immutable, so check it: after any accepted or refused event, every
    earlier state still equals a deep copy taken before."""
    state = new_game(load_preset(rules), players=10, seed=seed)
    history: list[tuple[object, object]] = []
    for pick in choices:
        if state.over:
            break
        history.append((state, copy.deepcopy(state)))
        probe = ev.CastVote(voter=pick % 10 + 1, candidate=(pick // 10) % 10 + 1)
        with contextlib.suppress(RuleError):
            apply(state, probe)
        actions = legal_actions(state)
        state, _ = apply(state, actions[pick % len(actions)])
    assert len(history) > 10
    for held, snapshot in history:
        assert held == snapshot
