"""The table's one running timer (the engine allows at most one per table).

A countdown knows its engine timer id, the time left, whether it is frozen (the host paused
the game) and the optional warning moment (StartTimer.warn_at: "speech.ten_seconds").
It calls `on_warn(timer_id)` and `on_expire(timer_id)`; the table turns the latter into
TimerExpired(timer=id) and queues it like any other input.
"""

from __future__ import annotations

from collections.abc import Callable

from .ports import Clock, Handle


class Countdown:
    def __init__(
        self,
        clock: Clock,
        *,
        on_expire: Callable[[int], None],
        on_warn: Callable[[int], None],
    ) -> None:
        self._clock = clock
        self._on_expire = on_expire
        self._on_warn = on_warn
        self.timer_id: int | None = None
        self.paused = False
        self._left = 0.0  # seconds left, valid while paused or stopped
        self._deadline = 0.0  # clock time of expiry, valid while running
        self.warn_at = 0.0
        self._warned = False
        self._handles: list[Handle] = []

    # --- what it shows -------------------------------------------------------------

    @property
    def active(self) -> bool:
        """A timer is set (running or frozen)."""
        return self.timer_id is not None

    def remaining(self) -> float | None:
        """Seconds left on the current timer, None when no timer is set."""
        if self.timer_id is None:
            return None
        if self.paused:
            return self._left
        return max(0.0, self._deadline - self._clock.now())

    # --- what the table does with it -------------------------------------------------

    def start(
        self, timer_id: int, seconds: float, *, warn_at: float = 0, paused: bool = False
    ) -> None:
        """Replace the running timer (if any) with `timer_id`, `seconds` long."""
        self._cancel()
        self.timer_id = timer_id
        self.warn_at = warn_at
        # A timer resumed with less than warn_at left has already been warned about.
        self._warned = warn_at <= 0 or seconds <= warn_at
        self.paused = paused
        self._left = max(0.0, seconds)
        if not paused:
            self._arm()

    def stop(self) -> None:
        self._cancel()
        self.timer_id = None
        self._left = 0.0

    def pause(self, paused: bool) -> None:
        """Freeze (True) or unfreeze (False) the timer; the time left is kept exactly."""
        if paused == self.paused:
            return
        if paused:
            self._left = self.remaining() or 0.0
            self._cancel()
            self.paused = True
        else:
            self.paused = False
            if self.timer_id is not None:
                self._arm()

    def add(self, seconds: float) -> None:
        """Give the running timer more time (the host's "+30 s")."""
        if self.timer_id is None:
            return
        left = (self.remaining() or 0.0) + seconds
        if left > self.warn_at > 0:
            self._warned = False  # the speaker is warned again before the new end
        self._left = left
        if not self.paused:
            self._cancel()
            self._arm()

    # --- internals ---------------------------------------------------------------------

    def _arm(self) -> None:
        left = self._left
        self._deadline = self._clock.now() + left
        timer_id = self.timer_id
        assert timer_id is not None
        if not self._warned:
            self._handles.append(
                self._clock.call_later(left - self.warn_at, lambda: self._warn(timer_id))
            )
        self._handles.append(self._clock.call_later(left, lambda: self._expire(timer_id)))

    def _warn(self, timer_id: int) -> None:
        if timer_id == self.timer_id and not self._warned:
            self._warned = True
            self._on_warn(timer_id)

    def _expire(self, timer_id: int) -> None:
        if timer_id == self.timer_id and not self.paused:
            self._handles.clear()
            self._on_expire(timer_id)

    def _cancel(self) -> None:
        for handle in self._handles:
            handle.cancel()
        self._handles.clear()
