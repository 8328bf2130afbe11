"""What deploy/ ships works: the production configuration parses to a server behind a
trusted proxy with STUN/TURN, and the event log backup copies a live server's log."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from plugin.cli.serve import parse_args
from plugin.paths import ROOT
from plugin.server.config import merged, options_from
from testing import ServerProcess

DEPLOY = ROOT / "deploy"


def test_the_shipped_server_toml_is_a_proxied_server_with_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AUTOHOST_TURN_SECRET", "from-the-env-file")
    options = options_from(merged(parse_args(["--config", str(DEPLOY / "server.toml")])))
    assert options.base_url == "https://mafia.example.org"
    assert options.host == "127.0.0.1" and options.trusted_proxies == ("127.0.0.1", "::1")
    assert len(options.ice.turn) == 3 and options.ice.turn_secret == b"from-the-env-file"
    assert options.udp_ports == (50000, 50199)


def test_the_unit_runs_serve_with_the_config() -> None:
    unit = (DEPLOY / "autohost.service").read_text()
    assert "autohost serve --config /etc/autohost/server.toml" in unit
    assert "KillSignal=SIGTERM" in unit


@pytest.mark.slow
def test_the_backup_copies_the_log_of_a_running_server(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with ServerProcess(db, options=["--no-voice"]) as server:
        made = httpx.post(
            f"{server.base}/api/tables",
            json={"seats": 10},
            timeout=30,
            headers={"Authorization": f"Bearer {server.admin_key}"},
        )
        assert made.status_code == 201, made.text
        done = subprocess.run(
            [str(DEPLOY / "backup-event-log.sh"), str(db), str(tmp_path / "backups")],
            env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    copy = Path(done.stdout.strip())
    with sqlite3.connect(copy) as backup, sqlite3.connect(db) as live:
        count = "SELECT (SELECT count(*) FROM tables) + (SELECT count(*) FROM events)"
        assert backup.execute(count).fetchone()[0] == live.execute(count).fetchone()[0] > 0
