"""Turn change → the previous speaker's audio no longer forwarded (goal: within one 20 ms
frame). Runs an EmbeddedRoom served on loopback; seats 3 and 5 (aiortc clients in another
process, bench/_peers.py) take turns singing their own pitch; seat 7 listens here. For
each turn change it prints:

- gate_ms: from set_speakers() to the first mixer tick that leaves the old speaker out
  (the server's forwarding decision; his counter must not move after it),
- heard_ms: from set_speakers() to the last frame of the old speaker's pitch that reached
  the listener (adds the packets already queued for sending, the network and aiortc's
  receive jitter buffer).

Usage: .venv/bin/python bench/mic_gate.py [--turns 20]
Last line: {"mic_gate_ms": <max gate_ms>, "mic_gate_p50_ms": .., "heard_p50_ms": .., ...}
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._table import peers, tables
from plugin.rooms.embedded.client import RoomClient
from testing import eventually

PITCH = {3: 900.0, 5: 1300.0}
HEARD = 1000.0  # RMS at the pitch (a tone of amplitude 8000 arrives at 4000-5700)


# Looked at every 5 ms: the gate is measured from the room's own tick time, not from here.
wait = partial(eventually, seconds=5.0, interval=0.005)


async def run(turns: int) -> list[dict[str, float]]:
    rows: list[dict[str, float]] = []
    async with (
        tables(1) as (url, (room,)),
        peers(url, "t1", [f"{seat}:{hz}" for seat, hz in PITCH.items()]),
    ):
        listener = RoomClient(None)
        await listener.connect(lambda sdp, kind: room.accept(7, sdp, kind))
        speaker = 3
        await room.set_speakers(frozenset({speaker}))
        for _ in range(turns):
            await wait(lambda s=speaker: listener.level(PITCH[s], time.monotonic() - 0.1) > HEARD)
            await asyncio.sleep(0.3 + 0.013 * len(rows) % 0.02)  # vary the phase within a tick
            old, speaker = speaker, 8 - speaker
            ticks, forwarded = room.ticks, room.stats()[old].frames_forwarded
            changed = time.monotonic()
            await room.set_speakers(frozenset({speaker}))
            await wait(lambda t=ticks: room.ticks > t)
            gate = (room.last_tick or changed) - changed
            await asyncio.sleep(0.6)  # let everything in flight arrive
            if room.stats()[old].frames_forwarded != forwarded:
                raise SystemExit(f"bench: seat {old} was forwarded after his turn ended")
            last = listener.last_heard(PITCH[old], HEARD)
            heard = max(0.0, (last or changed) - changed)
            rows.append({"turn": len(rows) + 1, "gate_ms": gate * 1000, "heard_ms": heard * 1000})
        await listener.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    rows = asyncio.run(run(args.turns))
    print(f"{'turn':>4} {'gate_ms':>8} {'heard_ms':>9}")
    for row in rows:
        print(f"{row['turn']:>4} {row['gate_ms']:>8.1f} {row['heard_ms']:>9.1f}")
    gate = sorted(row["gate_ms"] for row in rows)
    heard = sorted(row["heard_ms"] for row in rows)
    summary = {
        "mic_gate_ms": round(gate[-1], 1),
        "mic_gate_p50_ms": round(statistics.median(gate), 1),
        "heard_p50_ms": round(statistics.median(heard), 1),
        "heard_max_ms": round(heard[-1], 1),
        "turns": len(rows),
    }
    print(
        f"gate: max {summary['mic_gate_ms']} ms, p50 {summary['mic_gate_p50_ms']} ms "
        f"(goal: <= 20 ms); heard at the listener until p50 {summary['heard_p50_ms']} ms"
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
