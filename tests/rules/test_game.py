"""The whole game, replayed event by event with assertions after each step."""

from __future__ import annotations

from collections import Counter

import pytest

from plugin.rules import IllegalAction, InvalidAction, load_preset, new_game
from plugin.rules import events as ev
from plugin.rules.effects import GameOver, PlayersOut, PrivateResult
from plugin.rules.roles import DISTRIBUTION, deal_roles
from plugin.rules.state import Phase

from .driver import Driver

ROLES = {2: "don", 5: "mafia", 8: "mafia", 9: "sheriff"}


def to_day(d: Driver, day: int) -> None:
    d.until(lambda s: s.day == day and s.phase is Phase.SPEECH)


def to_night_shot(d: Driver) -> None:
    d.until_phase(Phase.SHOT)


def test_night_zero_is_silent_and_refuses_day_actions() -> None:
    d = Driver.game()
    assert d.state.phase is Phase.BLACK_MEETING and d.state.speakers == frozenset()
    with pytest.raises(IllegalAction):
        d.send(ev.Nominate(by=1, target=2))
    with pytest.raises(IllegalAction):
        d.send(ev.Shoot(by=2, target=3))
    d.send(ev.Foul(seat=4))  # fouls are given at any moment
    assert d.state.fouls[3] == 1
    assert d.said()[:2] == ["night", "night.black_meeting"]
    to_day(d, 1)
    assert d.state.speaker == 1 and d.state.speakers == {1}


def test_day_one_speeches_nominations_and_the_vote() -> None:
    d = Driver.game()
    to_day(d, 1)
    d.send(ev.Nominate(by=1, target=2))
    with pytest.raises(IllegalAction) as again:
        d.send(ev.Nominate(by=1, target=3))
    assert again.value.reason == "already_nominated_today"
    with pytest.raises(IllegalAction) as other:
        d.send(ev.Nominate(by=3, target=4))
    assert other.value.reason == "not_your_speech"
    d.send(ev.PassSpeech(seat=1))
    assert d.state.speaker == 2
    with pytest.raises(IllegalAction) as taken:
        d.send(ev.Nominate(by=2, target=2))
    assert taken.value.reason == "already_nominated"
    d.send(ev.Nominate(by=2, target=5))
    d.until_round()
    assert d.state.days[0].speakers == tuple(range(1, 11))
    assert d.state.candidates == (2, 5)


def test_kill_lands_only_when_every_black_player_shoots_the_same_seat() -> None:
    d = Driver.game()
    to_night_shot(d)
    d.send(ev.Shoot(by=2, target=4))
    d.send(ev.Shoot(by=5, target=4))
    with pytest.raises(IllegalAction) as not_black:
        d.send(ev.Shoot(by=1, target=4))
    assert not_black.value.reason == "not_black"
    d.tick()  # 8 did not shoot: a miss
    assert d.state.nights[0].killed is None and 4 in d.state.alive
    to_day(d, 2)
    assert "morning.miss" in d.said()


def test_kill_checks_and_best_move() -> None:
    d = Driver.game()
    to_night_shot(d)
    for black in (2, 5, 8):
        d.send(ev.Shoot(by=black, target=1))
    d.tick()
    assert 1 not in d.state.alive
    assert any(isinstance(e, PlayersOut) and e.seats == (1,) for e in d.effects)
    d.send(ev.DonCheck(target=9))
    with pytest.raises(IllegalAction):
        d.send(ev.DonCheck(target=3))  # one check a night
    d.tick()
    d.send(ev.SheriffCheck(target=5))
    private = [e for e in d.effects if isinstance(e, PrivateResult)]
    assert private == [
        PrivateResult(seat=2, kind="don_check", target=9, result=True),
        PrivateResult(seat=9, kind="sheriff_check", target=5, result=True),
    ]
    d.tick()
    assert d.state.phase is Phase.MORNING_LAST_WORD and d.state.speakers == {1}
    d.send(ev.BestMove(by=1, seats=(5, 8, 3)))
    assert d.state.best_move == (1, (5, 8, 3), 2)
    with pytest.raises(IllegalAction):
        d.send(ev.BestMove(by=1, seats=(2, 3, 4)))
    d.tick()
    assert d.state.days[1].opener == 2  # seat 1 opened day 1; seat 2 opens day 2


def test_sheriff_killed_makes_no_check_but_the_step_still_takes_its_time() -> None:
    d = Driver.game()
    to_night_shot(d)
    for black in (2, 5, 8):
        d.send(ev.Shoot(by=black, target=9))
    d.tick()
    d.tick()  # the don's check
    assert d.state.phase is Phase.SHERIFF_CHECK and d.state.timer is not None
    with pytest.raises(IllegalAction) as dead:
        d.send(ev.SheriffCheck(target=2))
    assert dead.value.reason == "not_in_game"


def test_third_foul_skips_the_next_speech_and_fourth_removes() -> None:
    d = Driver.game()
    for _ in range(3):
        d.send(ev.Foul(seat=3))
    to_day(d, 1)
    d.until(lambda s: s.phase is not Phase.SPEECH)
    assert 3 not in d.state.days[0].speakers
    assert "speech.skipped" in d.said()
    d.send(ev.Foul(seat=3))
    assert 3 not in d.state.alive and d.state.removed == (3,)


def test_third_foul_during_own_speech_lets_it_go_on() -> None:
    d = Driver.game()
    to_day(d, 1)
    d.until(lambda s: s.speaker == 4)
    for _ in range(3):
        d.send(ev.Foul(seat=4))
    assert d.state.speaker == 4 and d.state.phase is Phase.SPEECH
    to_day(d, 2)
    d.until(lambda s: s.phase is not Phase.SPEECH)
    assert 4 not in d.state.days[1].speakers and 4 in d.state.days[0].speakers


def test_removing_the_speaker_ends_his_speech() -> None:
    d = Driver.game()
    to_day(d, 1)
    d.send(ev.Disqualify(seat=1))
    assert d.state.speaker == 2 and 1 not in d.state.alive


def test_removed_nominee_cancels_the_vote() -> None:
    d = Driver.game()
    to_day(d, 1)
    d.send(ev.Nominate(by=1, target=3))
    d.send(ev.PassSpeech(seat=1))
    d.send(ev.Nominate(by=2, target=4))
    for _ in range(4):
        d.send(ev.Foul(seat=3))
    d.until(lambda s: s.phase is Phase.SHOT)
    assert d.state.days[0].vote["outcome"] == "cancelled"


def test_city_wins_when_the_last_black_player_leaves() -> None:
    d = Driver.game()
    to_day(d, 1)
    for seat in (2, 5):
        d.send(ev.PlayerLeft(seat=seat))
    assert not d.state.over
    d.send(ev.Disqualify(seat=8))
    assert d.state.over and d.state.winner == "city"
    assert isinstance(d.effects[-1], GameOver) and d.state.speakers == frozenset()
    with pytest.raises(IllegalAction):
        d.send(ev.Foul(seat=1))


def test_mafia_wins_when_black_equals_red() -> None:
    d = Driver.game()
    to_day(d, 1)
    for seat in (1, 3, 4):
        d.send(ev.PlayerLeft(seat=seat))
    assert d.state.winner is None  # black 2, 5, 8 against red 6, 7, 9, 10
    d.send(ev.PlayerLeft(seat=6))
    assert d.state.over and d.state.winner == "mafia"


def test_draw_after_three_quiet_rounds() -> None:
    d = Driver.game()
    d.until(lambda s: s.over, limit=2000)
    assert d.state.winner == "draw" and d.state.day == 4
    assert len(d.state.nights) == 3


def test_final_minute_before_the_result() -> None:
    d = Driver.game(settings={"final_minute_seconds": 60})
    to_day(d, 1)
    for seat in (2, 5, 8):
        d.send(ev.PlayerLeft(seat=seat))
    assert d.state.winner == "city" and not d.state.over
    assert d.state.phase is Phase.FINAL_MINUTE and d.state.speakers == d.state.alive
    d.tick()
    assert d.state.over


@pytest.mark.parametrize("players", sorted(DISTRIBUTION))
def test_dealt_roles_fit_the_table(players: int) -> None:
    don, mafia, sheriff = DISTRIBUTION[players]
    for seed in range(20):
        counts = Counter(deal_roles(players, seed))
        assert (counts["don"], counts["mafia"], counts["sheriff"]) == (don, mafia, sheriff)
    assert deal_roles(players, 7) == deal_roles(players, 7)


def test_assigned_roles_must_fit() -> None:
    with pytest.raises(InvalidAction) as wrong:
        new_game(load_preset("classic"), roles={1: "don", 2: "don", 3: "mafia", 4: "sheriff"})
    assert wrong.value.reason == "bad_roles"
    with pytest.raises(InvalidAction):
        new_game(load_preset("classic"), players=13)


def test_views_offer_the_best_move_to_the_first_victim_bug() -> None:
    """Bug: the seat view returned no action for a seat out of the game, so the first night's
    victim (always out) was never offered his best move."""
    from plugin.rules.views import seat_view

    d = Driver.game()
    to_night_shot(d)
    for black in (2, 5, 8):
        d.send(ev.Shoot(by=black, target=1))
    d.until_phase(Phase.MORNING_LAST_WORD)
    assert seat_view(d.state, 1)["me"]["action"] == "best_move"
    assert seat_view(d.state, 3)["me"]["action"] is None
    d.send(ev.BestMove(by=1, seats=(2, 5, 8)))
    assert seat_view(d.state, 1)["me"]["action"] is None
