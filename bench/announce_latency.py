"""Announcement start latency: announce() call -> first voiced frame out of the track.

    .venv/bin/python bench/announce_latency.py [--count 200] [--lang ru]

Cached: the table's phrases were prerendered (the normal case during a game); every
announcement picks a key and seats at random. Uncached: both caches are emptied before each
announcement, so espeak-ng synthesises its chunks first. Pack: a table set to a voice pack
holding every other fragment of the script (tones in 44.1 kHz stereo WAV files, generated
here), prerendered: recordings and synthesis mixed within phrases. A consumer reads `track()` like
an aiortc sender would; after each measurement the announcer is hushed and left idle for a
few frames. Real espeak-ng, real clock. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
import wave
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing import percentile
from voice.announcer import Announcer
from voice.pack import VoicePack
from voice.phrases import ANNOUNCEMENT_KEYS, ANNOUNCEMENTS, Catalogue
from voice.synth import Synthesizer

SEATS = range(1, 11)
VOICED = 200  # a sample above this is speech, not silence


def _params(key: str, rng: random.Random) -> dict[str, object]:
    pool = {
        "seat": rng.choice(SEATS),
        "target": rng.choice(SEATS),
        "count": rng.randint(1, 3),
        "seats": rng.sample(list(SEATS), rng.randint(2, 4)),
    }
    return {name: pool[name] for name in ANNOUNCEMENTS[key]}


async def _measure(
    announcer: Announcer, count: int, rng: random.Random, before_each: object = None
) -> list[float]:
    track = announcer.track()
    voiced_at: list[tuple[int, float]] = []

    async def consume() -> None:
        while True:
            frame = await track.recv()
            if np.abs(frame.to_ndarray().astype(np.int32)).max() > VOICED:
                voiced_at.append((frame.pts // 960, time.perf_counter()))

    reader = asyncio.create_task(consume())
    await asyncio.sleep(0.2)
    latencies: list[float] = []
    try:
        for _ in range(count):
            if callable(before_each):
                before_each()
            key = rng.choice(ANNOUNCEMENT_KEYS)
            params = _params(key, rng)
            # land anywhere within a frame period, as a real effect would
            await asyncio.sleep(rng.uniform(0, 0.02))
            voiced_at.clear()
            index = announcer.frames_out
            called = time.perf_counter()
            await announcer.announce(key, params)
            while not any(i >= index for i, _ in voiced_at):
                await asyncio.sleep(0.001)
            first = min(t for i, t in voiced_at if i >= index)
            latencies.append((first - called) * 1000)
            await announcer.hush()
            while not announcer.idle:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.06)
    finally:
        reader.cancel()
        track.stop()
    return latencies


def _half_pack(folder: Path, lang: str) -> Path:
    """A pack with every other fragment of the script: a 0.4 s tone each, 44.1 kHz stereo."""
    folder.mkdir(parents=True)
    (folder / "pack.toml").write_text(f'lang = "{lang}"\n')
    t = np.arange(int(0.4 * 44_100)) / 44_100
    for i, line in enumerate(Catalogue.load(lang).script(SEATS)[::2]):
        samples = np.round(9000 * np.sin(2 * np.pi * (220 + 10 * i) * t)).astype("<i2")
        with wave.open(str(folder / f"{line.key}.wav"), "wb") as wav:
            wav.setnchannels(2)
            wav.setsampwidth(2)
            wav.setframerate(44_100)
            wav.writeframes(np.repeat(samples, 2).tobytes())
    return folder


async def main(count: int, lang: str) -> dict[str, float]:
    rng = random.Random(1)
    folder = Path(tempfile.mkdtemp(prefix="announce-bench-"))
    try:
        synth = Synthesizer(folder)
        announcer = Announcer(lang, synthesizer=synth)
        started = time.perf_counter()
        chunks = await announcer.prerender(SEATS)
        print(
            f"prerender {lang}, 10 seats: {chunks} chunks in {time.perf_counter() - started:.1f} s"
        )
        cached = await _measure(announcer, count, rng)
        calls = synth.synth_calls

        def forget() -> None:
            synth.clear_memory()
            for path in folder.glob("*.pcm"):
                path.unlink()

        uncached = await _measure(announcer, count, rng, before_each=forget)
        await announcer.stop()

        pack = VoicePack.open(_half_pack(folder / "pack", lang), cache_dir=folder / "pack-cache")
        pack_synth = Synthesizer(folder / "pack-synth")
        voiced = Announcer(lang, synthesizer=pack_synth, pack=pack)
        started = time.perf_counter()
        pieces = await voiced.prerender(SEATS)
        print(
            f"prerender {lang} with a half pack: {pieces} pieces "
            f"({pack.loads} recordings, {pack_synth.synth_calls} synthesised) "
            f"in {time.perf_counter() - started:.1f} s"
        )
        synthesised, loaded = pack_synth.synth_calls, pack.loads
        with_pack = await _measure(voiced, count, rng)
        await voiced.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert calls == chunks, "a cached announcement needed synthesis"
    assert pack_synth.synth_calls == synthesised, "an announcement with a pack needed synthesis"
    assert pack.loads == loaded, "an announcement with a pack needed a recording read"
    for name, values in (("cached", cached), ("uncached", uncached), ("pack", with_pack)):
        print(
            f"{name:>9}: n={len(values)} p50 {percentile(values, 0.5):.1f} ms, "
            f"p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms, "
            f"mean {statistics.fmean(values):.1f} ms"
        )
    return {
        "announce_start_p50_ms": round(percentile(cached, 0.5), 1),
        "announce_start_p99_ms": round(percentile(cached, 0.99), 1),
        "announce_uncached_p50_ms": round(percentile(uncached, 0.5), 1),
        "announce_uncached_p99_ms": round(percentile(uncached, 0.99), 1),
        "announce_start_pack_p50_ms": round(percentile(with_pack, 0.5), 1),
        "announce_start_pack_p99_ms": round(percentile(with_pack, 0.99), 1),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--lang", default="ru")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.count, args.lang))))
