"""A new speaker's countdown starts when his audio reaches the listeners: no word of his is
lost (issue 30).

In a LiveKit room the server unpublishes a speaker's microphone when his turn ends (the
hard enforcement), so each turn is a fresh track that every listener must subscribe to: he
is heard about 0.45 s after his grant (median; 0.57 s max, bench/livekit_new_speaker.py),
LiveKit's own floor. A speaker who started talking when his countdown started lost his
first word. So the countdown waits for his audio:

- His microphone opens at the start of the announcement of his turn, as before: the
  engine's SetSpeakers comes before its Announce (plugin.rules.step.speech) and the old
  speaker is revoked in the same update, first (never two microphones open beyond what
  the rules allow). The rules we follow do not forbid the next speaker's microphone being
  open while the host calls him: the seeds have the host announce each phase and give
  each speaker his time ("по черзі отримує додаткову промову", ../shared/seeds/004), and
  the time is what we protect here.
- `granted(speakers)` whenever the room is told who may speak: the seats that start speaking
  now are awaited (a seat no longer a speaker is not). `resumed(speakers)` at a table's
  start: the speakers of a replayed log are the restart's to wait for (audio_wait.py).
- `heard(seat)` when the room reports that seat's audio flowing (the bot received his first
  frame: plugin.rooms.livekit.first_audio).
- `timer_started(present)` right after a timer starts: the countdown is held, frozen with its
  whole time, until every awaited seat that is in the room is heard, at most
  FIRST_WORD_SECONDS. A seat not in the room is not waited for (nothing of his can flow), nor
  a seat heard already.
- The hold is the restart's (audio_wait.AudioWait): pages see the clock `held`, the host's
  pause and a new timer work as there.
- Only a room that reports audio (ports.HearsSpeakers) is waited for: the embedded room
  forwards a granted speaker's packets at once, so its countdowns start as the engine says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .audio_wait import AudioWait
from .ports import Clock

# The longest a new speaker's countdown waits for his audio: the floor's max is 0.57 s
# (bench/livekit_new_speaker.py); a page whose microphone never publishes (refused by its
# browser, a dead device) costs the table this much at each of his turns, no more.
FIRST_WORD_SECONDS = 2.0


class FirstWord:
    """Holds a new speaker's countdown until his audio flows; see the module docstring."""

    def __init__(
        self,
        clock: Clock,
        *,
        on_change: Callable[[], None],
        on_deadline: Callable[[], None],
        enabled: bool,
    ) -> None:
        self.enabled = enabled
        self.wait = AudioWait(
            clock, on_change=on_change, on_deadline=on_deadline, seconds=FIRST_WORD_SECONDS
        )
        self._awaited: frozenset[int] = frozenset()  # granted, not heard yet
        self._speakers: frozenset[int] = frozenset()
        self.holds = 0  # countdowns held (tests, benches)

    @property
    def held(self) -> bool:
        return self.wait.held

    def granted(self, speakers: Iterable[int]) -> None:
        now = frozenset(speakers)
        if self.enabled:
            self._awaited = (self._awaited & now) | (now - self._speakers)
        self._speakers = now

    def resumed(self, speakers: Iterable[int]) -> None:
        self._speakers, self._awaited = frozenset(speakers), frozenset()

    def heard(self, seat: int) -> None:
        self._awaited -= {seat}
        self.wait.arrived(seat)

    def timer_started(self, present: Iterable[int]) -> None:
        """A timer just started: hold it while an awaited speaker in the room is not heard."""
        waiting = self._awaited & frozenset(present)
        if waiting:
            self.holds += 1
            self.wait.begin(waiting, ())

    def end(self) -> None:
        self.wait.end()
