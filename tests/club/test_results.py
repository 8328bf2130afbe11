"""The club's live results equal a recomputation (issue 33): any order of signings and
corrections, folded record by record as the club folds its log, gives the standings of
every season that the final sheets give when replayed in any order, and the ratings that
they give replayed in signing order; a correction followed by its reversal restores both."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from plugin.club import ClubState, Results
from plugin.club.results import public_sheet
from plugin.club.state import Signed

DEAL = ("civilian",) * 6 + ("sheriff", "mafia", "mafia", "don")
POOL = [f"p{n}" for n in range(1, 15)]
SEASONS = ("2025", "2026")


@st.composite
def game_records(draw: st.DrawFn) -> dict[str, Any]:
    roles = draw(st.permutations(DEAL))
    players = draw(st.permutations(POOL))[:10]
    seats = []
    for n in range(10):
        out = draw(st.sampled_from([None, "vote", "fouls", "disqualified", "left", "killed"]))
        seats.append({"seat": n + 1, "player": players[n], "role": roles[n], "out": out,
                      "night": draw(st.integers(1, 3)) if out == "killed" else None,
                      "fouls": draw(st.integers(0, 4))})  # fmt: skip
    first = [s["seat"] for s in seats if s["out"] == "killed" and s["night"] == 1]
    best = draw(st.integers(0, 3)) if first else None
    return {"winner": draw(st.sampled_from(["city", "mafia", "draw", None])),
            "best_move": None if best is None else {"by": first[0], "correct": best},
            "seats": seats}  # fmt: skip


@st.composite
def sheets(draw: st.DrawFn) -> dict[str, Any]:
    extra = draw(st.dictionaries(
        st.integers(1, 10).map(str),
        st.lists(st.integers(-6, 6).map(lambda k: {"points": round(k * 0.05, 2), "comment": "why"}),
                 min_size=1, max_size=2),
        max_size=3,
    ))  # fmt: skip
    removed = draw(st.dictionaries(st.integers(1, 10).map(str), st.just("worst"), max_size=2))
    team = draw(st.sampled_from([None, "city", "mafia"]))
    sheet: dict[str, Any] = {"extra": extra, "auto_bonus_removed": removed}
    if team is not None:
        sheet["team_disqualified"] = {"team": team, "reason": "collusion"}
    return sheet


# An operation: sign game i (if not yet) or correct it (if signed) with this sheet; a
# correction may also move a seat to another player.
OPERATIONS = st.lists(
    st.tuples(st.integers(0, 5), sheets(), st.sampled_from(SEASONS), st.booleans()),
    min_size=1, max_size=14,
)  # fmt: skip


class Folded:
    """The club's state and results, folded one record at a time (as Club._fold does)."""

    def __init__(self) -> None:
        self.state = ClubState()
        self.results = Results()

    def fold(self, record: dict[str, Any]) -> None:
        self.state.apply(record)
        self.results.put(self.state.signed[record["game_id"]])

    def act(self, game_id: str, game: dict[str, Any], sheet: dict[str, Any], season: str,
            swap: bool) -> dict[str, Any] | None:  # fmt: skip
        signed = self.state.signed.get(game_id)
        if signed is None:
            record = self.state.sign(game_id, season, "fiim", game, sheet, "judge:p1")
        else:
            new_game = signed.game
            if swap:  # seats 1 and 2 were swapped on the sheet: who played what changes
                seats = [dict(s) for s in signed.game["seats"]]
                seats[0]["player"], seats[1]["player"] = seats[1]["player"], seats[0]["player"]
                new_game = {**signed.game, "seats": seats}
            if new_game == signed.game and sheet == signed.sheet:
                return None
            record = self.state.correct(game_id, sheet, new_game, "a fix", "admin")
        self.fold(record)
        return record


def standings_of(results: Results) -> dict[str, list[Any]]:
    return {
        season: [(r.rank, r.player, r.total, r.games, r.ci, r.extra) for r in table.rows()]
        for season, table in results.seasons.items()
        if table.games
    }


def ratings_of(results: Results) -> dict[str, tuple[float, float]]:
    return {p: (r.mu, r.sigma) for p in POOL if (r := results.ratings.of(p))}


@settings(max_examples=60, deadline=None)
@given(games=st.lists(game_records(), min_size=6, max_size=6), operations=OPERATIONS,
       order=st.randoms(use_true_random=False))  # fmt: skip
def test_live_results_equal_a_recompute_in_any_order(
    games: list[dict[str, Any]], operations: list[Any], order: Any
) -> None:
    live = Folded()
    for index, sheet, season, swap in operations:
        live.act(f"g{index}", games[index], sheet, season, swap)
    final = [live.state.signed[game_id] for game_id in live.state.sign_order]
    in_order = Results.recompute(final)
    assert standings_of(live.results) == standings_of(in_order)
    assert ratings_of(live.results) == ratings_of(in_order)
    shuffled = list(final)
    order.shuffle(shuffled)
    assert standings_of(Results.recompute(shuffled)) == standings_of(live.results)


@settings(max_examples=40, deadline=None)
@given(games=st.lists(game_records(), min_size=4, max_size=4), first=st.lists(sheets(),
       min_size=4, max_size=4), fix=sheets(), which=st.integers(0, 3))  # fmt: skip
def test_a_correction_and_its_reversal_restore_standings_and_ratings(
    games: list[dict[str, Any]], first: list[dict[str, Any]], fix: dict[str, Any], which: int
) -> None:
    live = Folded()
    for n in range(4):
        live.act(f"g{n}", games[n], first[n], "2026", False)
    standings, ratings = standings_of(live.results), ratings_of(live.results)
    if live.act(f"g{which}", games[which], fix, "2026", True) is None:
        return
    live.act(f"g{which}", games[which], first[which], "2026", True)  # swapped back
    assert standings_of(live.results) == standings
    assert ratings_of(live.results) == ratings


def test_a_season_moved_by_a_correction_leaves_the_old_one() -> None:
    live = Folded()
    game = {"winner": "city", "best_move": None,
            "seats": [{"seat": n + 1, "player": POOL[n], "role": DEAL[n], "out": None,
                       "night": None, "fouls": 0} for n in range(10)]}  # fmt: skip
    live.act("g0", game, {}, "2025", False)
    assert set(standings_of(live.results)) == {"2025"}
    signed: Signed = live.state.signed["g0"]
    signed.season = "2026"  # what a re-signing into another season would record
    live.results.put(signed)
    assert set(standings_of(live.results)) == {"2026"}


def public_of(results: Results, state: ClubState, hidden: set[str]) -> dict[str, list[Any]]:
    return {
        season: [(r.rank, r.player, r.total, r.games, r.ci, r.extra) for r in table.rows()]
        for season in results.seasons
        if (table := results.public_standings(season, state.signed, hidden)).games
    }


@settings(max_examples=40, deadline=None)
@given(games=st.lists(game_records(), min_size=6, max_size=6), operations=OPERATIONS,
       hidden=st.sets(st.integers(0, 5).map(lambda i: f"g{i}")))  # fmt: skip
def test_public_standings_score_hidden_games_without_the_judges_parts(
    games: list[dict[str, Any]], operations: list[Any], hidden: set[str]
) -> None:
    """Issue 34: while a tournament hides some games' extras, a season's public standings
    are those games scored by their public sheets (the rest as signed), read after every
    change (nothing stale is kept); the ratings are the same whatever the judges wrote."""
    live = Folded()
    for index, sheet, season, swap in operations:
        live.act(f"g{index}", games[index], sheet, season, swap)
        final = [live.state.signed[game_id] for game_id in live.state.sign_order]
        seen = [Signed(game_id=s.game_id, season=s.season, system=s.system, game=s.game,
                       sheet=public_sheet(s.sheet) if s.game_id in hidden else s.sheet)
                for s in final]  # fmt: skip
        assert public_of(live.results, live.state, hidden) == standings_of(Results.recompute(seen))
        assert public_of(live.results, live.state, set()) == standings_of(live.results)
        # the public view is a copy: the whole standings are untouched by it
        assert standings_of(live.results) == standings_of(Results.recompute(final))
    bare = [Signed(game_id=s.game_id, season=s.season, system=s.system, game=s.game, sheet={})
            for s in (live.state.signed[g] for g in live.state.sign_order)]  # fmt: skip
    assert ratings_of(Results.recompute(bare)) == ratings_of(live.results)


def test_the_public_sheet_leaves_out_the_judges_extras_only() -> None:
    sheet = {"extra": {"3": [{"points": 0.3, "comment": "led"}]}, "auto_bonus_removed": {"5": "x"},
             "best_move": {"correct": 2, "reason": "r"},
             "team_disqualified": {"team": "mafia", "reason": "c"}}  # fmt: skip
    assert public_sheet(sheet) == {"best_move": sheet["best_move"],
                                   "team_disqualified": sheet["team_disqualified"]}  # fmt: skip
