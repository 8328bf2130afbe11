"""The standings are a function of the signed games alone: recomputed from the records in any
order of replay they equal the live ones, and a correction followed by its reversal restores
them exactly."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from plugin.scoring import Bonus, Game, Ratings, Seat, Sheet, Standings, load_system, score_game

FIIM = load_system("fiim")
DEAL = ("civilian",) * 6 + ("sheriff", "mafia", "mafia", "don")
POOL = [f"player{n}" for n in range(16)]


@st.composite
def games(draw: st.DrawFn) -> tuple[Game, Sheet]:
    roles = draw(st.permutations(DEAL))
    players = draw(st.permutations(POOL))[:10]
    outs = draw(
        st.lists(
            st.sampled_from([None, "vote", "fouls", "disqualified", "left", "killed"]),
            min_size=10,
            max_size=10,
        )
    )
    nights = draw(st.lists(st.integers(1, 4), min_size=10, max_size=10))
    seats = tuple(
        Seat(
            seat=n + 1,
            player=players[n],
            role=roles[n],
            out=outs[n],
            night=nights[n] if outs[n] == "killed" else None,
            fouls=draw(st.integers(0, 4)),
        )
        for n in range(10)
    )
    first = [s.seat for s in seats if s.killed_first_night]
    best = draw(st.one_of(st.none(), st.integers(0, 3))) if first else None
    game = Game(
        seats=seats,
        winner=draw(st.sampled_from(["city", "mafia", "draw", None])),
        best_move_by=first[0] if best is not None else None,
        best_move_correct=best,
    )
    step = Fraction(1, 20)
    extra = draw(
        st.dictionaries(
            st.integers(1, 10),
            st.lists(
                st.integers(-6, 6).map(lambda k: Bonus(points=k * step, comment="why")),
                max_size=3,
            ).map(tuple),
            max_size=3,
        )
    )
    removed = draw(st.dictionaries(st.integers(1, 10), st.just("worst move"), max_size=2))
    team = draw(st.sampled_from([None, "city", "mafia"]))
    sheet = Sheet(
        extra=extra,
        auto_bonus_removed=removed,
        team_disqualified=team,
        team_reason="collusion" if team else "",
    )
    return game, sheet


def fresh(signed: dict[str, tuple[Game, Sheet]]) -> list[object]:
    standings = Standings(FIIM)
    for game_id in sorted(signed):
        game, sheet = signed[game_id]
        standings.put(game_id, score_game(FIIM, game, sheet))
    return [row.record() | {"exact": row.total} for row in standings.rows()]


@settings(max_examples=60, deadline=None)
@given(st.lists(games(), min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_any_order_of_replay_gives_the_live_standings(
    played: list[tuple[Game, Sheet]], rnd: object
) -> None:
    signed = {f"g{n:03}": pair for n, pair in enumerate(played)}
    order = list(signed)
    rnd.shuffle(order)  # type: ignore[attr-defined]
    live = Standings(FIIM)
    for game_id in order:
        live.put(game_id, score_game(FIIM, *signed[game_id]))
    assert [row.record() | {"exact": row.total} for row in live.rows()] == fresh(signed)


@settings(max_examples=60, deadline=None)
@given(st.lists(games(), min_size=2, max_size=10), games(), st.data())
def test_a_correction_and_its_reversal_restore_the_standings(
    played: list[tuple[Game, Sheet]], other: tuple[Game, Sheet], data: st.DataObject
) -> None:
    signed = {f"g{n:03}": pair for n, pair in enumerate(played)}
    live = Standings(FIIM)
    for game_id, pair in signed.items():
        live.put(game_id, score_game(FIIM, *pair))
    before = [row.record() | {"exact": row.total} for row in live.rows()]
    target = data.draw(st.sampled_from(sorted(signed)))
    corrected = (signed[target][0], other[1])  # the same game, another judge's sheet
    live.put(target, score_game(FIIM, *corrected))
    assert [r.record() | {"exact": r.total} for r in live.rows()] == fresh(
        {**signed, target: corrected}
    )
    live.put(target, score_game(FIIM, *signed[target]))  # the correction reversed
    assert [row.record() | {"exact": row.total} for row in live.rows()] == before


def test_removing_every_game_leaves_nobody() -> None:
    game = Game(
        seats=tuple(Seat(seat=n + 1, player=POOL[n], role=DEAL[n]) for n in range(10)),
        winner="city",
    )
    live = Standings(FIIM)
    live.put("g", score_game(FIIM, game, Sheet()))
    assert len(live.rows()) == 10
    live.remove("g")
    assert live.rows() == [] and "g" not in live


def test_ratings_move_the_winners_up_and_the_losers_down() -> None:
    ratings = Ratings()
    seats = [(POOL[n], DEAL[n]) for n in range(10)]
    ratings.play("g1", seats, "mafia")
    don, civilian = ratings.of(POOL[9]), ratings.of(POOL[0])
    assert don.mu > 25 > civilian.mu
    assert don.sigma < 25 / 3 and civilian.sigma < 25 / 3
    ratings.play("g2", seats, None)  # no result: nothing moves
    assert ratings.of(POOL[9]) == don
    assert [game_id for game_id, _ in ratings.history[POOL[9]]] == ["g1"]


def test_ratings_are_the_same_for_the_same_games_in_the_same_order() -> None:
    seats = [(POOL[n], DEAL[n]) for n in range(10)]
    first, second = Ratings(), Ratings()
    for ratings in (first, second):
        for n, winner in enumerate(["city", "mafia", "draw", "city"]):
            ratings.play(f"g{n}", seats, winner)
    assert [first.of(p) for p in POOL[:10]] == [second.of(p) for p in POOL[:10]]
