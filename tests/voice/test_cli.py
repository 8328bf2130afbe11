"""`autohost say`, `autohost phrases`, `autohost voice` and `table new --voice-pack`, run
as the command a club member runs."""

from __future__ import annotations

import csv
import io
import json
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest

from plugin import paths
from plugin.eventlog import open_log
from voice import audio
from voice.phrases import SCRIPT_SEATS, Catalogue

from .conftest import LANGUAGES, autohost, make_pack, recording, trimmed, write_wav


def test_say_writes_one_announcement(espeak: None, tmp_path: Path) -> None:
    out = tmp_path / "call.wav"
    done = autohost("say", "--lang", "uk", "vote.call", "seat=7", "--out", str(out), cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "гравець номер сім" in done.stdout
    assert done.stdout.count("\n") == 1 and done.stderr == ""
    with wave.open(str(out)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 48_000)
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), "<i2")
    assert 0.5 < len(pcm) / 48_000 < 15
    assert audio.rms(pcm) > 500
    assert list((tmp_path / "voice").glob("*.pcm"))  # the cache went where it was told


def test_say_takes_a_list_of_seats(espeak: None, tmp_path: Path) -> None:
    out = tmp_path / "revote.wav"
    done = autohost(
        "say", "--lang", "ru", "tie.revote", "seats=2,5", "--out", str(out), cache=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "игроки номер два и пять" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["vote.calll", "seat=7"], "unknown phrase key 'vote.calll'"),
        (["vote.call"], "needs param 'seat'"),
        (["vote.call", "seat=seven"], "param 'seat' must be a number"),
        (["vote.call", "seats=2"], "has no param 'seats'"),
        (["vote.call", "seat"], "expected name=value"),
        (["--lang", "de", "night"], "no phrase catalogue for 'de'"),
    ],
)
def test_say_refuses_bad_input_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x.wav"
    done = autohost("say", *args, "--out", str(out), cache=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.count("\n") == 1
    assert not out.exists()


def test_phrases_check_passes_on_the_shipped_catalogues(tmp_path: Path) -> None:
    done = autohost("phrases", "--check", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "3 languages (en, ru, uk)" in done.stdout


def test_phrases_check_lists_a_gap(tmp_path: Path) -> None:
    catalogues = tmp_path / "phrases"
    catalogues.mkdir()
    for lang in LANGUAGES:
        shutil.copy(paths.PHRASES_DIR / f"{lang}.toml", catalogues / f"{lang}.toml")
    uk = catalogues / "uk.toml"
    text = uk.read_text(encoding="utf-8")
    uk.write_text(text.replace('"night.shot" =', '"night.shoot" ='), encoding="utf-8")
    done = autohost("phrases", "--check", "--dir", str(catalogues), cache=tmp_path)
    assert done.returncode == 1
    assert "uk: missing key 'night.shot'" in done.stderr
    assert "uk: unknown key 'night.shoot'" in done.stderr


def test_phrases_check_reports_a_missing_language(tmp_path: Path) -> None:
    catalogues = tmp_path / "phrases"
    catalogues.mkdir()
    shutil.copy(paths.PHRASES_DIR / "en.toml", catalogues / "en.toml")
    done = autohost("phrases", "--dir", str(catalogues), cache=tmp_path)
    assert done.returncode == 1
    assert "no phrase catalogue for 'ru'" in done.stderr


# -- autohost voice ---------------------------------------------------------------------


def test_voice_script_lists_every_fragment_in_each_format(tmp_path: Path) -> None:
    script = Catalogue.load("uk").script(SCRIPT_SEATS)
    text = autohost("voice", "script", "--lang", "uk", cache=tmp_path)
    assert text.returncode == 0, text.stderr
    lines = [line for line in text.stdout.splitlines() if not line.startswith("#")]
    assert [line.split(maxsplit=1) for line in lines] == [
        [f"{line.key}.wav", line.reading] for line in script
    ]
    assert 'lang = "uk"' in text.stdout
    table = autohost("voice", "script", "--lang", "uk", "--format", "csv", cache=tmp_path)
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert [(r["file"], r["text"]) for r in rows] == [(f"{s.key}.wav", s.reading) for s in script]
    assert rows[0].keys() == {"file", "text", "used_in", "example"}
    doc = json.loads(autohost("voice", "script", "--lang", "uk", "--format", "json",
                              cache=tmp_path).stdout)  # fmt: skip
    assert (doc["lang"], doc["seats"], len(doc["fragments"])) == ("uk", 12, len(script))
    assert doc["fragments"][2] == {
        "file": "vote.call.1.wav",
        "key": "vote.call.1",
        "text": "Хто за те, щоб нашу гру покинув",
        "used_in": ["vote.call"],
        "example": "Хто за те, щоб нашу гру покинув гравець номер сім?",
    }


def test_voice_script_for_smaller_tables(tmp_path: Path) -> None:
    done = autohost("voice", "script", "--lang", "en", "--seats", "10", cache=tmp_path)
    assert "seat.nom.10.wav" in done.stdout and "seat.nom.11.wav" not in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["script", "--lang", "de"], "no phrase catalogue for 'de'"),
        (["script"], "the following arguments are required: --lang"),
        (["script", "--lang", "uk", "--format", "xml"], "invalid choice: 'xml'"),
        (["script", "--lang", "uk", "--seats", "13"], "--seats must be 1..12, not 13"),
        (["check"], "the following arguments are required: pack"),
        (["shout"], "invalid choice: 'shout'"),
    ],
)
def test_voice_refuses_bad_input_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    done = autohost("voice", *args, cache=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1


def test_voice_check_a_complete_pack(tmp_path: Path) -> None:
    keys = [line.key for line in Catalogue.load("en").script(SCRIPT_SEATS)]
    folder = make_pack(tmp_path / "anna", "en", keys, rate=16_000)
    done = autohost("voice", "check", str(folder), cache=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(keys)} of {len(keys)} fragments recorded" in done.stdout
    assert "complete: every fragment is recorded and usable" in done.stdout


def test_voice_check_lists_what_is_missing_and_unusable(tmp_path: Path) -> None:
    script = Catalogue.load("uk").script(SCRIPT_SEATS)
    folder = make_pack(
        tmp_path / "voices" / "club", "uk", [s.key for s in script if s.key != "seat.acc.7"]
    )
    write_wav(folder / "night.wav", recording("night"), 48_000, bits=32, format_code=3)
    (folder / "nigth.wav").write_bytes((folder / "morning.wav").read_bytes())
    done = autohost("voice", "check", "club", cache=tmp_path,
                    env={"AUTOHOST_VOICES": str(tmp_path / "voices")})  # fmt: skip
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert f"{len(script) - 1} of {len(script)} fragments recorded" in lines[0]
    assert lines[1:] == [
        "missing   seat.acc.7.wav           гравця номер сім",
        "unusable  night.wav                is 32-bit float, not PCM: export it as 16-bit PCM WAV",
        "unknown   nigth.wav                no such fragment (autohost voice script --lang uk)",
        "incomplete: 1 missing, 1 unusable, 0 changed",
    ]


@pytest.mark.parametrize(
    ("manifest", "message"),
    [(None, "has no pack.toml"), ('lang = "de"', "no phrase catalogue for 'de'")],
)
def test_voice_check_a_folder_that_is_not_a_pack(
    tmp_path: Path, manifest: str | None, message: str
) -> None:
    folder = tmp_path / "recordings"
    folder.mkdir()
    if manifest:
        (folder / "pack.toml").write_text(manifest)
    done = autohost("voice", "check", str(folder), cache=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1
    missing = autohost("voice", "check", "nobody", cache=tmp_path,
                       env={"AUTOHOST_VOICES": str(tmp_path)})  # fmt: skip
    assert missing.returncode == 2 and "no voice pack 'nobody'" in missing.stderr


def test_say_with_a_pack_says_the_recording(espeak: None, tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "club", "uk", ["night"])
    out = tmp_path / "night.wav"
    done = autohost("say", "--lang", "uk", "--pack", str(folder), "night", "--out", str(out),
                    cache=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    with wave.open(str(out)) as wav:
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), "<i2")
    tail = audio.SAMPLE_RATE * audio.TAIL_MS // 1000
    assert np.array_equal(pcm, np.concatenate([trimmed(recording("night")), np.zeros(tail)]))
    wrong = autohost("say", "--lang", "ru", "--pack", str(folder), "night", "--out", str(out),
                     cache=tmp_path)  # fmt: skip
    assert wrong.returncode == 2 and "is in 'uk', not 'ru'" in wrong.stderr


# -- autohost table new --voice-pack ----------------------------------------------------


def test_table_new_with_a_voice_pack(tmp_path: Path) -> None:
    make_pack(tmp_path / "voices" / "club", "uk", ["night"])
    env = {"AUTOHOST_VOICES": str(tmp_path / "voices")}
    db = tmp_path / "autohost.db"
    done = autohost("table", "new", "--db", str(db), "--voice-pack", "club", "--json",
                    cache=tmp_path, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)["id"]
    log = open_log(db)
    try:
        assert log.table_settings(table)["voice_pack"] == "club"  # type: ignore[index]
    finally:
        log.close()


@pytest.mark.parametrize(
    ("name", "lang", "message"),
    [
        ("club", "ru", "voice pack 'club' is recorded in 'uk', but the table speaks 'ru'"),
        ("kyiv", "uk", "no voice pack 'kyiv' in"),
        ("../voices/club", "uk", "voice_pack must be a voice pack's folder name"),
        ("club/..", "uk", "voice_pack must be a voice pack's folder name"),
    ],
)
def test_table_new_refuses_a_pack_it_cannot_use_and_writes_nothing(
    tmp_path: Path, name: str, lang: str, message: str
) -> None:
    make_pack(tmp_path / "voices" / "club", "uk", ["night"])
    db = tmp_path / "autohost.db"
    done = autohost("table", "new", "--db", str(db), "--lang", lang, "--voice-pack", name,
                    cache=tmp_path, env={"AUTOHOST_VOICES": str(tmp_path / "voices")})  # fmt: skip
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1
    assert not db.exists()
