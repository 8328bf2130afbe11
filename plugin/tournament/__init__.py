"""Tournaments (issue 34): a club's tournament as records in the club's log, beside its
roster and sheets: its players (roster and guests), stages, rules preset, scoring system,
keep-apart pairs; each stage's seating (plugin.seating, stored whole); the organiser's swaps
before a round; rounds started and finished.

- `state`: TournamentState (the fold of the records; the questions that answer new ones),
  fold, TournamentError
- `service`: Tournaments (refresh from the log; seat under a deadline; change durably;
  link_table, reveal; `live`: the standings)
- `played`: which club games are a tournament's (link_table), rounds finished by sheets,
  the hidden extras revealed
- `standings`: the live standings (Live), recompute, from_protocols, the top N of a stage
- `exports`: the standings document (stages, overall, final results), CSV, text
- `page`: the standings over REST and the public page
"""

from .service import Tournaments
from .state import Tournament, TournamentError, TournamentState, fold

__all__ = ["Tournament", "TournamentError", "TournamentState", "Tournaments", "fold"]
