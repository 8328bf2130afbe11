"""What the end-to-end tests share about pages: a WebAudio level meter and waits on it.

Chromium (testing.browser) and the server on a free port (testing.serve)
are in testing, shared with the benches; the fixtures in conftest.py wrap them.
"""

from __future__ import annotations

import asyncio
import time
from functools import partial

import numpy as np
from playwright.async_api import Page

from testing import eventually

# A level meter on a MediaStream, in the page. Headless Chromium reports audioLevel 0 in
# getStats() even when audio arrives (FIELD-NOTES), so this reads the samples through a
# WebAudio AnalyserNode. Chromium only feeds a remote WebRTC stream into WebAudio while
# the stream is also attached to a media element, hence the muted <audio>.
_METER_JS = """
([name, stream]) => {
  window.__audioMeters = window.__audioMeters || {};
  const context = new AudioContext();
  const analyser = context.createAnalyser();
  analyser.fftSize = 2048;
  context.createMediaStreamSource(stream).connect(analyser);
  const element = new Audio();
  element.muted = true;
  element.srcObject = stream;
  element.play().catch(() => {});
  const buffer = new Float32Array(analyser.fftSize);
  const meter = { peak: 0, last: 0, reads: 0, context, element, run: null };
  meter.timer = setInterval(() => {
    analyser.getFloatTimeDomainData(buffer);
    let sum = 0;
    for (const v of buffer) sum += v * v;
    meter.last = Math.sqrt(sum / buffer.length);
    meter.peak = Math.max(meter.peak, meter.last);
    meter.reads += 1;
    const run = meter.run;  // the longest stretch above run.above, see sustained_audio
    if (run !== null) {
      const now = performance.now();
      if (meter.last > run.above) {
        if (run.since === null) run.since = now;
        run.longest = Math.max(run.longest, now - run.since);
      } else {
        run.since = null;
      }
    }
  }, 20);
  context.resume();
  window.__audioMeters[name] = meter;
}
"""


async def start_audio_meter(page: Page, name: str, stream_expression: str) -> None:
    """Start measuring the stream that `stream_expression` evaluates to in the page.

    The meter keeps the RMS of the last 43 ms (`last`) and the highest RMS since the last
    reset (`peak`), as floats where 1.0 is full scale.
    """
    handle = await page.evaluate_handle(stream_expression)
    await page.evaluate(_METER_JS, [name, handle])


async def audio_level(page: Page, name: str, *, reset: bool = False) -> float:
    """The meter's peak RMS since its last reset (and reset it if asked)."""
    return float(
        await page.evaluate(
            """([name, reset]) => {
                 const meter = window.__audioMeters[name];
                 const peak = meter.peak;
                 if (reset) meter.peak = 0;
                 return peak;
               }""",
            [name, reset],
        )
    )


async def reset_audio_level(page: Page, name: str) -> None:
    await audio_level(page, name, reset=True)


async def wait_for_audio(page: Page, name: str, *, above: float, timeout: float = 10) -> float:
    """Wait until the meter's peak goes above `above`; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        level = await audio_level(page, name)
        if level > above:
            return level
        if time.monotonic() > deadline:
            raise AssertionError(f"page meter {name!r} stayed at {level:.4f} (<= {above})")
        await asyncio.sleep(0.05)


async def wait_for_sustained_audio(
    page: Page, name: str, *, above: float, seconds: float, timeout: float = 10
) -> None:
    """Wait until the page hears one unbroken stretch of `seconds` above `above`.

    Chromium's fake microphone beeps for a few milliseconds twice a second, so a page
    that still plays a beeping seat's audio from its jitter buffer passes wait_for_audio
    at once; only a continuous tone (the test bot's) passes this.
    """
    await page.evaluate(
        "([name, above]) => { window.__audioMeters[name].run = {above, since: null, longest: 0}; }",
        [name, above],
    )
    deadline = time.monotonic() + timeout
    while True:
        longest = float(
            await page.evaluate("([name]) => window.__audioMeters[name].run.longest", [name])
        )
        if longest >= seconds * 1000:
            await page.evaluate("([name]) => { window.__audioMeters[name].run = null; }", [name])
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"page meter {name!r} never heard {seconds}s above {above}"
                f" (its longest stretch: {longest:.0f} ms)"
            )
        await asyncio.sleep(0.05)


async def quiet_for(page: Page, name: str, seconds: float) -> float:
    """Reset the meter, listen for `seconds`, and return the peak heard meanwhile."""
    await reset_audio_level(page, name)
    await asyncio.sleep(seconds)
    return await audio_level(page, name)


async def wait_for_quiet(
    page: Page, name: str, *, below: float, window: float = 0.6, timeout: float = 10
) -> None:
    """Wait until a whole `window` of seconds passes with the meter's peak under `below`.

    A browser's jitter buffer can hold half a second of audio under load, and brief gaps
    in a stream (concealment) are not the end of it: hence a window, not one reading, and
    one longer than the fake microphone's beep period (0.5 s), so it cannot fall between
    two beeps mixed before the step a test checks.
    """
    deadline = time.monotonic() + timeout
    while True:
        level = await quiet_for(page, name, window)
        if level < below:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"page meter {name!r} still at {level:.4f} (>= {below})")


# Wait until a condition on the server side holds; fail after 10 seconds.
until = partial(eventually, seconds=10.0)


# A recorder of what a page plays from a MediaStream: the decoded samples (after WebRTC's
# Opus decoder and jitter buffer), read through WebAudio like the meter above, kept in the
# page until `recorded` fetches them. The processor must reach the destination to run;
# a gain of 0 keeps the page silent.
_RECORDER_JS = """
([name, stream]) => {
  window.__recorders = window.__recorders || {};
  const context = new AudioContext({ sampleRate: 48000 });
  const element = new Audio();
  element.muted = true;
  element.srcObject = stream;
  element.play().catch(() => {});
  const source = context.createMediaStreamSource(stream);
  const processor = context.createScriptProcessor(4096, 1, 1);
  const mute = context.createGain();
  mute.gain.value = 0;
  const recorder = { chunks: [], on: false, context, element, processor };
  processor.onaudioprocess = (event) => {
    if (recorder.on) recorder.chunks.push(Array.from(event.inputBuffer.getChannelData(0)));
  };
  source.connect(processor);
  processor.connect(mute);
  mute.connect(context.destination);
  context.resume();
  window.__recorders[name] = recorder;
}
"""


async def start_recording(page: Page, name: str, stream_expression: str) -> int:
    """Record the stream `stream_expression` evaluates to from now on; returns the rate."""
    handle = await page.evaluate_handle(stream_expression)
    await page.evaluate(_RECORDER_JS, [name, handle])
    await page.evaluate("([name]) => { window.__recorders[name].on = true; }", [name])
    return int(await page.evaluate("([name]) => window.__recorders[name].context.sampleRate",
                                   [name]))  # fmt: skip


async def recorded(page: Page, name: str) -> np.ndarray:
    """Stop recording and return what was recorded as mono int16 PCM."""
    chunks = await page.evaluate(
        "([name]) => { const r = window.__recorders[name]; r.on = false; return r.chunks; }",
        [name],
    )
    floats = (
        np.concatenate([np.asarray(c, dtype=np.float32) for c in chunks])
        if chunks
        else (np.zeros(0, np.float32))
    )
    return np.round(np.clip(floats, -1.0, 1.0) * 32767).astype(np.int16)
