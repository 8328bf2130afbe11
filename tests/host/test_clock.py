"""The fake clock fires due callbacks in time order; the countdown freezes, extends, warns."""

from __future__ import annotations

import pytest

from plugin.host.countdown import Countdown
from testing import FakeClock


def test_fake_clock_runs_callbacks_in_time_order_at_their_moment() -> None:
    clock = FakeClock(start=0)
    seen: list[tuple[str, float]] = []
    clock.call_later(2, lambda: seen.append(("b", clock.now())))
    clock.call_later(1, lambda: seen.append(("a", clock.now())))
    clock.call_later(2, lambda: seen.append(("c", clock.now())))
    clock.advance(1.5)
    assert seen == [("a", 1)]
    clock.advance(0.5)
    assert seen == [("a", 1), ("b", 2), ("c", 2)]
    assert clock.now() == 2


def test_cancelled_callback_never_runs_and_time_never_goes_back() -> None:
    clock = FakeClock(start=0)
    seen: list[int] = []
    handle = clock.call_later(1, lambda: seen.append(1))
    handle.cancel()
    clock.advance(5)
    assert seen == []
    with pytest.raises(ValueError):
        clock.advance(-1)


class Recorder:
    def __init__(self) -> None:
        self.expired: list[int] = []
        self.warned: list[int] = []


def make(clock: FakeClock) -> tuple[Countdown, Recorder]:
    seen = Recorder()
    countdown = Countdown(clock, on_expire=seen.expired.append, on_warn=seen.warned.append)
    return countdown, seen


def test_countdown_warns_then_expires() -> None:
    clock = FakeClock(start=0)
    countdown, seen = make(clock)
    countdown.start(7, 30, warn_at=10)
    clock.advance(19)
    assert seen.warned == [] and countdown.remaining() == 11
    clock.advance(1)
    assert seen.warned == [7]
    clock.advance(9.5)
    assert seen.expired == []
    clock.advance(0.5)
    assert seen.expired == [7] and countdown.remaining() == 0


def test_paused_countdown_keeps_its_time_and_never_fires() -> None:
    clock = FakeClock(start=0)
    countdown, seen = make(clock)
    countdown.start(1, 30)
    clock.advance(12)
    countdown.pause(True)
    clock.advance(100)
    assert seen.expired == [] and countdown.remaining() == 18
    countdown.pause(False)
    clock.advance(17.9)
    assert seen.expired == []
    clock.advance(0.1)
    assert seen.expired == [1]


def test_added_time_moves_the_end_and_warns_again() -> None:
    clock = FakeClock(start=0)
    countdown, seen = make(clock)
    countdown.start(3, 20, warn_at=10)
    clock.advance(15)
    assert seen.warned == [3]
    countdown.add(30)
    assert countdown.remaining() == 35
    clock.advance(25)
    assert seen.warned == [3, 3] and seen.expired == []
    clock.advance(10)
    assert seen.expired == [3]


def test_a_replaced_timer_never_fires() -> None:
    clock = FakeClock(start=0)
    countdown, seen = make(clock)
    countdown.start(1, 10, warn_at=5)
    countdown.start(2, 20)
    clock.advance(30)
    assert seen.expired == [2] and seen.warned == []


def test_timer_resumed_below_its_warning_is_not_warned_again() -> None:
    clock = FakeClock(start=0)
    countdown, seen = make(clock)
    countdown.start(4, 8, warn_at=10)  # restart with 8 s left of a 60 s speech
    clock.advance(8)
    assert seen.warned == [] and seen.expired == [4]


def test_stopped_countdown_shows_no_time() -> None:
    clock = FakeClock(start=0)
    countdown, seen = make(clock)
    countdown.start(1, 10)
    countdown.stop()
    assert countdown.remaining() is None and not countdown.active
    clock.advance(20)
    assert seen.expired == []
