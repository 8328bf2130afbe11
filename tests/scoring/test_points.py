"""ФИИМ v7 (config/scoring/fiim.toml) against games computed by hand, rule by rule."""

from __future__ import annotations

from fractions import Fraction

import pytest

from plugin.scoring import (
    Bonus,
    Game,
    ScoringError,
    Seat,
    Sheet,
    Standings,
    ci_value,
    load_system,
    score_game,
    sheet_from_json,
)
from plugin.scoring.points import php_round

FIIM = load_system("fiim")
ROLES = ("civilian", "civilian", "mafia", "civilian", "sheriff",
         "civilian", "don", "civilian", "mafia", "civilian")  # fmt: skip


def game(winner: str | None, *, outs: dict[int, tuple[str, int | None]] | None = None,
         best: tuple[int, int] | None = None, players: str = "p") -> Game:  # fmt: skip
    outs = outs or {}
    return Game(
        seats=tuple(
            Seat(
                seat=n,
                player=f"{players}{n}",
                role=ROLES[n - 1],
                out=outs.get(n, (None, None))[0],
                night=outs.get(n, (None, None))[1],
            )
            for n in range(1, 11)
        ),
        winner=winner,
        best_move_by=best[0] if best else None,
        best_move_correct=best[1] if best else None,
    )


def points(g: Game, sheet: Sheet | None = None) -> dict[int, float]:
    return {s.seat: float(s.points) for s in score_game(FIIM, g, sheet or Sheet())}


def test_a_city_win_by_hand() -> None:
    g = game(
        "city",
        outs={4: ("killed", 1), 6: ("fouls", None), 9: ("disqualified", None), 3: ("vote", None)},
        best=(4, 3),
    )
    sheet = Sheet(
        extra={5: (Bonus(points=Fraction(3, 10), comment="led the city"),)},
        auto_bonus_removed={3: "voted against his own don twice"},
    )
    assert points(g, sheet) == {
        1: 1.3,  # win + auto-bonus
        2: 1.3,
        3: 0.0,  # lost, auto-bonus removed by the judge
        4: 2.0,  # win + auto-bonus + best move of three (0.7)
        5: 1.6,  # win + auto-bonus + the judge's 0.3
        6: 0.8,  # win + auto-bonus - 0.5 for four fouls
        7: 0.3,  # lost: the auto-bonus only
        8: 1.3,
        9: pytest.approx(-0.2),  # disqualified: 0.3 - 0.5
        10: 1.3,
    }


@pytest.mark.parametrize(("correct", "expected"), [(3, 0.7), (2, 0.5), (1, 0.0), (0, 0.0)])
def test_the_best_move_scores_three_or_two(correct: int, expected: float) -> None:
    g = game("mafia", outs={2: ("killed", 1)}, best=(2, correct))
    (score,) = [s for s in score_game(FIIM, g, Sheet()) if s.seat == 2]
    assert float(score.best_move) == expected
    assert score.first_night_death and score.ci_eligible


def test_a_black_player_never_scores_a_best_move() -> None:
    g = game("city", outs={3: ("killed", 1)}, best=(3, 3))
    (score,) = [s for s in score_game(FIIM, g, Sheet()) if s.seat == 3]
    assert score.best_move == 0 and not score.first_night_death


def test_the_judge_corrects_the_best_move_with_a_reason() -> None:
    g = game("mafia", outs={2: ("killed", 1)}, best=(2, 3))
    sheet = sheet_from_json(
        {"best_move": {"correct": 2, "reason": "seat 7 was named after the time"}}, g, FIIM
    )
    assert points(g, sheet)[2] == pytest.approx(0.3 + 0.5)


def test_a_whole_team_disqualified_takes_07_and_a_removed_player_only_his_05() -> None:
    g = game("city", outs={9: ("fouls", None)})
    sheet = sheet_from_json(
        {"team_disqualified": {"team": "mafia", "reason": "collusion"}}, g, FIIM
    )
    scored = points(g, sheet)
    assert scored[3] == pytest.approx(0.3 - 0.7)
    assert scored[7] == pytest.approx(0.3 - 0.7)
    assert scored[9] == pytest.approx(0.3 - 0.5)  # the ?: gives one penalty, not both
    assert scored[1] == pytest.approx(1.3)


def test_conceding_is_a_removal() -> None:
    assert points(game("mafia", outs={1: ("left", None)}))[1] == pytest.approx(-0.2)


def test_a_game_without_result_gives_no_win_and_no_ci() -> None:
    g = game(None, outs={2: ("killed", 1)})
    scores = {s.seat: s for s in score_game(FIIM, g, Sheet())}
    assert not any(s.won for s in scores.values())
    assert scores[2].first_night_death and not scores[2].ci_eligible


@pytest.mark.parametrize(
    ("deaths", "games", "expected"),
    [
        (2, 5, Fraction(1, 2)),  # round(2.0) = 2: 0.5 * 2 / 2 = 0.5
        (2, 10, Fraction(1, 4)),  # round(4.0) = 4: 0.25
        (1, 10, Fraction(1, 8)),
        (1, 3, Fraction(1, 2)),  # round(1.2) = 1: 0.5, the cap
        (3, 3, Fraction(1, 2)),  # capped at C
        (1, 4, Fraction(1, 4)),  # round(1.6) = 2
        (1, 1, Fraction(0)),  # round(0.4) = 0: no sample, no Ci
        (0, 10, Fraction(0)),
    ],
)
def test_ci_as_the_formula_says(deaths: int, games: int, expected: Fraction) -> None:
    assert ci_value(FIIM, deaths, games) == expected


def test_php_rounds_halves_away_from_zero() -> None:
    assert [php_round(Fraction(n, 2)) for n in (1, 3, 5, -1, -3)] == [1, 2, 3, -1, -2]
    assert php_round(Fraction(12, 10)) == 1 and php_round(Fraction(16, 10)) == 2


def test_ci_in_the_standings_counts_each_lost_first_night_game() -> None:
    standings = Standings(FIIM)
    # p2 (civilian): killed night 1 in games 1 and 2, the city lost game 1 and won game 2;
    # then three quiet games: N = 5, K = 2, one eligible game: Ci = min(0.5, 0.5*2/2) = 0.5
    standings.put("g1", score_game(FIIM, game("mafia", outs={2: ("killed", 1)}), Sheet()))
    standings.put("g2", score_game(FIIM, game("city", outs={2: ("killed", 1)}), Sheet()))
    for n in (3, 4, 5):
        standings.put(f"g{n}", score_game(FIIM, game("city"), Sheet()))
    row = next(r for r in standings.rows() if r.player == "p2")
    assert (row.games, row.first_night_deaths, row.ci) == (5, 2, Fraction(1, 2))
    # 4 wins (1.0 each) + 5 auto-bonuses (0.3) + Ci 0.5
    assert row.total == Fraction(4) + Fraction(15, 10) + Fraction(1, 2)


def test_ties_are_broken_by_extra_penalty_best_move_then_wins() -> None:
    standings = Standings(FIIM)
    # a: one win with the auto-bonus removed: 1.0; b: a loss with 0.7 extra: 0.3 + 0.7 = 1.0
    g1 = game("city", players="a")
    standings.put("1", score_game(FIIM, g1, Sheet(auto_bonus_removed={1: "late"})))
    g2 = game("mafia", players="b")
    bonus = Bonus(points=Fraction(7, 10), comment="great defence")
    standings.put("2", score_game(FIIM, g2, Sheet(extra={1: (bonus,)})))
    rows = {r.player: r for r in standings.rows()}
    assert rows["a1"].total == rows["b1"].total == 1
    assert rows["b1"].rank < rows["a1"].rank  # 1.0 in extra beats 0.0


@pytest.mark.parametrize(
    ("document", "code"),
    [
        ({"extra": {"3": [{"points": 0.3}]}}, "comment_required"),
        ({"extra": {"3": [{"points": 0.3, "comment": "   "}]}}, "comment_required"),
        ({"extra": {"3": [{"points": 1.5, "comment": "too much"}]}}, "points_out_of_range"),
        (
            {"extra": {"3": [{"points": 0.6, "comment": "a"}, {"points": 0.6, "comment": "b"}]}},
            "points_out_of_range",
        ),
        ({"extra": {"3": [{"points": 0.33, "comment": "off the step"}]}}, "bad_points"),
        ({"extra": {"3": [{"points": "nan", "comment": "x"}]}}, "bad_points"),
        ({"extra": {"3": [{"points": True, "comment": "x"}]}}, "bad_points"),
        ({"extra": {"11": [{"points": 0.1, "comment": "x"}]}}, "bad_seat"),
        ({"extra": {"x": []}}, "bad_seat"),
        ({"auto_bonus_removed": {"4": ""}}, "comment_required"),
        ({"best_move": {"correct": 2, "reason": "x"}}, "no_best_move"),
        ({"team_disqualified": {"team": "town", "reason": "x"}}, "bad_team"),
        ({"team_disqualified": {"team": "mafia"}}, "comment_required"),
        ({"bonus": 1}, "bad_sheet"),
        ([], "bad_sheet"),
    ],
)
def test_a_bad_sheet_is_refused_with_its_reason(document: object, code: str) -> None:
    with pytest.raises(ScoringError) as refused:
        sheet_from_json(document, game("city"), FIIM)
    assert refused.value.code == code
    assert refused.value.message
