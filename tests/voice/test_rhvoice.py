"""RHVoice through our binding, the engine choice and the espeak-ng fallback: real RHVoice
(skipped, naming the Debian packages, where it is not installed), real espeak-ng."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from num2words import num2words  # type: ignore[import-untyped]

from testing import bound_by_permissions
from voice import audio, engines
from voice.engines import FREE_VOICES, VoiceChoiceError, choose
from voice.phrases import ANNOUNCEMENT_KEYS, Catalogue, VoiceSpec
from voice.rhvoice import Engine, RHVoiceError
from voice.synth import SynthesisError, Synthesizer, rhvoice_engine

from .conftest import LANGUAGES, autohost, sample

RMS_FLOOR = 500.0
FALLBACK_LINE = "RHVoice is not available"
NOWHERE = {"AUTOHOST_RHVOICE_LIBRARY": "/nonexistent/libRHVoice.so.5"}


@pytest.fixture(scope="module")
def rhvoice(espeak: None) -> Engine:
    engine = rhvoice_engine()
    if isinstance(engine, Exception):
        pytest.skip(str(engine))
    return engine


def test_the_binding_gives_24khz_speech_of_plausible_length(rhvoice: Engine) -> None:
    pcm, rate = rhvoice.render("Нічия. Кандидати говорять ще раз.", "natalia")
    assert rate == 24_000
    assert pcm.dtype == np.int16
    assert 1.0 < len(pcm) / rate < 5.0
    assert audio.rms(pcm) > RMS_FLOOR
    again, _ = rhvoice.render("Нічия. Кандидати говорять ще раз.", "natalia")
    assert np.array_equal(pcm, again)  # deterministic: the cache may keep it


def test_an_unknown_voice_is_refused_not_replaced(rhvoice: Engine, fresh: Synthesizer) -> None:
    with pytest.raises(RHVoiceError, match="no voice 'nobody'"):
        rhvoice.render("Привет.", "nobody")
    with pytest.raises(SynthesisError, match="no voice 'nobody'"):
        fresh.render(["Привет."], VoiceSpec(name="nobody", rate=100, engine="rhvoice"))


def test_rhvoice_is_the_default_where_installed(rhvoice: Engine) -> None:
    for lang in LANGUAGES:
        voice = choose(Catalogue.load(lang)).voice
        assert voice.engine == "rhvoice"
        assert FREE_VOICES[voice.name][0] == lang
        assert rhvoice.has(voice.name)


def test_voices_with_nd_or_nc_licences_are_refused(rhvoice: Engine) -> None:
    assert rhvoice.has("marianna")  # installed by Debian's rhvoice-ukrainian ...
    for name, lang in (("marianna", "uk"), ("volodymyr", "uk"), ("tatiana", "ru")):
        with pytest.raises(VoiceChoiceError, match="not one a club may use freely"):
            choose(Catalogue.load(lang), "rhvoice", name)  # ... and never used
    with pytest.raises(VoiceChoiceError, match="speaks 'uk', not 'ru'"):
        choose(Catalogue.load("ru"), "rhvoice", "anatol")
    with pytest.raises(VoiceChoiceError, match="unknown voice engine"):
        choose(Catalogue.load("ru"), "festival")


def test_a_free_voice_can_be_chosen_per_table(rhvoice: Engine, fresh: Synthesizer) -> None:
    natalia = choose(Catalogue.load("uk"), "rhvoice", "natalia")
    anatol = choose(Catalogue.load("uk"), "rhvoice", "anatol")
    assert natalia.voice == VoiceSpec(name="natalia", rate=100, engine="rhvoice")
    one = fresh.phrase(natalia, "night", {})
    other = fresh.phrase(anatol, "night", {})
    assert not np.array_equal(one[: len(other)], other[: len(one)])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_renders_audibly_with_rhvoice(
    lang: str, rhvoice: Engine, prerendered: Synthesizer
) -> None:
    catalogue = choose(Catalogue.load(lang), "rhvoice")
    for key in ANNOUNCEMENT_KEYS:
        pcm = prerendered.phrase(catalogue, key, sample(key))
        seconds = len(pcm) / audio.SAMPLE_RATE
        assert 0.2 < seconds < 15, (key, seconds)
        assert audio.rms(pcm) > RMS_FLOOR, key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_seat_in_every_form_is_said_and_no_two_alike(
    lang: str, rhvoice: Engine, prerendered: Synthesizer
) -> None:
    """Each seat number (1..12) in each grammatical form is audible speech, and differs from
    every other: a voice that dropped or misread number words would repeat itself."""
    catalogue = choose(Catalogue.load(lang), "rhvoice")
    for table in (catalogue.one, catalogue.many):
        for template in table.values():
            texts = [
                template.replace("{n}", num2words(n, lang=catalogue.numbers)) for n in range(1, 13)
            ]
            pcms = prerendered.render(texts, catalogue.voice)
            for text, pcm in zip(texts, pcms, strict=True):
                assert audio.rms(pcm) > RMS_FLOOR, text
            assert len({pcm.tobytes() for pcm in pcms}) == 12, template


def test_the_engine_is_part_of_the_cache_key(rhvoice: Engine, fresh: Synthesizer) -> None:
    uk = Catalogue.load("uk")
    fresh.render(["Місто засинає."], choose(uk, "espeak").voice)
    fresh.render(["Місто засинає."], choose(uk, "rhvoice").voice)
    assert fresh.synth_calls == 2
    assert len(list(fresh.cache_dir.glob("*.pcm"))) == 2


def test_say_renders_with_the_engine_asked_for(rhvoice: Engine, tmp_path: Path) -> None:
    lengths = {}
    for engine in ("rhvoice", "espeak"):
        out = tmp_path / f"{engine}.wav"
        args = ("say", "--lang", "ru", "tie.speeches", "seats=3,7", "--out", str(out))
        done = autohost(*args, "--engine", engine, cache=tmp_path / "cache")
        assert done.returncode == 0, done.stderr
        voice = choose(Catalogue.load("ru"), engine).voice.name
        assert f"{engine} {voice}:" in done.stdout
        lengths[engine] = out.stat().st_size
    default = autohost("say", "--lang", "ru", "night", "--out", str(tmp_path / "d.wav"),
                       cache=tmp_path / "cache")  # fmt: skip
    assert "rhvoice aleksandr-hq:" in default.stdout
    assert lengths["rhvoice"] != lengths["espeak"]


def test_voice_list_json_names_every_engine_and_the_default(rhvoice: Engine) -> None:
    done = autohost("voice", "list", "--json", cache=Path(os.devnull))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {(r["engine"], r["lang"]) for r in rows} == {
        (e, lang) for e in ("rhvoice", "espeak") for lang in LANGUAGES
    }
    for row in rows:
        assert set(row) == {"engine", "lang", "voice", "default", "licence"}
        assert row["default"] is (row["engine"] == "rhvoice")
        if row["engine"] == "rhvoice":
            assert row["licence"] == FREE_VOICES[row["voice"]][1]


def test_without_rhvoice_the_voice_is_espeak_and_says_so_once(espeak: None, tmp_path: Path) -> None:
    out = tmp_path / "x.wav"
    done = autohost("say", "--lang", "uk", "tie.speeches", "seats=3,7", "--out", str(out),
                    cache=tmp_path / "cache", env=NOWHERE)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "espeak zle/uk:" in done.stdout
    assert done.stderr.count(FALLBACK_LINE) == 1
    assert "librhvoice5" in done.stderr  # what to install
    listed = autohost("voice", "list", "--json", cache=tmp_path / "cache", env=NOWHERE)
    rows = json.loads(listed.stdout)
    assert {r["engine"] for r in rows} == {"espeak"}
    assert all(r["default"] for r in rows)
    assert listed.stderr.count(FALLBACK_LINE) == 1
    asked = autohost("say", "--lang", "uk", "night", "--out", str(out), "--engine", "rhvoice",
                     cache=tmp_path / "cache", env=NOWHERE)  # fmt: skip
    assert asked.returncode == 1
    assert "RHVoice is not installed" in asked.stderr


def test_an_announcer_falls_back_once_in_process(
    espeak: None,
    fresh: Synthesizer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """In one process: RHVoice missing, every table speaks espeak-ng, one log line."""
    from voice import synth

    worker = synth._the_worker()
    monkeypatch.setenv("AUTOHOST_RHVOICE_LIBRARY", "/nonexistent/libRHVoice.so.5")
    monkeypatch.setattr(worker, "rhvoice", None)  # forget the loaded engine, ask again
    monkeypatch.setattr(engines, "_fallback_said", engines.threading.Event())
    for lang in LANGUAGES * 2:
        assert choose(Catalogue.load(lang)).voice.engine == "espeak"
    assert caplog.text.count(FALLBACK_LINE) == 1


@pytest.mark.parametrize("engine", ["rhvoice", "espeak"])
def test_the_voice_writes_nothing_under_home_and_touches_no_sound_server(
    engine: str, espeak: None, tmp_path: Path
) -> None:
    """A server's HOME may be read-only (issue 32: every start under the unit logged "Failed
    to create secure directory (/opt/autohost/.config/pulse)"). libpulse makes ~/.config/pulse
    before it looks for a server, so a writable HOME left empty shows that no PulseAudio
    client started (in the process or in `espeak-ng --version`); under a read-only HOME,
    bound by its permissions even as root, nothing is printed but the result."""
    if engine == "rhvoice" and isinstance(rhvoice_engine(), Exception):
        pytest.skip("RHVoice is not installed")
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith(("PULSE_", "XDG_"))}
    home = tmp_path / "home"
    home.mkdir()
    env["HOME"] = str(home)
    done = autohost("say", "--lang", "ru", "night", "--out", str(tmp_path / "n.wav"),
                    "--engine", engine, cache=tmp_path / "cache", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert list(home.iterdir()) == []
    home.chmod(0o555)
    tmp_path.chmod(0o755)  # so the command can reach its cache and output
    done = autohost("say", "--lang", "ru", "night", "--out", str(tmp_path / "m.wav"),
                    "--engine", engine, cache=tmp_path / "cache2", env=env,
                    prefix=bound_by_permissions())  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "pulse" not in done.stdout.lower()
    # A HOME nobody can create anything under, even root: a path through a file.
    blocked = tmp_path / "file"
    blocked.write_text("")
    env["HOME"] = str(blocked / "home")
    done = autohost("say", "--lang", "ru", "night", "--out", str(tmp_path / "o.wav"),
                    "--engine", engine, cache=tmp_path / "cache3", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


# -- settings: the server's [speech] section and a table's voice ---------------------------


def test_the_server_configuration_chooses_the_engine_and_refuses_a_non_free_voice(
    tmp_path: Path,
) -> None:
    from plugin.cli.serve import parse_args
    from plugin.server.config import ConfigError, merged, options_from

    def options(text: str):  # type: ignore[no-untyped-def]
        path = tmp_path / "server.toml"
        path.write_text(text)
        return options_from(merged(parse_args(["--config", str(path)])))

    chosen = options('[speech]\nengine = "espeak"\nrhvoice_uk = "anatol"\n')
    assert (chosen.voice_engine, chosen.rhvoice_voices) == ("espeak", (("uk", "anatol"),))
    assert options("").voice_engine == "auto"
    with pytest.raises(ConfigError, match="marianna"):
        options('[speech]\nrhvoice_uk = "marianna"\n')
    with pytest.raises(ConfigError, match="speaks 'uk', not 'ru'"):
        options('[speech]\nrhvoice_ru = "natalia"\n')
    with pytest.raises(ConfigError, match=r"speech\.engine"):
        options('[speech]\nengine = "festival"\n')


def test_a_table_speaks_with_its_engine_and_voice(
    rhvoice: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    from plugin.host.settings import SettingsError, TableSettings
    from voice.announcer import Announcer

    settings = TableSettings.from_record(
        {"language": "uk", "voice_engine": "rhvoice", "voice_name": "natalia", "seed": 1}
    )
    assert TableSettings.from_record(settings.to_record()) == settings  # replayed alike
    table = Announcer(settings.language, engine=settings.voice_engine, voice=settings.voice_name)
    assert table.catalogue.voice == VoiceSpec(name="natalia", rate=100, engine="rhvoice")
    assert Announcer("uk", engine="espeak").catalogue.voice.engine == "espeak"
    assert Announcer("uk").catalogue.voice.name == "anatol"
    refused = Announcer("uk", voice="marianna")  # e.g. a log from before the voice was barred
    assert refused.catalogue.voice.name == "anatol"
    assert "not one a club may use freely" in caplog.text
    for bad in ({"voice_engine": "festival"}, {"voice_name": "../x"}, {"voice_name": 3}):
        with pytest.raises(SettingsError, match="voice"):
            TableSettings.from_record({"language": "uk", **bad})


@pytest.mark.parametrize(("lang", "name"), [("ru", "Анна"), ("uk", "Олена"), ("en", "Anna")])
def test_a_players_name_is_said_by_rhvoice(
    lang: str, name: str, rhvoice: Engine, fresh: Synthesizer
) -> None:
    """Seat names are spoken by synthesis only (no pack can hold them): each is audible, and
    the name said three times makes the phrase longer (the name is read, not dropped)."""
    catalogue = choose(Catalogue.load(lang), "rhvoice")
    named = fresh.phrase(catalogue, "speech", {"seat": name})
    longer = fresh.phrase(catalogue, "speech", {"seat": f"{name} {name} {name}"})
    assert audio.rms(named) > RMS_FLOOR
    assert len(longer) > len(named) + 0.3 * audio.SAMPLE_RATE
