"""The new speaker's first word (issue 30), against the real LiveKit server: a speaker who
starts talking the moment his countdown runs is heard from his first 100 ms.

LiveKit's floor: each turn is a fresh track, which a listener hears about 0.45 s after the
grant (bench/livekit_new_speaker.py). Before, the countdown ran from the grant, and a
speaker who started on it lost about 0.4 s of his first word. Now it runs once the bot
receives his audio (plugin.host.first_word, plugin.rooms.livekit.first_audio). The listener
reads from the pitch of the rising tone he talks (testing/first_word.py) which moment of his
speech reached it first.
"""

from __future__ import annotations

import pytest

from plugin.rooms.livekit.tokens import Credentials
from testing.first_word import lost_per_turn
from testing.livekit_server import API_KEY, API_SECRET

pytestmark = [pytest.mark.livekit, pytest.mark.slow]

FIRST_WORD = 0.1  # seconds of his speech that must reach the listener


async def test_a_speaker_who_talks_when_his_countdown_runs_is_heard_from_his_first_word(
    livekit_server, tmp_path
) -> None:
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    lost = await lost_per_turn(creds, tmp_path / "autohost.db", turns=4, seats=10)
    assert all(seconds < FIRST_WORD for seconds in lost), (
        f"seconds of each new speaker's speech nobody heard: {[round(s, 3) for s in lost]}"
    )
