"""Whole games for property tests: a preset, a seed, and picks among the legal actions."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import strategies as st

from plugin.host.game import new_game
from plugin.host.settings import TableSettings
from plugin.rules import apply, legal_actions
from plugin.rules.state import GameState

PRESETS = st.sampled_from(["classic", "online", "fiim"])
SEEDS = st.integers(min_value=0, max_value=10_000)


def picks(*, min_size: int, max_size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(
        st.integers(min_value=0, max_value=10_000), min_size=min_size, max_size=max_size
    )


def first_state(preset: str, seed: int) -> GameState:
    return new_game(TableSettings.from_record({"preset": preset, "seats": 10, "seed": seed}))


def played(preset: str, seed: int, choices: list[int]) -> Iterator[tuple[int, GameState]]:
    """Each pick with the state it led to (the pick-th legal action, wrapping round),
    from the lobby on, until the game is over."""
    state = first_state(preset, seed)
    for pick in choices:
        if state.over:
            return
        actions = legal_actions(state)
        state, _ = apply(state, actions[pick % len(actions)])
        yield pick, state
