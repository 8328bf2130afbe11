"""Tournaments (issue 34): a club's tournament as records in the club's log, beside its
roster and sheets: its players (roster and guests), stages, rules preset, scoring system,
keep-apart pairs; each stage's seating (plugin.seating, stored whole); the organiser's swaps
before a round; rounds started and finished.

- `state`: TournamentState (the fold of the records; the questions that answer new ones),
  fold, TournamentError
- `service`: Tournaments (refresh from the log; seat under a deadline; change durably)
"""

from .service import Tournaments
from .state import Tournament, TournamentError, TournamentState, fold

__all__ = ["Tournament", "TournamentError", "TournamentState", "Tournaments", "fold"]
