"""A table's voice: announcements in, 20 ms frames of 48 kHz mono PCM out, in real time.

Theory of operation. One clock task per table ticks every 20 ms (deadlines computed from
its start, so it does not drift) and makes exactly one frame per tick: the next 960
samples of the phrase being spoken, or silence. It pushes that frame to every listener
(`pcm_frames()`, `track()`) and, when anyone listens to Opus, encodes it once and pushes
the same packet to every `opus_track()`. Listeners never block the clock (voice.listeners).

`announce()` renders the phrase from cached chunks at once when it can (after
`prerender`), so the phrase starts on the next tick: at most one frame after the call.
An uncached phrase is synthesised on the voice worker meanwhile; the queue keeps its
place, so phrases are always spoken in the order they were announced. An urgent phrase
goes ahead of the queued ones and cuts the current phrase short at the next tick; the
queued ones follow it.

With a voice pack (voice.pack), each fragment the pack has is said from its recording and
only the rest is synthesised (voice.speech); both are cached alike, so the start latency
is the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import av
import numpy as np

from . import engines
from .audio import FRAME_SAMPLES, FRAME_SECONDS, SILENT_FRAME, Spliced
from .listeners import Closed, Listener
from .pack import PackError, VoicePack, find
from .phrases import Catalogue, Fragment
from .rhvoice import RHVoiceMissing
from .speech import Speech
from .synth import Synthesizer, default_synthesizer
from .tracks import OpusTrack, PcmTrack, SharedOpusEncoder

log = logging.getLogger(__name__)

RESYNC_FRAMES = 10  # behind by more than this (a stalled loop): skip ahead, do not burst
# After this much silence with nothing queued the clock rests (an idle table costs no CPU)
# until the next announcement or listener wakes it; frame indexes carry on from there.
IDLE_FRAMES = 250  # 5 s


class Lateness:
    """The clocks that fell behind, said in one line at most every `every` seconds for the
    whole process: a stalled loop stalls every table's clock at once, and a server with 50
    speaking tables would otherwise log 50 lines for each stall."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.lines = 0  # lines logged (tests)
        self._last: float | None = None
        self._count = 0
        self._worst_ms = 0.0

    def report(self, behind_ms: float, now: float) -> None:
        self._count += 1
        self._worst_ms = max(self._worst_ms, behind_ms)
        if self._last is not None and now - self._last < self.every:
            return
        if self._count == 1:
            log.warning("announcer clock fell %.0f ms behind; resyncing", behind_ms)
        else:
            log.warning(
                "announcer clocks fell behind %d times in %.0f s, up to %.0f ms; resyncing",
                self._count, now - self._last if self._last is not None else 0.0,
                self._worst_ms,
            )  # fmt: skip
        self.lines += 1
        self._last, self._count, self._worst_ms = now, 0, 0.0


LATENESS = Lateness()


@dataclass(eq=False, slots=True)
class _Phrase:
    key: str
    urgent: bool
    pcm: Spliced | None = None  # None while it is being synthesised
    failed: bool = False
    position: int = 0
    first_frame: int = field(default=-1)  # the clock index its first frame went out on


class Announcer:
    """The Voice of one table (plugin.host.ports.Voice), in one language.

    `enabled=False` keeps the tracks (silent) but says nothing. `synthesizer` defaults to
    the process-wide one; tests pass their own with a temporary cache. With `seats`, the
    table's phrases are prerendered in the background as soon as the clock starts.

    `idle_frames`: the silent frames after which the clock rests (IDLE_FRAMES; a LiveKit
    bot, which sends no silence, needs only the end of a phrase).

    `pack` is a VoicePack, or the name of one in the packs directory (voice.pack.find). A
    named pack that cannot be used (gone, or recorded in another language) is logged and
    the table speaks with synthesis: a table replayed from the log must still open.

    `engine` ("auto", "rhvoice", "espeak"; None: the server's) and `voice` (an RHVoice
    voice; None: the server's or the catalogue's) choose the synthesis (voice.engines); a
    choice that cannot be honoured any more is logged and the default voice speaks.
    """

    def __init__(
        self,
        lang: str = "ru",
        *,
        enabled: bool = True,
        synthesizer: Synthesizer | None = None,
        catalogue: Catalogue | None = None,
        seats: Iterable[int] | None = None,
        pack: VoicePack | str | None = None,
        idle_frames: int = IDLE_FRAMES,
        engine: str | None = None,
        voice: str | None = None,
    ) -> None:
        self.lang = lang
        self.idle_frames = idle_frames
        self.enabled = enabled
        if catalogue is None:
            catalogue = Catalogue.load(lang)
            if enabled:
                catalogue = _table_voice(catalogue, engine, voice)
        self.catalogue = catalogue
        self._synth = synthesizer
        if isinstance(pack, str):
            pack = _table_pack(pack, lang) if enabled else None
        self.pack = pack
        if self.pack is not None and self.pack.lang != lang:
            raise PackError(f"voice pack {self.pack.path} is in {self.pack.lang!r}, not {lang!r}")
        self._speech: Speech | None = None
        self._queue: deque[_Phrase] = deque()
        self._current: _Phrase | None = None
        self._cut = False
        self._pcm_listeners: set[Listener[np.ndarray]] = set()
        self._opus_listeners: set[Listener[av.Packet[Any]]] = set()
        self._opus: SharedOpusEncoder | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._clock: asyncio.Task[None] | None = None
        self._stopped = False
        self._on_cut: list[Callable[[], None]] = []
        self._seats = None if seats is None else tuple(seats)
        self.prerendered = asyncio.Event()  # set once the table's chunks are all cached
        self.frames_out = 0  # ticks so far (the next frame's index)
        # (key, first frame index) of recent phrases: what was said when, for tests and logs
        self.spoken: deque[tuple[str, int]] = deque(maxlen=256)

    @property
    def synthesizer(self) -> Synthesizer:
        if self._synth is None:
            self._synth = default_synthesizer()
        return self._synth

    @property
    def speech(self) -> Speech:
        """Where each fragment comes from: the pack's recording, else espeak-ng."""
        if self._speech is None:
            self._speech = Speech(self.catalogue, self.synthesizer, self.pack)
        return self._speech

    # -- the Voice protocol ------------------------------------------------------------

    async def announce(
        self, key: str, params: Mapping[str, Any] | None = None, *, urgent: bool = False
    ) -> None:
        """Queue the phrase (urgent: ahead of the queue, cutting the current one short).

        Returns at once. A bad key or param raises voice.phrases.PhraseError and queues
        nothing; with the voice off it only checks them.
        """
        fragments = self.catalogue.fragments(key, params or {})
        if not self.enabled or self._stopped:
            return
        self._ensure_clock()
        phrase = _Phrase(key=key, urgent=urgent)
        cached = self.speech.cached(fragments)
        if all(pcm is not None for pcm in cached):
            phrase.pcm = Spliced([f.text for f in fragments], cached)  # type: ignore[arg-type]
        else:
            self._spawn(self._render(phrase, fragments))
        if urgent:
            # behind the urgent phrases not yet started, ahead of everything else
            at = next((i for i, p in enumerate(self._queue) if not p.urgent), len(self._queue))
            self._queue.insert(at, phrase)
            self._cut = self._current is not None
        else:
            self._queue.append(phrase)

    async def stop(self) -> None:
        """Stop the clock, end every listener and track, cancel pending syntheses."""
        self._stopped = True
        tasks = [*self._tasks, *([self._clock] if self._clock else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        self._clock = None
        for group in (self._pcm_listeners, self._opus_listeners):
            for listener in group:
                listener.close()
        self._queue.clear()
        self._current = None

    # -- more control ------------------------------------------------------------------

    async def start(self) -> None:
        """Start the frame clock (also started by the first announce or listener)."""
        self._ensure_clock()

    async def prerender(self, seats: Iterable[int]) -> int:
        """Synthesise every chunk this table can announce, off the event loop."""
        if not self.enabled:
            return 0
        count = await self.speech.prerender_async(seats)
        self.prerendered.set()
        return count

    async def _prerender_in_background(self, seats: tuple[int, ...]) -> None:
        try:
            count = await self.prerender(seats)
        except Exception:  # the voice still works, synthesising on demand
            log.exception("prerendering the %s phrases failed", self.lang)
        else:
            log.info("prerendered %d %s phrase chunks for seats %s", count, self.lang, seats)

    async def skip_queued(self) -> None:
        """Drop the phrases not started yet; the one being said is finished. For when the
        host moves the game on: what was queued for the moments he skipped is old news, and
        the bot would otherwise still be reading it over the next speaker."""
        self._queue.clear()

    async def hush(self) -> None:
        """Stop talking at the next tick and drop everything queued (e.g. the game ended)."""
        self._queue.clear()
        self._cut = self._current is not None

    def on_cut(self, callback: Callable[[], None]) -> None:
        """Call `callback()` when an urgent phrase cuts the current one short (e.g. so a
        consumer with its own buffer, like LiveKit's AudioSource, can drop it)."""
        self._on_cut.append(callback)

    @property
    def queued(self) -> int:
        """Phrases waiting to be said (not counting the one being said)."""
        return len(self._queue)

    @property
    def pending(self) -> int:
        """Queued phrases still being synthesised (0 after prerender)."""
        return sum(1 for p in self._queue if p.pcm is None and not p.failed)

    @property
    def idle(self) -> bool:
        """Nothing being said and nothing queued."""
        return self._current is None and not self._queue

    # -- outputs -----------------------------------------------------------------------

    async def pcm_frames(self) -> AsyncIterator[np.ndarray]:
        """20 ms frames (960 read-only int16 samples, 48 kHz mono) until the announcer stops."""
        listener: Listener[np.ndarray] = self._listen(self._pcm_listeners)
        try:
            while True:
                try:
                    _, frame = await listener.get()
                except Closed:
                    return
                yield frame
        finally:
            self._pcm_listeners.discard(listener)

    def track(self) -> PcmTrack:
        """A new aiortc audio track of av.AudioFrame (s16 mono 48 kHz, 20 ms each)."""
        listener: Listener[np.ndarray] = self._listen(self._pcm_listeners)
        return PcmTrack(listener, lambda: self._pcm_listeners.discard(listener))

    def opus_track(self) -> OpusTrack:
        """A new aiortc audio track of Opus av.Packet, shared with every other listener."""
        if self._opus is None:
            self._opus = SharedOpusEncoder()
        listener: Listener[av.Packet[Any]] = self._listen(self._opus_listeners)
        return OpusTrack(listener, lambda: self._opus_listeners.discard(listener))

    @property
    def opus_frames_encoded(self) -> int:
        return self._opus.frames_encoded if self._opus else 0

    # -- the clock ---------------------------------------------------------------------

    def _listen(self, group: set[Any]) -> Listener[Any]:
        listener: Listener[Any] = Listener()
        if self._stopped:
            listener.close()
        else:
            group.add(listener)
            self._ensure_clock()
        return listener

    def _ensure_clock(self) -> None:
        if self._clock is None and not self._stopped:
            self._clock = asyncio.get_running_loop().create_task(self._run(), name="announcer")
            if self._seats is not None and self.enabled:
                self._spawn(self._prerender_in_background(self._seats))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time() - self.frames_out * FRAME_SECONDS
        quiet = 0
        while True:
            self._tick()
            quiet = quiet + 1 if self.idle else 0
            if quiet >= self.idle_frames:
                self._clock = None  # the next announce() or listener starts it again
                return
            delay = start + self.frames_out * FRAME_SECONDS - loop.time()
            if delay < -RESYNC_FRAMES * FRAME_SECONDS:
                LATENESS.report(-delay * 1000, loop.time())
                start, delay = loop.time() - self.frames_out * FRAME_SECONDS, 0.0
            await asyncio.sleep(max(delay, 0.0))

    def _tick(self) -> None:
        index = self.frames_out
        frame = self._next_frame(index)
        self.frames_out += 1
        for listener in self._pcm_listeners:
            listener.push(index, frame)
        if self._opus_listeners and self._opus is not None:
            for packet in self._opus.encode(index, frame):
                for opus_listener in self._opus_listeners:
                    opus_listener.push(index, packet)

    def _next_frame(self, index: int) -> np.ndarray:
        if self._cut:
            self._cut = False
            self._current = None
            for callback in self._on_cut:
                callback()
        while self._current is None and self._queue:
            head = self._queue[0]
            if head.failed:
                self._queue.popleft()
            elif head.pcm is None:
                return SILENT_FRAME  # wait for it: later phrases must not overtake it
            else:
                self._current = self._queue.popleft()
        phrase = self._current
        if phrase is None or phrase.pcm is None:
            return SILENT_FRAME
        if phrase.position == 0:
            phrase.first_frame = index
            self.spoken.append((phrase.key, index))
        samples = phrase.pcm.frame(phrase.position)
        phrase.position += FRAME_SAMPLES
        if phrase.position >= len(phrase.pcm):
            self._current = None
        return samples

    async def _render(self, phrase: _Phrase, fragments: list[Fragment]) -> None:
        try:
            pcms = await self.speech.render_async(fragments)
        except Exception:
            log.exception("could not synthesise %r; skipping it", phrase.key)
            phrase.failed = True
            return
        phrase.pcm = Spliced([f.text for f in fragments], pcms)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _table_voice(catalogue: Catalogue, engine: str | None, voice: str | None) -> Catalogue:
    """The catalogue with the table's engine and voice, or the default ones (logged)."""
    try:
        return engines.choose(catalogue, engine, voice)
    except (engines.VoiceChoiceError, RHVoiceMissing) as exc:
        log.error("table voice: %s; speaking with the default voice instead", exc)
        return engines.choose(catalogue)


def _table_pack(name: str, lang: str) -> VoicePack | None:
    """The table's pack by name, or None (logged) when it cannot be used."""
    try:
        return find(name, lang)
    except PackError as exc:
        log.error("table voice: %s; speaking with espeak-ng instead", exc)
        return None
