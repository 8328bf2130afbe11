"""Conformance scenario files: `files` reads and checks one, `runner` plays it on the engine.

Above the pure engine (it keeps the file format and the runner out of `plugin.rules`); the
command line (`autohost scenario`) reads the file and prints the result.
"""

from .files import Scenario, ScenarioError, load, parse
from .runner import game_result, run

__all__ = ["Scenario", "ScenarioError", "game_result", "load", "parse", "run"]
