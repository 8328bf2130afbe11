"""Scoring: a finished game's record and the judge's sheet → points per seat, standings of a
period, ratings. Pure (no I/O but reading a system's file, no clock): scoring systems are
data in `config/scoring/*.toml`, each number citing its source.

- `system`: ScoringSystem, load_system (the file's rules, checked)
- `record`: Game, Seat, Sheet (the judge's parts), game_from_protocol, sheet_from_json
- `points`: score_game (main, extra, best move, penalty per seat), ci_value
- `standings`: Standings (put, remove, rows), exact under any order of games
- `rating`: Ratings (openskill, team against team)
"""

from .points import SeatScore, ci_value, score_game
from .rating import Rating, Ratings
from .record import Bonus, Game, Seat, Sheet, check_sheet, game_from_protocol, sheet_from_json
from .standings import Row, Standings
from .system import ScoringError, ScoringSystem, load_system, parse_system

__all__ = [
    "Bonus",
    "Game",
    "Rating",
    "Ratings",
    "Row",
    "ScoringError",
    "ScoringSystem",
    "Seat",
    "SeatScore",
    "Sheet",
    "Standings",
    "check_sheet",
    "ci_value",
    "game_from_protocol",
    "load_system",
    "parse_system",
    "score_game",
    "sheet_from_json",
]
