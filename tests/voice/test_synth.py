"""Synthesis with the real espeak-ng: audible phrases, 48 kHz, caches that are really hit."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from voice import audio, synth
from voice.phrases import ANNOUNCEMENT_KEYS, Catalogue, VoiceSpec
from voice.synth import EspeakMissing, SynthesisError, Synthesizer, require_espeak

from .conftest import LANGUAGES, TABLE, sample

RMS_FLOOR = 500.0  # espeak speech measures 2000-3000 RMS; silence measures 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_renders_audible_speech_of_plausible_length(
    lang: str, prerendered: Synthesizer
) -> None:
    catalogue = Catalogue.load(lang)
    for key in ANNOUNCEMENT_KEYS:
        pcm = prerendered.phrase(catalogue, key, sample(key))
        seconds = len(pcm) / audio.SAMPLE_RATE
        assert pcm.dtype == np.int16
        assert 0.2 < seconds < 15, (key, seconds)
        assert audio.rms(pcm) > RMS_FLOOR, key


def test_output_is_48khz(fresh: Synthesizer) -> None:
    """A resampled 440 Hz tone is still 440 Hz when read at 48 kHz."""
    rate = 22_050
    t = np.arange(rate) / rate
    tone = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    out = audio.resample(tone, rate)
    assert abs(len(out) - audio.SAMPLE_RATE) < 100
    spectrum = np.abs(np.fft.rfft(out.astype(np.float64)))
    peak = np.argmax(spectrum) * audio.SAMPLE_RATE / len(out)
    assert abs(peak - 440) < 2


def test_same_length_as_espeak_itself(fresh: Synthesizer, tmp_path: Path) -> None:
    """Our render lasts as long as espeak-ng's own WAV of the text (same voice and rate)."""
    import subprocess
    import wave

    text = "Город засыпает."
    out = tmp_path / "espeak.wav"
    subprocess.run(["espeak-ng", "-v", "zle/ru", "-s", "165", "-w", str(out), text], check=True)
    with wave.open(str(out)) as wav:
        raw = np.frombuffer(wav.readframes(wav.getnframes()), "<i2")
        theirs = len(audio.trim(audio.resample(raw, wav.getframerate())))
    (ours,) = fresh.render([text], VoiceSpec(name="zle/ru", rate=165))
    assert abs(len(ours) - theirs) < 0.05 * theirs


def test_memory_cache_is_hit_on_the_second_render(fresh: Synthesizer) -> None:
    voice = VoiceSpec(name="zle/uk", rate=165)
    first = fresh.render(["Місто засинає."], voice)[0]
    assert fresh.synth_calls == 1
    second = fresh.render(["Місто засинає."], voice)[0]
    assert fresh.synth_calls == 1
    assert second is first


def test_disk_cache_is_hit_by_a_new_process_worth_of_state(fresh: Synthesizer) -> None:
    voice = VoiceSpec(name="gmw/en", rate=165)
    first = fresh.render(["The town wakes up."], voice)[0]
    again = Synthesizer(fresh.cache_dir)
    (second,) = again.render(["The town wakes up."], voice)
    assert (again.synth_calls, again.disk_hits) == (0, 1)
    assert np.array_equal(first, second)


def test_cache_key_includes_voice_and_rate(fresh: Synthesizer) -> None:
    fresh.render(["Ten seconds."], VoiceSpec(name="gmw/en", rate=165))
    fresh.render(["Ten seconds."], VoiceSpec(name="gmw/en", rate=200))
    fresh.render(["Ten seconds."], VoiceSpec(name="gmw/en-us", rate=165))
    assert fresh.synth_calls == 3
    assert len(list(fresh.cache_dir.glob("*.pcm"))) == 3


def test_a_damaged_cache_file_is_rendered_again(fresh: Synthesizer) -> None:
    voice = VoiceSpec(name="zle/ru", rate=165)
    fresh.render(["Пауза."], voice)
    (path,) = fresh.cache_dir.glob("*.pcm")
    path.write_bytes(b"")
    again = Synthesizer(fresh.cache_dir)
    (pcm,) = again.render(["Пауза."], voice)
    assert again.synth_calls == 1
    assert audio.rms(pcm) > RMS_FLOOR


def test_prerender_leaves_nothing_to_synthesise(fresh: Synthesizer) -> None:
    catalogue = Catalogue.load("uk")
    rendered = fresh.prerender(catalogue, TABLE)
    assert rendered == fresh.synth_calls > 40
    for key in ANNOUNCEMENT_KEYS:
        fresh.phrase(catalogue, key, sample(key))
    fresh.phrase(catalogue, "tie.revote", {"seats": [1, 10, 4, 6]})
    fresh.phrase(catalogue, "nomination", {"seat": 10, "target": 1})
    assert fresh.synth_calls == rendered


def test_module_prerender_uses_the_language_catalogue(fresh: Synthesizer) -> None:
    assert synth.prerender("en", [1, 2], synthesizer=fresh) == fresh.synth_calls > 0


def test_unknown_voice_is_a_clear_error(fresh: Synthesizer) -> None:
    with pytest.raises(SynthesisError, match="no voice 'xx/none'"):
        fresh.render(["hello"], VoiceSpec(name="xx/none", rate=165))


def test_rendering_prints_nothing(fresh: Synthesizer, capfd: pytest.CaptureFixture[str]) -> None:
    fresh.render(["Спасибо.", "Принято."], VoiceSpec(name="zle/ru", rate=165))
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_missing_espeak_names_the_debian_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(EspeakMissing, match=r"Debian package 'espeak-ng'.*apt-get install"):
        require_espeak()
