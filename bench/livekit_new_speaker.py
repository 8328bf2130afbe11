"""The new speaker's first word in LiveKit mode (issue 30): from the turn change to his audio
reaching a listener, against the real LiveKit server with real participants.

    .venv/bin/python bench/livekit_new_speaker.py [--turns 24] [--players 4]

`--players` seated participants (testing/livekit_player.Player: each talks a tone of its
own all the time and publishes his microphone anew when the room grants it, as the widget
does) and one listener that subscribes to everybody. Each turn the room (LiveKitRoom, the
one the server drives) revokes the last speaker and grants the next one; the clock starts
when `set_speakers` is called (the host's "next") and stops at the first frame of the new
speaker's tone the listener hears. Where the time goes, per turn: until the new speaker's
client sees the grant, until his track is published, until the listener subscribed to it.

Then what a speaker loses of his first word (`livekit_new_speaker_lost_ms`): a table of 10
in the server's assembly (its bot, the real server), every seat a participant who talks a
rising tone the moment his countdown runs as his page shows it (testing/first_word.py), one
listener; the host moves on `--turns` times, and the pitch of the first 20 ms the listener
hears says how much of the speech was missed. The countdown waits for the speaker's audio
(plugin.host.first_word), so the goal is 0.
Last line: JSON, `livekit_new_speaker_audible_ms` (median) and its max, and
`livekit_new_speaker_lost_ms` (median) and its max.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from livekit import rtc  # noqa: E402

from plugin.rooms.livekit.backend import LiveKitRoom  # noqa: E402
from plugin.rooms.livekit.tokens import Credentials  # noqa: E402
from testing.first_word import lost_per_turn  # noqa: E402
from testing.livekit_player import Player  # noqa: E402
from testing.livekit_server import API_KEY, API_SECRET, running_server, server_binary  # noqa: E402

ROOM = "new-speaker"
TURN_SECONDS = 1.5
AUDIBLE = 1000.0  # RMS of a 10 ms frame that counts as heard (the tone is ~5,600)


class Listener:
    """Subscribes to every microphone; stamps the first audible frame of each identity
    after `expect(identity)`."""

    def __init__(self) -> None:
        self.room = rtc.Room()
        self.heard: dict[str, float] = {}
        self.subscribed: dict[str, float] = {}
        self._waiting: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.room.on("track_subscribed", self._subscribed)

    def expect(self, identity: str) -> None:
        self.heard.pop(identity, None)
        self.subscribed.pop(identity, None)
        self._waiting.add(identity)

    def _subscribed(self, track: rtc.Track, _pub: object, participant: rtc.Participant) -> None:
        if track.kind != rtc.TrackKind.KIND_AUDIO:
            return
        self.subscribed.setdefault(participant.identity, time.perf_counter())
        task = asyncio.create_task(self._listen(track, participant.identity))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _listen(self, track: rtc.Track, identity: str) -> None:
        async for event in rtc.AudioStream(track, sample_rate=48000, num_channels=1):
            if identity not in self._waiting:
                continue
            samples = np.frombuffer(bytes(event.frame.data), dtype=np.int16).astype(np.float64)
            if samples.size and float(np.sqrt(np.mean(samples**2))) > AUDIBLE:
                self.heard[identity] = time.perf_counter()
                self._waiting.discard(identity)


async def measure(url: str, turns: int, players: int) -> dict[str, float]:
    creds = Credentials(url=url, api_key=API_KEY, api_secret=API_SECRET)
    seated = [Player(creds, ROOM, seat) for seat in range(1, players + 1)]
    sees: dict[str, float] = {}
    published: dict[str, float] = {}
    for player in seated:
        await player.join()
        identity = player.room.local_participant.identity

        def permission(participant, new, identity=identity) -> None:
            if participant.identity == identity and new.can_publish:
                sees.setdefault(identity, time.perf_counter())

        player.room.on("participant_permissions_changed", permission)
        player.room.on(
            "local_track_published",
            lambda *_, identity=identity: published.setdefault(identity, time.perf_counter()),
        )
    listener = Listener()
    from plugin.rooms.livekit.tokens import player_token

    await listener.room.connect(url, player_token(creds, ROOM, 99))  # a seat beyond the table
    room = LiveKitRoom.connect(url, API_KEY, API_SECRET, ROOM, seats=players)
    await room.start()
    audible, parts = [], {"sees": [], "published": [], "subscribed": []}
    try:
        await room.set_speakers(frozenset())
        await asyncio.sleep(1.0)
        for turn in range(turns + 1):
            seat = turn % players + 1
            identity = f"seat-{seat}"
            for table in (sees, published):
                table.pop(identity, None)
            listener.expect(identity)
            start = time.perf_counter()
            await room.set_speakers(frozenset({seat}))
            deadline = start + 5.0
            while identity not in listener.heard and time.perf_counter() < deadline:
                await asyncio.sleep(0.005)
            if turn == 0 or identity not in listener.heard:
                await asyncio.sleep(TURN_SECONDS)  # the first turn warms up
                continue
            audible.append((listener.heard[identity] - start) * 1000)
            for name, table in (("sees", sees), ("published", published),
                                ("subscribed", listener.subscribed)):  # fmt: skip
                if identity in table:
                    parts[name].append((table[identity] - start) * 1000)
            await asyncio.sleep(TURN_SECONDS)
    finally:
        await room.stop()
        await listener.room.disconnect()
        for player in seated:
            await player.leave()
    figures = {
        "livekit_new_speaker_audible_ms": round(statistics.median(audible), 1),
        "livekit_new_speaker_audible_max_ms": round(max(audible), 1),
        "livekit_new_speaker_turns": float(len(audible)),
    }
    for name, values in parts.items():
        if values:
            figures[f"livekit_new_speaker_{name}_ms"] = round(statistics.median(values), 1)
    return figures


async def main(turns: int, players: int) -> dict[str, float | None]:
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    binary = server_binary()
    if binary is None:
        print("real server: .cache/bin/livekit-server missing, skipped")
        return {"livekit_new_speaker_audible_ms": None, "livekit_new_speaker_lost_ms": None}
    with tempfile.TemporaryDirectory() as folder, running_server(binary, Path(folder)) as server:
        figures = await measure(server.ws_url, turns, players)
        creds = Credentials(url=server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
        lost = [s * 1000 for s in await lost_per_turn(creds, Path(folder) / "db", turns)]
    figures["livekit_new_speaker_lost_ms"] = round(statistics.median(lost), 1)
    figures["livekit_new_speaker_lost_max_ms"] = round(max(lost), 1)
    figures["livekit_new_speaker_lost_turns"] = float(len(lost))
    print(
        f"{int(figures['livekit_new_speaker_turns'])} turns: heard "
        f"{figures['livekit_new_speaker_audible_ms']} ms median "
        f"(max {figures['livekit_new_speaker_audible_max_ms']}); medians from the turn change: "
        f"client sees the grant {figures.get('livekit_new_speaker_sees_ms')} ms, track "
        f"published {figures.get('livekit_new_speaker_published_ms')} ms, listener "
        f"subscribed {figures.get('livekit_new_speaker_subscribed_ms')} ms"
    )
    print(
        f"{len(lost)} turns at a table: of a speaker who talks when his countdown runs, "
        f"{figures['livekit_new_speaker_lost_ms']} ms lost median "
        f"(max {figures['livekit_new_speaker_lost_max_ms']})"
    )
    return dict(figures)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=24)
    parser.add_argument("--players", type=int, default=4)
    arguments = parser.parse_args()
    print(json.dumps(asyncio.run(main(arguments.turns, arguments.players))))
