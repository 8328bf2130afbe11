"""The club above the tables (issue 33): a roster of players with personal links, people with
rights (judges, admins), the judge's sheet that turns a finished game into results, and the
results themselves (points, standings per season, ratings). Its records live in the event
log beside the games (`club_records`), so a restart or a failover loses none of them.

- `state`: ClubState (the fold of the records; the questions that answer new ones), ClubError
- `club`: Club (refresh from the log; `change`/`commit`: durable before answered)
- `links`: personal links `~club/<kind>/<person>` (issue, admit, revoke by generation)
- `games`, `sheets`: a finished table as the club scores it; draft, sign, correct
- `results`: Results (standings per season, ratings), live and equal to a recompute
- `api`, `pages`, `site`: /api/club/* and the club's pages (`autohost player`: plugin.cli.player)
"""

from .club import Club, ClubLog
from .links import Person
from .results import Results
from .state import ClubError, ClubState

__all__ = ["Club", "ClubError", "ClubLog", "ClubState", "Person", "Results"]
