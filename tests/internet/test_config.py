"""`autohost serve --config FILE`: every flag settable in the file, the flag winning, unknown
keys and bad files refused (exit 2) with a message naming what is wrong, and the shipped
example starting on a fresh clone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from plugin.cli.serve import main, parse_args
from plugin.paths import ROOT
from plugin.server.config import SETTINGS, ConfigError, merged, options_from
from testing import AutohostProcess, free_port

EXAMPLE = ROOT / "config" / "server.example.toml"


def options(*argv: str):  # type: ignore[no-untyped-def]
    return options_from(merged(parse_args(list(argv))))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "server.toml"
    path.write_text(text)
    return path


def test_the_file_sets_every_kind_of_setting_and_a_flag_wins(tmp_path: Path) -> None:
    secret = tmp_path / "turn-secret"
    secret.write_text("s3cret\n")
    admin = tmp_path / "admin-key"
    admin.write_text("from-file\n")
    config = write(
        tmp_path,
        f"""
host = "0.0.0.0"
port = 8443
db = "{tmp_path}/log.db"
base_url = "https://mafia.example.org/"
voice = false
admin_key_file = "{admin}"
[proxy]
trusted = ["127.0.0.1", "::1"]
[ice]
stun = ["stun:turn.example.org:3478"]
turn = ["turn:turn.example.org:3478?transport=udp"]
turn_secret_file = "{secret}"
turn_ttl = 600
policy = "relay"
[rtc]
udp_ports = "50000-50099"
""",
    )
    got = options("--config", str(config))
    assert (got.host, got.port, got.db) == ("0.0.0.0", 8443, tmp_path / "log.db")
    assert got.base_url == "https://mafia.example.org"
    assert got.voice is False and got.admin_key == "from-file"
    assert got.trusted_proxies == ("127.0.0.1", "::1")
    assert got.ice.stun == ("stun:turn.example.org:3478",)
    assert got.ice.turn_secret == b"s3cret" and got.ice.turn_ttl == 600
    assert got.ice.policy == "relay" and got.udp_ports == (50000, 50099)

    flagged = options(
        "--config",
        str(config),
        "--port",
        "9000",
        "--ice-policy",
        "all",
        "--rtc-udp-ports",
        "40000-40010",
    )
    assert (flagged.port, flagged.ice.policy, flagged.udp_ports) == (9000, "all", (40000, 40010))
    assert flagged.host == "0.0.0.0"


def test_every_setting_has_a_flag_and_the_old_flags_still_work() -> None:
    flags = {setting.flag for setting in SETTINGS if setting.flag_type is not None}
    assert {"--host", "--port", "--db", "--admin-key-file", "--base-url", "--room"} <= flags
    # The key itself is never a flag: every local user can read a process's arguments.
    assert "--admin-key" not in flags
    got = options("--port", "0", "--room", "none", "--no-voice", "--base-url", "http://x")
    assert (got.port, got.media, got.voice, got.base_url) == (0, "none", False, "http://x")
    assert got.ice.stun == () and got.tls_cert is None and got.trusted_proxies == ()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("prot = 8000\n", "'prot'"),
        ("[tls]\ncertificate = 'x'\n", "'tls.certificate'"),
        ("[ice]\nstun = 3478\n", "ice.stun"),
        ("port = '8000'\n", "port must be a int"),
        ("port = \n", "not valid TOML"),
        ("[rtc]\nudp_ports = '50000'\n", "rtc.udp_ports"),
        (
            "[ice]\nturn = ['turn:t:3478']\nturn_secret_env = 'AUTOHOST_TEST_NO_SUCH'\n",
            "no TURN shared secret",
        ),
        ("[ice]\nstun = ['http://x']\n", "not a STUN URL"),
        ("[tls]\ncert = 'no/such.pem'\n", "both the certificate and its key"),
        ("[tls]\ncert = 'no/such.pem'\nkey = 'no/such.key'\n", "does not exist"),
    ],
)
def test_a_bad_file_is_refused_naming_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, named: str
) -> None:
    config = write(tmp_path, text)
    with pytest.raises(ConfigError, match=named.replace("[", r"\[")):
        options("--config", str(config))
    assert main(["--config", str(config)]) == 2
    assert named in capsys.readouterr().err


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(tmp_path / "nope.toml")]) == 2
    assert "no such configuration file" in capsys.readouterr().err


def test_the_turn_secret_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTOHOST_TURN_SECRET", "from-env")
    got = options("--ice-turn", "turn:127.0.0.1:3478?transport=udp")
    assert got.ice.turn_secret == b"from-env"


def test_the_example_parses_to_the_defaults() -> None:
    got = options("--config", str(EXAMPLE))
    assert (got.host, got.port, got.media, got.voice) == ("127.0.0.1", 8000, "embedded", True)
    assert got.ice.stun == () and got.ice.turn == () and got.tls_cert is None


@pytest.mark.slow
def test_serve_starts_with_the_example(tmp_path: Path) -> None:
    port = free_port()
    server = AutohostProcess(
        [
            "serve",
            "--config",
            str(EXAMPLE.relative_to(ROOT)),
            "--port",
            str(port),
            "--db",
            str(tmp_path / "log.db"),
            "--no-voice",
        ],
        env={"AUTOHOST_SECRET": "x" * 32},
        ready="listening",
    )
    server.start()
    try:
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=30).json()["ok"] is True
    finally:
        assert server.stop(timeout=20) == 0


def test_a_switch_in_the_file_is_overridden_both_ways(tmp_path: Path) -> None:
    silent = write(tmp_path, "voice = false\n")
    assert options("--config", str(silent)).voice is False
    assert options("--config", str(silent), "--voice").voice is True
    assert options("--no-voice").voice is False


def test_serve_refuses_an_empty_admin_key_file_naming_it(tmp_path: Path) -> None:
    """An empty key file must stop the server before it listens (it would have made an
    empty Authorization header the admin key)."""
    (tmp_path / "log.db.admin-key").write_text("")
    env = {k: v for k, v in os.environ.items() if k != "AUTOHOST_ADMIN_KEY"}
    env["AUTOHOST_SECRET"] = "x" * 32
    done = subprocess.run(
        [sys.executable, "-m", "plugin.cli", "serve", "--port", str(free_port()), "--db",
         str(tmp_path / "log.db"), "--no-voice"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "log.db.admin-key is empty" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_connections_per_address_are_a_setting() -> None:
    """A venue's players and spectators share their router's address: a club sets its cap."""
    assert options_from(merged(parse_args([]))).connections_per_address == 256
    chosen = options_from(merged(parse_args(["--proxy-connections-per-address", "1000"])))
    assert chosen.connections_per_address == 1000
