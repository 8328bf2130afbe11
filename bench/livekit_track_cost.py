"""What one published audio track costs the LiveKit Python SDK, by its source's queue.

    .venv/bin/python bench/livekit_track_cost.py [--rooms 10] [--seconds 15]

A diagnostic behind `livekit_tables_per_core` (docs/performance.md, "The fourth session"):
`--rooms` rooms of a real LiveKit server (.cache/bin/livekit-server) joined from this
process, each publishing one microphone track from an `rtc.AudioSource`, measured in four
states for each queue size: connected without a track, published and silent (nothing
captured), speaking (a tone, captured in real time), and silent again. With a queue
(`queue_size_ms=1000`, the SDK's default, 100 ms captures) the source's 10 ms thread feeds
the encoder silence whenever it has nothing; without one (`queue_size_ms=0`) nothing is
encoded between captures, but every capture must be one 10 ms frame. CPU is this
process's own, per room, with the busiest threads by name.

Last line: JSON {"livekit_track_<state>_q<queue>_percent": ...}.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import json
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from livekit import rtc  # noqa: E402

from plugin.rooms.livekit.ffi import narrow_events  # noqa: E402
from plugin.rooms.livekit.tokens import Credentials, bot_token  # noqa: E402
from testing.cpu import cpu_window  # noqa: E402
from testing.livekit_server import API_KEY, API_SECRET, running_server, server_binary  # noqa: E402

RATE = 48_000
TONE = array.array("h", (int(8000 * math.sin(2 * math.pi * 440 * i / RATE)) for i in range(4800)))


async def measure(label: str, rooms: int, seconds: float) -> float:
    await asyncio.sleep(3)  # settle: a join's or a publish's own work is not the state's
    measured = await cpu_window(seconds)
    per_room = measured.percent / rooms
    print(f"{label}: {per_room:.2f} % of a core per room; busiest threads: {measured.busiest}")
    return round(per_room, 2)


async def one_queue(url: str, creds: Credentials, queue_ms: int, args: argparse.Namespace):
    rooms = []
    for i in range(args.rooms):
        room = rtc.Room()
        await room.connect(url, bot_token(creds, f"cost-q{queue_ms}-{i}"))
        narrow_events(room)  # as the bots do: no room hears the others' captures
        rooms.append(room)
    connected = await measure(f"q={queue_ms} connected, no track", args.rooms, args.seconds)
    figures = {f"livekit_track_connected_q{queue_ms}_percent": connected}
    sources = []
    for room in rooms:
        source = rtc.AudioSource(RATE, 1, queue_size_ms=queue_ms)
        track = rtc.LocalAudioTrack.create_audio_track("voice", source)
        options = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE)
        await room.local_participant.publish_track(track, options)
        sources.append(source)
    figures[f"livekit_track_silent_q{queue_ms}_percent"] = await measure(
        f"q={queue_ms} published, nothing captured", args.rooms, args.seconds
    )
    chunk_ms = 10 if queue_ms == 0 else 100  # a direct capture must be one 10 ms frame
    stop = asyncio.Event()

    async def speak(source: rtc.AudioSource) -> None:
        samples = RATE * chunk_ms // 1000
        frame = rtc.AudioFrame(TONE[:samples].tobytes(), RATE, 1, samples)
        loop = asyncio.get_running_loop()
        due = loop.time()
        while not stop.is_set():
            await source.capture_frame(frame)  # a queue paces the producer itself
            if queue_ms == 0:
                due += chunk_ms / 1000
                await asyncio.sleep(max(0.0, due - loop.time()))

    speakers = [asyncio.create_task(speak(source)) for source in sources]
    figures[f"livekit_track_speaking_q{queue_ms}_percent"] = await measure(
        f"q={queue_ms} speaking ({chunk_ms} ms captures)", args.rooms, args.seconds
    )
    stop.set()
    await asyncio.gather(*speakers, return_exceptions=True)
    figures[f"livekit_track_after_q{queue_ms}_percent"] = await measure(
        f"q={queue_ms} silent again", args.rooms, args.seconds
    )
    for room in rooms:
        await room.disconnect()
    for source in sources:
        await source.aclose()
    return figures


async def main(args: argparse.Namespace) -> dict[str, float]:
    binary = server_binary()
    if binary is None:
        print("real server: .cache/bin/livekit-server missing, skipped")
        return {}
    with tempfile.TemporaryDirectory() as folder, running_server(binary, Path(folder)) as lk:
        creds = Credentials(url=lk.ws_url, api_key=API_KEY, api_secret=API_SECRET)
        figures: dict[str, float] = {}
        for queue_ms in (1000, 0):
            figures.update(await one_queue(lk.ws_url, creds, queue_ms, args))
        return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=15.0)
    print(json.dumps(asyncio.run(main(parser.parse_args()))))
