"""A table with a half-recorded voice pack: the recorded fragments come from the pack,
sample for sample, the rest from espeak-ng, with the same caching and start latency."""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from plugin.eventlog import log_opener
from plugin.host.settings import TableSettings
from voice import audio
from voice.announcer import Announcer
from voice.pack import PackError, VoicePack
from voice.phrases import ANNOUNCEMENT_KEYS, Catalogue
from voice.synth import Synthesizer

from .conftest import (
    TABLE,
    Recorder,
    make_pack,
    pitch,
    recording,
    sample,
    spoken,
    trimmed,
    until,
    write_wav,
)

# Recorded on purpose: so each phrase below mixes the pack and synthesis.
RECORDED = {"night", "vote.call.1", "seat.acc.3", "number.5", "and.8"}
SYNTHESISED = {"seat.nom.7", "nomination.1", "nomination.2", "tie.revote.1", "seats.nom.2"}
SAID = [
    ("night", {}),  # all from the pack
    ("vote.call", {"seat": 7}),  # pack, then espeak
    ("nomination", {"seat": 7, "target": 3}),  # espeak, espeak, pack, espeak
    ("tie.revote", {"seats": [2, 5, 8]}),  # espeak, espeak, pack, pack
    ("morning", {}),  # all espeak
]


def half_of_the_script() -> set[str]:
    every = [line.key for line in Catalogue.load("uk").script(TABLE)]
    return (set(every[::2]) | RECORDED) - SYNTHESISED - {"morning"}


@pytest.fixture
def pack(tmp_path: Path) -> VoicePack:
    folder = make_pack(tmp_path / "club", "uk", half_of_the_script())
    return VoicePack.open(folder, cache_dir=tmp_path / "cache")


@pytest.fixture
async def announcer(prerendered: Synthesizer, pack: VoicePack) -> AsyncIterator[Announcer]:
    voice = Announcer("uk", synthesizer=prerendered, pack=pack)
    await voice.prerender(TABLE)
    yield voice
    await voice.stop()


def expected(
    synth: Synthesizer, pack: VoicePack, key: str, params: dict[str, object]
) -> np.ndarray:
    """The phrase built by hand: each recorded fragment is its WAV's samples (trimmed), each
    other one the default engine's rendering; whole 20 ms frames, the last one padded."""
    catalogue = spoken("uk")
    pieces = []
    for fragment in catalogue.fragments(key, params):
        if fragment.key in pack.files:
            pieces.append(trimmed(recording(fragment.key)))
        else:
            (pcm,) = synth.render([fragment.text], catalogue.voice)
            pieces.append(pcm)
    chunks = catalogue.chunks(key, params)
    return np.concatenate(audio.frames(audio.assemble(chunks, pieces)))


async def test_recorded_fragments_come_from_the_pack_the_rest_from_espeak(
    announcer: Announcer, prerendered: Synthesizer, pack: VoicePack
) -> None:
    recorder = Recorder(announcer)
    reader = asyncio.create_task(recorder.run())
    try:
        for key, params in SAID:
            await announcer.announce(key, params)
        await until(lambda: announcer.idle and len(announcer.spoken) == len(SAID), seconds=40)
        start = dict(announcer.spoken)
        wants = {key: expected(prerendered, pack, key, params) for key, params in SAID}
        last = start["morning"] + len(wants["morning"]) // audio.FRAME_SAMPLES
        await until(lambda: max(recorder.frames) >= last)
        for key, _ in SAID:
            want = wants[key]
            got = recorder.span(start[key], len(want) // audio.FRAME_SAMPLES)
            assert np.array_equal(got, want), key
    finally:
        reader.cancel()


async def test_the_pack_is_resampled_to_48khz_on_the_way(
    prerendered: Synthesizer, tmp_path: Path
) -> None:
    folder = make_pack(tmp_path / "club", "uk", ["night"], rate=22_050)
    voice = Announcer("uk", synthesizer=prerendered, pack=VoicePack.open(folder))
    frames = voice.pcm_frames()
    try:
        await voice.prerender(range(1, 2))
        await voice.announce("night", {})
        said = [await frames.__anext__() for _ in range(30)]
    finally:
        await voice.stop()
    pcm = np.concatenate(said)
    voiced = pcm[np.abs(pcm.astype(np.int32)) > audio.SILENCE_LEVEL]
    peak = np.fft.rfftfreq(len(pcm), 1 / audio.SAMPLE_RATE)[np.argmax(np.abs(np.fft.rfft(pcm)))]
    assert len(voiced) > 0.25 * audio.SAMPLE_RATE
    assert abs(peak - pitch("night")) < 5


async def test_only_what_the_pack_lacks_is_synthesised(fresh: Synthesizer, pack: VoicePack) -> None:
    announcer = Announcer("uk", synthesizer=fresh, pack=pack, seats=TABLE)
    fragments = announcer.catalogue.chunk_fragments(TABLE)
    recorded = {f for f in fragments if f.key in pack.files}
    lacking = {f.text for f in fragments if f.key not in pack.files}
    try:
        await announcer.start()
        await until(announcer.prerendered.is_set, seconds=60)
        assert fresh.synth_calls == len(lacking)
        voice = announcer.catalogue.voice
        assert all(fresh.cached(f.text, voice) is None for f in recorded)  # never synthesised
        for key in ANNOUNCEMENT_KEYS:  # every phrase ready: none waits for the worker
            await announcer.announce(key, sample(key))
        assert announcer.pending == 0
        assert fresh.synth_calls == len(lacking)
    finally:
        await announcer.stop()


async def test_a_pack_phrase_starts_on_the_next_frame(announcer: Announcer) -> None:
    frames = announcer.pcm_frames()
    for _ in range(3):
        await frames.__anext__()
    for key, params in SAID:
        before = announcer.frames_out
        await announcer.announce(key, params, urgent=True)
        await until(lambda k=key: bool(announcer.spoken) and announcer.spoken[-1][0] == k)  # type: ignore[misc]
        assert announcer.spoken[-1] == (key, before), key
        await announcer.hush()
        await frames.__anext__()


async def test_an_unusable_recording_is_synthesised_instead(
    prerendered: Synthesizer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = make_pack(tmp_path / "club", "uk", ["morning"])
    write_wav(folder / "night.wav", np.zeros(4800, np.int16), 48_000)  # silent: unusable
    pack = VoicePack.open(folder, cache_dir=tmp_path / "cache")
    voice = Announcer("uk", synthesizer=prerendered, pack=pack)
    frames = voice.pcm_frames()
    try:
        with caplog.at_level(logging.WARNING, logger="voice.pack"):
            await voice.announce("night", {})  # not prerendered: loaded on demand
            said = [await frames.__anext__() for _ in range(20)]
    finally:
        await voice.stop()
    catalogue = spoken("uk")
    (synthesised,) = prerendered.render(catalogue.chunks("night", {}), catalogue.voice)
    pcm = np.concatenate(said)
    start = int(np.flatnonzero(np.abs(pcm.astype(np.int32)) > 0)[0]) // 960 * 960
    assert np.array_equal(pcm[start : start + 960 * 10], synthesised[: 960 * 10])
    assert "night: is silent" in caplog.text


# -- a table set to a pack --------------------------------------------------------------


@pytest.fixture
def packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "voices"
    make_pack(folder / "club", "uk", ["night"])
    make_pack(folder / "moscow", "ru", ["night"])
    monkeypatch.setenv("AUTOHOST_VOICES", str(folder))
    return folder


async def test_a_table_is_set_to_a_pack_by_name(packs: Path) -> None:
    voice = Announcer("uk", pack="club")
    assert voice.pack is not None and voice.pack.path == packs / "club"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("moscow", "voice pack 'moscow' is recorded in 'ru', but the table speaks 'uk'"),
        ("kyiv", "no voice pack 'kyiv' in"),
        ("../club", "must be one folder name"),
    ],
)
async def test_a_table_whose_pack_cannot_be_used_speaks_with_espeak(
    packs: Path, caplog: pytest.LogCaptureFixture, name: str, message: str
) -> None:
    with caplog.at_level(logging.ERROR, logger="voice.announcer"):
        voice = Announcer("uk", pack=name)  # a table replayed from the log still opens
    assert voice.pack is None
    assert message in caplog.text and "speaking with espeak-ng instead" in caplog.text


async def test_a_pack_object_in_another_language_is_refused(packs: Path) -> None:
    with pytest.raises(PackError, match="is in 'ru', not 'uk'"):
        Announcer("uk", pack=VoicePack.open(packs / "moscow"))


async def test_the_embedded_server_gives_a_table_its_pack(packs: Path) -> None:
    from plugin.server.embedded import EmbeddedTables

    tables = EmbeddedTables()
    settings = TableSettings.from_record({"language": "uk", "voice_pack": "club"})
    tables.room("t1", settings)
    voice = tables.voice("t1", settings)
    assert isinstance(voice, Announcer)
    assert voice.pack is not None and voice.pack.path == packs / "club"
    plain = TableSettings.from_record({"language": "uk"})
    tables.room("t2", plain)
    other = tables.voice("t2", plain)
    assert isinstance(other, Announcer) and other.pack is None


def test_voice_pack_round_trips_and_old_records_still_load() -> None:
    settings = TableSettings.from_record({"language": "uk", "seed": 1, "voice_pack": "club"})
    assert settings.voice_pack == "club"
    assert TableSettings.from_record(settings.to_record()) == settings
    old = {"preset": "online", "language": "uk", "seats": 10, "names": [], "manual": False,
           "seed": 1, "overrides": {}, "roles": None}  # fmt: skip
    assert TableSettings.from_record(old).voice_pack is None
    assert TableSettings.from_record(old).to_record() == old  # no new field in old tables


async def test_the_livekit_server_gives_a_table_its_pack(packs: Path) -> None:
    from plugin.rooms.livekit.botroom import VoiceOnDemand
    from plugin.rooms.livekit.tokens import Credentials
    from plugin.server.livekit import LiveKitTables

    creds = Credentials(url="http://127.0.0.1:9", api_key="devkey", api_secret="s" * 32)
    tables = LiveKitTables(creds, only="t1", rooms={"t1": "room-1"})
    settings = TableSettings.from_record({"language": "uk", "voice_pack": "club"})
    room = tables.room("t1", settings)  # connects nothing until the table starts
    try:
        wrapped = tables.voice("t1", settings)  # the bot plays it from its first phrase on
        assert isinstance(wrapped, VoiceOnDemand)
        voice = wrapped.voice
        assert isinstance(voice, Announcer)
        assert voice.pack is not None and voice.pack.path == packs / "club"
    finally:
        await room.stop()


async def test_a_recording_of_words_the_catalogue_changed_is_synthesised(
    prerendered: Synthesizer, tmp_path: Path
) -> None:
    folder = make_pack(tmp_path / "club", "uk", ["night"])
    (folder / "script.csv").write_text("file,text\nnight.wav,Ніч. Місто спить.\n")
    voice = Announcer("uk", synthesizer=prerendered, pack=VoicePack.open(folder))
    frames = voice.pcm_frames()
    try:
        await voice.prerender(range(1, 2))
        await voice.announce("night", {})
        said = [await frames.__anext__() for _ in range(20)]
    finally:
        await voice.stop()
    catalogue = spoken("uk")
    (synthesised,) = prerendered.render(catalogue.chunks("night", {}), catalogue.voice)
    pcm = np.concatenate(said)
    start = int(np.flatnonzero(np.abs(pcm.astype(np.int32)) > 0)[0]) // 960 * 960
    assert np.array_equal(pcm[start : start + 960 * 10], synthesised[: 960 * 10])


def test_the_table_api_refuses_a_pack_name_with_a_path_and_creates_nothing(
    tmp_path: Path,
) -> None:
    with warnings.catch_warnings():  # as tests/web/conftest.py: starlette wants httpx2
        warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    from plugin.web.app import ServerConfig, create_app

    config = ServerConfig(
        db_path=tmp_path / "autohost.db",
        log=log_opener(tmp_path / "autohost.db"),
        admin_key="k" * 32,
        secret=b"s" * 32,
    )
    admin = {"Authorization": f"Bearer {'k' * 32}"}
    with TestClient(create_app(config)) as client:
        for name in ("../club", "club/x", "..", 7):
            answer = client.post("/api/tables", json={"voice_pack": name}, headers=admin)
            assert answer.status_code == 400
            assert answer.json()["error"] == "bad_voice_pack"
        assert client.get("/api/tables", headers=admin).json() == []
        made = client.post("/api/tables", json={"voice_pack": "club"}, headers=admin)
        assert made.status_code == 201
        info = client.get(f"/api/tables/{made.json()['id']}", headers=admin).json()
        assert info["settings"]["voice_pack"] == "club"
