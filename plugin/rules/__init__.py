"""The rules engine: pure, deterministic, no I/O.

    state = new_game(load_preset("classic"), players=10, seed=7)
    state, effects = apply(state, StartGame())

`apply` refuses an illegal event with IllegalAction and a malformed one with
InvalidAction, leaving the state as it was: which events a phase accepts is one table
(machine.ACCEPTS), the rest is asked of the guards (guards.py), which `legal_actions` uses
to answer what may happen now. The end of the game is one value, `state.outcome`
(Outcome(termination, winner)); every mode is an enum of modes.py that is its own string.
"""

from .effects import Effect
from .errors import IllegalAction, InvalidAction, RuleError
from .events import Event
from .legal import legal_actions
from .machine import apply, new_game, new_vote
from .settings import Rules, load_preset, preset_names, with_overrides
from .state import GameState, Outcome, Phase

__all__ = [
    "Effect",
    "Event",
    "GameState",
    "IllegalAction",
    "InvalidAction",
    "Outcome",
    "Phase",
    "RuleError",
    "Rules",
    "apply",
    "legal_actions",
    "load_preset",
    "new_game",
    "new_vote",
    "preset_names",
    "with_overrides",
]
