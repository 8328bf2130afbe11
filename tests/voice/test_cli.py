"""`autohost say` and `autohost phrases`, run as the command a club member runs."""

from __future__ import annotations

import shutil
import wave
from pathlib import Path

import numpy as np
import pytest

from plugin import paths
from voice import audio

from .conftest import LANGUAGES, autohost


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
