"""The day vote, rule by rule (seed 000 classic, seed 004 online, fiim)."""

from __future__ import annotations

import pytest

from plugin.rules import IllegalAction, InvalidAction
from plugin.rules import events as ev
from plugin.rules.effects import OpenDialog, SetSpeakers, StartTimer
from plugin.rules.state import Phase

from .driver import Driver


def finish(d: Driver) -> dict:
    d.until(lambda s: s.over)
    return d.result()


def test_plurality_leaves_with_last_word() -> None:
    d = Driver.vote("classic", nominations=[3, 7])
    d.until_round()
    d.votes((1, 3), (2, 3), (4, 3))
    d.until(lambda s: s.vote.round.window == 1)
    d.votes((3, 7))
    result = finish(d)
    assert result["outcome"] == "eliminated" and result["eliminated"] == [3]
    assert result["speeches"] == [{"player": 3, "kind": "last_word", "seconds": 30}]
    assert result["rounds"][0]["tally"] == {"3": 3, "7": 1}


def test_sequential_window_refuses_closed_and_future_candidates() -> None:
    d = Driver.vote("classic", nominations=[3, 7])
    d.until_round()
    with pytest.raises(IllegalAction) as future:
        d.send(ev.CastVote(voter=1, candidate=7))
    assert future.value.reason == "not_open"
    d.tick()  # the window of 3 closes ("Спасибо"), the window of 7 opens
    before = d.state
    with pytest.raises(IllegalAction) as closed:
        d.send(ev.CastVote(voter=1, candidate=3))
    assert closed.value.reason == "closed"
    assert d.state is before


@pytest.mark.parametrize(
    ("ballot", "reason"),
    [
        ((3, 3), "self_vote"),
        ((1, 5), "not_candidate"),
        ((99, 3), None),  # malformed: InvalidAction
    ],
)
def test_refused_ballot_changes_nothing(ballot: tuple[int, int], reason: str | None) -> None:
    d = Driver.vote("online", nominations=[3, 7])
    d.until_round()
    before = d.state
    error = InvalidAction if reason is None else IllegalAction
    with pytest.raises(error) as refused:
        d.send(ev.CastVote(voter=ballot[0], candidate=ballot[1]))
    if reason:
        assert refused.value.reason == reason
    assert d.state == before


def test_duplicate_keeps_the_first_ballot() -> None:
    d = Driver.vote("online", nominations=[3, 7])
    d.until_round()
    d.votes((1, 3))
    with pytest.raises(IllegalAction) as dup:
        d.send(ev.CastVote(voter=1, candidate=7))
    assert dup.value.reason == "duplicate"
    assert d.state.tally == {3: 1, 7: 0}


def test_tied_top_is_visible_while_the_vote_is_open() -> None:
    # Seed 004: the tied candidates are outlined in yellow before the vote ends.
    d = Driver.vote("online", nominations=[1, 2, 3])
    d.until_round()
    d.votes((4, 1), (5, 2))
    assert d.state.tied_top == (1, 2)
    d.votes((6, 1))
    assert d.state.tied_top == ()


def test_classic_revote_excludes_the_tied_and_lift_passes() -> None:
    d = Driver.vote("classic", nominations=[4, 9])
    d.until_round()
    d.votes((1, 4), (2, 4))
    d.until(lambda s: s.vote.round.window == 1)
    d.votes((3, 9), (5, 9))
    d.until(lambda s: s.vote.round is not None and s.vote.round.kind == "revote")
    assert 4 not in d.state.vote.round.voters and 9 not in d.state.vote.round.voters
    d.votes((1, 4))
    d.until(lambda s: s.vote.round.window == 1)
    d.votes((2, 9))
    d.until(lambda s: s.vote.round is not None and s.vote.round.kind == "lift")
    for voter in (1, 2, 3, 5, 6):
        d.send(ev.CastLift(voter=voter, leave=True))
    d.send(ev.CastLift(voter=7, leave=False))
    result = finish(d)
    assert result["eliminated"] == [4, 9]
    assert [s["kind"] for s in result["speeches"]] == [
        "defense",
        "defense",
        "last_word",
        "last_word",
    ]


@pytest.mark.parametrize(("yes", "no", "passes"), [(3, 3, False), (0, 0, False), (2, 1, True)])
def test_classic_lift_needs_more_for_than_against(yes: int, no: int, passes: bool) -> None:
    d = Driver.vote("classic", nominations=[1, 2])
    d.until_round()
    d.votes((3, 1))
    d.until(lambda s: s.vote.round.window == 1)
    d.votes((4, 2))
    d.until(lambda s: s.vote.round is not None and s.vote.round.kind == "revote")
    d.votes((3, 1))
    d.until(lambda s: s.vote.round.window == 1)
    d.votes((4, 2))
    d.until(lambda s: s.vote.round is not None and s.vote.round.kind == "lift")
    voters = iter(range(3, 11))
    for _ in range(yes):
        d.send(ev.CastLift(voter=next(voters), leave=True))
    for _ in range(no):
        d.send(ev.CastLift(voter=next(voters), leave=False))
    result = finish(d)
    assert result["eliminated"] == ([1, 2] if passes else [])
    assert ("lift.stay" in d.said()) is not passes


def test_online_second_tie_means_nobody_leaves() -> None:
    d = Driver.vote("online", nominations=[3, 7])
    d.until_round()
    d.votes((1, 3), (2, 7))
    d.until(lambda s: s.vote.round is not None and s.vote.round.kind == "revote")
    assert d.state.vote.round.voters == frozenset(range(1, 11))  # the tied vote too
    d.votes((1, 3), (2, 7))
    result = finish(d)
    assert result["outcome"] == "nobody"
    assert d.said().index("tie.again") < d.said().index("night")


def test_online_manual_dialog_refuses_what_it_does_not_offer() -> None:
    d = Driver.vote("online", nominations=[3, 7], manual=True)
    d.until_round()
    d.votes((1, 3), (2, 7))
    d.tick()
    assert d.state.phase is Phase.DIALOG and d.state.timer is None
    opened = [e for e in d.effects if isinstance(e, OpenDialog)]
    assert opened[-1].options == ("speeches", "revote") and opened[-1].default == "speeches"
    before = d.state
    with pytest.raises(IllegalAction) as refused:
        d.send(ev.HostChoice(choice="end"))
    assert refused.value.reason == "not_offered" and d.state is before
    d.send(ev.HostChoice(choice="close"))  # the default: the candidates speak again
    assert d.state.phase is Phase.DEFENSE and d.state.speakers == {3}
    d.tick()
    d.tick()
    assert d.state.phase is Phase.AWAIT_REVOTE and d.state.timer is None
    d.send(ev.HostChoice(choice="start_revote"))
    assert d.state.vote.round.kind == "revote"


def test_handing_control_back_takes_the_automatic_path() -> None:
    d = Driver.vote("online", nominations=[3, 7], manual=True)
    d.until_round()
    d.votes((1, 3), (2, 7))
    d.tick()
    assert d.state.phase is Phase.DIALOG
    d.send(ev.SetManual(on=False))
    assert d.state.phase is Phase.DEFENSE and d.state.dialog is None


def test_stale_timer_is_refused() -> None:
    d = Driver.vote("online", nominations=[3, 7])
    old = d.state.timer.id
    d.tick()
    with pytest.raises(IllegalAction) as stale:
        d.send(ev.TimerExpired(timer=old))
    assert stale.value.reason == "stale_timer"


def test_speakers_follow_the_speeches() -> None:
    d = Driver.vote("classic", nominations=[1, 2])
    d.until_round()
    d.votes((3, 1))
    d.until(lambda s: s.vote.round.window == 1)
    d.votes((4, 2))
    d.until(lambda s: s.phase is Phase.DEFENSE)
    assert d.state.speakers == {1}
    d.send(ev.PassSpeech(seat=1))
    assert d.state.speakers == {2}
    with pytest.raises(IllegalAction):
        d.send(ev.PassSpeech(seat=1))
    timers = [e for e in d.effects if isinstance(e, StartTimer) and e.purpose == "defense"]
    assert timers[-1].warn_at == 10
    assert any(isinstance(e, SetSpeakers) and e.seats == {2} for e in d.effects)


def test_fiim_ballots_not_cast_go_to_the_last_candidate() -> None:
    d = Driver.vote("fiim", nominations=[3, 7], day=2)
    d.until_round()
    with pytest.raises(IllegalAction) as abstain:
        d.send(ev.CastVote(voter=1, candidate=None))
    assert abstain.value.reason == "no_abstention"
    d.votes((1, 3), (2, 3))
    result = finish(d)
    assert result["rounds"][0]["tally"] == {"3": 2, "7": 8}
    assert result["eliminated"] == [7]


@pytest.mark.parametrize(("day", "outcome"), [(1, "withdrawn"), (2, "eliminated")])
def test_fiim_single_candidate(day: int, outcome: str) -> None:
    # mafiaratings 7.16: day 1 one candidate is not voted; later days he is.
    d = Driver.vote("fiim", nominations=[5], day=day)
    result = finish(d)
    assert result["outcome"] == outcome


def test_fiim_narrower_tie_revotes_again_then_same_tie_lifts() -> None:
    # mafiaratings 7.18: a tie with fewer candidates than before → another revote;
    # the same tie twice in a row → the lift question (7.17).
    d = Driver.vote("fiim", players=9, nominations=[1, 2, 3], day=2)
    d.ballots((4, 1), (5, 1), (6, 1), (7, 2), (8, 2), (9, 2))  # 1, 2, 3 go to 3: 3/3/3
    assert d.state.vote.rounds[-1]["tally"] == {"1": 3, "2": 3, "3": 3}
    d.ballots((4, 1), (5, 1), (6, 1), (7, 1), (8, 2), (9, 2), (1, 2), (3, 2))  # 2 goes to 3
    assert d.state.vote.rounds[-1]["tally"] == {"1": 4, "2": 4, "3": 1}
    d.until_round()
    assert d.state.vote.round.kind == "revote" and d.state.vote.round.candidates == (1, 2)
    assert [s["player"] for s in d.state.vote.speeches] == [1, 2, 3, 1, 2]
    d.ballots((4, 1), (5, 1), (6, 1), (7, 1), (3, 2))  # 8, 9, 1, 2 go to 2 (the last): 4/5
    assert d.state.vote.rounds[-1]["tally"] == {"1": 4, "2": 5}
    result = finish(d)
    assert result["eliminated"] == [2]


@pytest.mark.parametrize(("yes", "passes"), [(5, False), (6, True)])
def test_fiim_repeated_identical_tie_goes_to_lift_by_half_the_table(yes: int, passes: bool) -> None:
    d = Driver.vote("fiim", nominations=[1, 2], day=2)
    for _ in range(2):  # 2..6 for 1; 1 and 7..10 do not vote and go to 2 (the last): 5/5
        d.ballots((2, 1), (3, 1), (4, 1), (5, 1), (6, 1))
    assert d.state.vote.round.kind == "lift"
    assert d.state.vote.round.voters == frozenset(range(1, 11))
    for voter in range(1, yes + 1):
        d.send(ev.CastLift(voter=voter, leave=True))
    result = finish(d)
    assert result["eliminated"] == ([1, 2] if passes else [])


def test_candidate_leaving_before_the_vote_cancels_it() -> None:
    d = Driver.vote("classic", nominations=[2, 6])
    d.send(ev.PlayerLeft(seat=6))
    result = finish(d)
    assert result["outcome"] == "cancelled"
    assert "vote.start" not in d.said()


def test_dialog_after_a_timer_stops_the_timer_bug() -> None:
    """Bug: when the vote's timer ran out into the live host's dialog, the state had no
    timer but no StopTimer effect told the host so."""
    from plugin.rules.effects import StopTimer

    d = Driver.vote("online", nominations=[3, 7], manual=True)
    d.until_round()
    d.votes((1, 3), (2, 7))
    effects = d.tick()
    assert d.state.phase is Phase.DIALOG and d.state.timer is None
    assert any(isinstance(e, StopTimer) for e in effects)


# ---- issue 18: speeches of candidates who left, the live host under classic rules ----------


def test_a_tied_candidate_who_leaves_during_another_defense_gets_no_speech_auto() -> None:
    d = Driver.vote("classic", nominations=[3, 7, 9])
    d.ballots((1, 3), (2, 7), (4, 9))
    assert d.state.phase is Phase.DEFENSE and d.state.speaker == 3
    d.send(ev.PlayerLeft(seat=9))
    d.tick()
    assert d.state.speaker == 7
    d.tick()
    assert d.state.phase is Phase.VOTING and d.state.vote.round.kind == "revote"
    assert [s["player"] for s in d.state.vote.speeches] == [3, 7]
    assert d.state.vote.round.candidates == (3, 7, 9)  # he stays on the ballot


def test_a_candidate_who_leaves_during_the_dialog_gets_no_speech_manual() -> None:
    d = Driver.vote("online", nominations=[3, 7], manual=True)
    d.until_round()
    d.votes((1, 3), (2, 7))
    d.tick()
    assert d.state.phase is Phase.DIALOG
    d.send(ev.PlayerLeft(seat=3))
    d.send(ev.HostChoice(choice="speeches"))
    assert d.state.phase is Phase.DEFENSE and d.state.speaker == 7
    d.tick()
    assert d.state.phase is Phase.AWAIT_REVOTE
    assert [s["player"] for s in d.state.vote.speeches] == [7]


def test_classic_live_host_starts_the_revote_and_refusals_say_why() -> None:
    d = Driver.vote("classic", nominations=[3, 7], manual=True)
    d.ballots((1, 3), (2, 7))
    assert d.state.phase is Phase.DEFENSE and d.state.dialog is None  # no dialog in classic
    before = d.state
    with pytest.raises(IllegalAction) as refused:
        d.send(ev.HostChoice(choice="revote"))
    assert refused.value.reason == "not_now" and d.state is before
    assert refused.value.message.startswith("host in phase defense")
    assert "classic rules fix the tie procedure" in refused.value.message
    assert "start_revote" in refused.value.message
    d.tick()
    d.tick()
    assert d.state.phase is Phase.AWAIT_REVOTE and d.state.timer is None
    with pytest.raises(IllegalAction) as refused:
        d.send(ev.HostChoice(choice="speeches"))
    assert refused.value.reason == "not_offered" and "start_revote" in refused.value.message
    d.send(ev.HostChoice(choice="start_revote"))
    assert d.state.vote.round.kind == "revote" and d.state.vote.round.voters == frozenset(
        {1, 2, 4, 5, 6, 8, 9, 10}
    )


def test_a_host_choice_at_an_auto_table_says_manual_mode_is_off() -> None:
    d = Driver.vote("online", nominations=[3, 7])
    with pytest.raises(IllegalAction) as refused:
        d.send(ev.HostChoice(choice="speeches"))
    assert "manual mode is off" in refused.value.message
