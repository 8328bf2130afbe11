"""Turn change → permissions applied, in LiveKit mode, at 12 players.

    .venv/bin/python bench/livekit_permissions.py [--rounds 40]

Measures `LiveKitRoom.set_speakers` until it returns (every UpdateParticipant answered):
a turn change (one revoke + one grant) and "everyone muted" (12 revokes), against the
contract server (testing/livekit_contract.py) and, when .cache/bin/livekit-server
exists, against the real server with 12 connected players (Python rtc participants).
Also reports when the new speaker's own client sees the permission (real server).
Last line: JSON with the medians in ms. Goals: turn change < 50 ms, mute all < 150 ms.
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

from livekit import rtc  # noqa: E402

from plugin.rooms.livekit.backend import LiveKitRoom  # noqa: E402
from plugin.rooms.livekit.tokens import Credentials, player_token  # noqa: E402
from testing.livekit_contract import ContractServer  # noqa: E402
from testing.livekit_server import (  # noqa: E402
    API_KEY,
    API_SECRET,
    running_server,
    server_binary,
)

PLAYERS = 12


async def measure(room: LiveKitRoom, rounds: int) -> tuple[list[float], list[float]]:
    turn, mute = [], []
    await room.set_speakers(frozenset({1}))
    for n in range(rounds):
        seat = n % PLAYERS + 1
        start = time.perf_counter()
        await room.set_speakers(frozenset({seat % PLAYERS + 1}))
        turn.append((time.perf_counter() - start) * 1000)
    for _ in range(max(rounds // 4, 5)):
        await room.release_all()
        start = time.perf_counter()
        await room.set_speakers(frozenset())
        mute.append((time.perf_counter() - start) * 1000)
    return turn, mute


async def contract_figures(rounds: int) -> tuple[float, float]:
    contract = ContractServer(API_KEY, API_SECRET, processing=0.0)
    await contract.start()
    for seat in range(1, PLAYERS + 1):
        contract.join("bench", f"seat-{seat}", attributes={"seat": str(seat)})
    room = LiveKitRoom.connect(contract.url, API_KEY, API_SECRET, "bench")
    await room.start()
    try:
        turn, mute = await measure(room, rounds)
    finally:
        await room.stop()
        await contract.stop()
    return statistics.median(turn), statistics.median(mute)


async def real_figures(url: str, rounds: int) -> tuple[float, float, float]:
    creds = Credentials(url=url, api_key=API_KEY, api_secret=API_SECRET)
    players: list[rtc.Room] = []
    seen: dict[int, asyncio.Event] = {}
    for seat in range(1, PLAYERS + 1):
        player = rtc.Room()
        seen[seat] = asyncio.Event()

        def changed(participant, permissions, seat=seat, player=player) -> None:
            if (
                participant.identity == player.local_participant.identity
                and permissions.can_publish
            ):
                seen[seat].set()

        player.on("participant_permissions_changed", changed)
        await player.connect(url, player_token(creds, "bench-real", seat))
        players.append(player)
    room = LiveKitRoom.connect(url, API_KEY, API_SECRET, "bench-real")
    await room.start()
    try:
        turn, mute = await measure(room, rounds)
        observed = []
        for seat in (2, 3, 4, 5, 6, 7, 8, 9):
            await room.set_speakers(frozenset({seat - 1}))
            seen[seat].clear()
            start = time.perf_counter()
            await room.set_speakers(frozenset({seat}))
            await asyncio.wait_for(seen[seat].wait(), 10)
            observed.append((time.perf_counter() - start) * 1000)
    finally:
        await room.stop()
        for player in players:
            await player.disconnect()
    print(
        f"real server, {PLAYERS} players: turn change {statistics.median(turn):.1f} ms "
        f"(max {max(turn):.1f}), mute all {statistics.median(mute):.1f} ms "
        f"(max {max(mute):.1f}), the new speaker's client sees it "
        f"{statistics.median(observed):.1f} ms"
    )
    return statistics.median(turn), statistics.median(mute), statistics.median(observed)


async def main(rounds: int) -> dict[str, float | None]:
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f} (figures grow with the load)")
    turn, mute = await contract_figures(rounds)
    print(f"contract server, {PLAYERS} players: turn change {turn:.1f} ms, mute all {mute:.1f} ms")
    figures: dict[str, float | None] = {
        "livekit_turn_change_ms": round(turn, 2),
        "livekit_mute_all_ms": round(mute, 2),
        "livekit_real_turn_change_ms": None,
        "livekit_real_mute_all_ms": None,
        "livekit_real_client_sees_ms": None,
    }
    binary = server_binary()
    if binary is None:
        print("real server: .cache/bin/livekit-server missing, skipped")
        return figures
    with tempfile.TemporaryDirectory() as folder, running_server(binary, Path(folder)) as server:
        real_turn, real_mute, observed = await real_figures(server.ws_url, rounds)
    figures.update(
        livekit_real_turn_change_ms=round(real_turn, 2),
        livekit_real_mute_all_ms=round(real_mute, 2),
        livekit_real_client_sees_ms=round(observed, 2),
    )
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    print(json.dumps(asyncio.run(main(parser.parse_args().rounds))))
