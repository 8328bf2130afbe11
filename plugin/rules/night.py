"""The night: night zero's meetings, then each night's shot, the don's check and the
sheriff's check.

Rules implemented here:
- mafiaratings 5.1-5.3 (night zero): the black team's minute, the don's and the sheriff's
  meeting with the host; no shot and no check (GAME.md: only leave, foul and until).
- GAME.md «Night n»: the shot, then the don's check, then the sheriff's check. The kill
  lands only if every black player in the game shot, all at the same seat, and that seat
  is in the game; otherwise the mafia missed (mafiaratings 8.5, 8.7). Every shot a black
  player sent counts (the same seat twice still kills, a second, different seat misses);
  with `repeated_shot_misses` (fiim, 8.7: «shoots more than once») any repeated shot misses.
- A player killed is out at once, so a sheriff shot that night makes no check; a dead
  don's or sheriff's check still takes its time but accepts nothing (GAME.md); one check
  each per night (8.15).
"""

from __future__ import annotations

from . import day, guards, removals
from . import events as ev
from .effects import PrivateResult
from .modes import LeaveReason
from .state import NightRecord, Phase, check_seat
from .step import Step, tonight


def after_black_meeting(st: Step) -> None:
    st.say("night.black_sleep")
    st.s.phase = Phase.DON_MEETING
    st.say("night.don_meeting")
    st.timer(st.rules.don_meeting_seconds, "don_meeting")


def after_don_meeting(st: Step) -> None:
    st.s.phase = Phase.SHERIFF_MEETING
    st.say("night.sheriff_meeting")
    st.timer(st.rules.sheriff_meeting_seconds, "sheriff_meeting")


def after_sheriff_meeting(st: Step) -> None:
    st.s.phase = Phase.FREE_SEATING
    st.say("night.free_seating")
    st.timer(st.rules.free_seating_seconds, "free_seating")


def begin_night(st: Step) -> None:
    s = st.s
    s.night = s.day
    s.period = 2 * s.night
    s.nights += (NightRecord(night=s.night),)
    s.vote = None
    st.silence()
    st.say("night")
    s.phase = Phase.SHOT
    st.say("night.shot")
    st.timer(st.rules.night_action_seconds, "shot")


def on_shoot(st: Step, event: ev.Shoot) -> None:
    s = st.s
    by = check_seat(s, event.by, "shooter")
    target = check_seat(s, event.target, "target")
    refusal = guards.shot(s, by)
    if refusal is not None:
        raise refusal
    # A second shot is recorded, not refused: after_shot decides what it does.
    tonight(s, shots=(*s.nights[-1].shots, (by, target)))


def after_shot(st: Step) -> None:
    s = st.s
    night = s.nights[-1]
    black = s.alive & s.black_seats
    shooters = {by for by, _ in night.shots if by in black}
    targets = {target for by, target in night.shots if by in black}
    repeated = len({by for by, _ in night.shots}) != len(night.shots)
    killed = None
    missed = repeated and st.rules.repeated_shot_misses
    if black and shooters == black and len(targets) == 1 and not missed:
        target = targets.pop()
        if target in s.alive:
            killed = target
    if killed is not None:
        tonight(s, killed=killed)
        s.victim = killed
        if s.first_killed is None:
            s.first_killed = killed
        removals.leave(st, (killed,), LeaveReason.KILLED)
        if s.outcome is not None:
            return
    s.phase = Phase.DON_CHECK
    st.say("night.don_check")
    st.timer(st.rules.night_action_seconds, "don_check")


def _checked(st: Step, role: str, target_seat: int) -> tuple[int, int]:
    s = st.s
    target = check_seat(s, target_seat, "target")
    refusal = guards.check(s, role)
    if refusal is not None:
        raise refusal
    checker = s.seat_of(role)
    assert checker is not None
    return checker, target


def on_don_check(st: Step, event: ev.DonCheck) -> None:
    s = st.s
    don, target = _checked(st, "don", event.target)
    found = s.role(target) == "sheriff"
    tonight(s, don_check=(target, found))
    s.checks += ((don, "don_check", target, found),)
    st.effects.append(PrivateResult(seat=don, kind="don_check", target=target, result=found))


def on_sheriff_check(st: Step, event: ev.SheriffCheck) -> None:
    s = st.s
    sheriff, target = _checked(st, "sheriff", event.target)
    black = s.is_black(target)
    tonight(s, sheriff_check=(target, black))
    s.checks += ((sheriff, "sheriff_check", target, black),)
    st.effects.append(
        PrivateResult(seat=sheriff, kind="sheriff_check", target=target, result=black)
    )


def after_don_check(st: Step) -> None:
    st.s.phase = Phase.SHERIFF_CHECK
    st.say("night.sheriff_check")
    st.timer(st.rules.night_action_seconds, "sheriff_check")


def after_sheriff_check(st: Step) -> None:
    day.begin_day(st)
