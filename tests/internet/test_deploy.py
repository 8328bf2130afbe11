"""What deploy/ ships works: the production configuration parses to a server behind a
trusted proxy with STUN/TURN, the event log backup copies a live server's log, and the
guide's files pass the programs that read them (nginx, Caddy, nft, systemd-analyze), the
coturn certificate hook copies Caddy's and certbot's certificates."""

from __future__ import annotations

import grp
import os
import re
import shutil
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
from testing.certs import self_signed

DEPLOY = ROOT / "deploy"


def test_the_shipped_server_toml_is_a_proxied_server_with_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AUTOHOST_TURN_SECRET", "from-the-env-file")
    options = options_from(merged(parse_args(["--config", str(DEPLOY / "server.toml")])))
    assert options.base_url == "https://mafia.example.org"
    assert options.host == "127.0.0.1" and options.trusted_proxies == ("127.0.0.1", "::1")
    assert len(options.ice.turn) == 2 and options.ice.turn_secret == b"from-the-env-file"
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


# -- the guide's files, checked by the programs that read them (issue 32) ---------------------


def guide_blocks() -> list[str]:
    """Every fenced code block of docs/deploy.md."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_the_guide_never_uses_sudo_nor_carries_the_turn_secret_in_a_variable() -> None:
    """A minimal Debian has no sudo; a variable set in one step is empty in the next shell."""
    blocks = guide_blocks()
    assert blocks
    for block in blocks:
        assert not re.search(r"(^|[;&|(]\s*)sudo\b", block, flags=re.MULTILINE), block
        if "$TURN_SECRET" in block:  # read back from the file in the same block
            assert "TURN_SECRET=$(sed -n 's/^AUTOHOST_TURN_SECRET=//p' /etc/autohost/env)" in block
            assert 'test -n "$TURN_SECRET"' in block


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")
def test_nginx_accepts_the_shipped_site(tmp_path: Path) -> None:
    """Debian 12's nginx 1.22 refused `http2 on;`: the site passes `nginx -t` with this
    machine's nginx, with a test certificate in place of certbot's."""
    cert, key = self_signed(tmp_path / "tls", "mafia.example.org")
    site = (DEPLOY / "nginx.conf").read_text()
    site = site.replace("/etc/letsencrypt/live/mafia.example.org/fullchain.pem", str(cert))
    site = site.replace("/etc/letsencrypt/live/mafia.example.org/privkey.pem", str(key))
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
        "events {}\n"
        f"http {{ access_log off; include {tmp_path}/site.conf; }}\n"
    )
    done = subprocess.run(
        ["nginx", "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


@pytest.mark.skipif(shutil.which("caddy") is None, reason="caddy is not installed")
def test_caddy_accepts_the_shipped_caddyfile(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        ["caddy", "validate", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True, text=True, timeout=60, env=home, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("nft") is None, reason="nftables is not installed")
def test_the_guides_firewall_parses_and_opens_udp_443_for_http3() -> None:
    """Caddy offers HTTP/3 on UDP 443; the guide's ruleset opens it, and nft accepts it
    (`nft -c`: checked, not applied)."""
    (ruleset,) = [b for b in guide_blocks() if "table inet filter" in b]
    assert re.search(r"udp dport \{[^}]*\b443\b", ruleset)
    done = subprocess.run(
        ["nft", "-c", "-f", "-"], input=ruleset, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_analyze_verifies_every_shipped_unit(tmp_path: Path) -> None:
    """Every unit and timer in deploy/, with /opt/autohost pointing at this checkout (whose
    .venv and scripts exist), passes `systemd-analyze verify` without a word."""
    units = sorted(DEPLOY.glob("*.service")) + sorted(DEPLOY.glob("*.timer"))
    assert {u.name for u in units} >= {"autohost.service", "coturn-certificate.timer"}
    for unit in units:
        (tmp_path / unit.name).write_text(unit.read_text().replace("/opt/autohost", str(ROOT)))
    done = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / u.name) for u in units)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stdout + done.stderr
    unit = (DEPLOY / "autohost.service").read_text()
    assert "Environment=HOME=/var/lib/autohost" in unit and "StateDirectory=autohost" in unit


def copy_for_coturn(
    tmp_path: Path, env: dict[str, str], name: str = "mafia.example.org"
) -> subprocess.CompletedProcess[str]:
    """deploy/coturn-certificate.sh NAME DEST; "restarting coturn" adds a line to restarts."""
    restart = tmp_path / "restart-coturn"
    restart.write_text(f"#!/bin/sh\necho restarted >>{tmp_path}/restarts\n")
    restart.chmod(0o755)
    return subprocess.run(
        [str(DEPLOY / "coturn-certificate.sh"), name, str(tmp_path / "coturn")],
        capture_output=True,
        text=True,
        timeout=30,
        env={
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "CADDY_CERTIFICATES": str(tmp_path / "caddy"),
            "COTURN_GROUP": grp.getgrgid(os.getgid()).gr_name,
            "COTURN_RESTART": str(restart),
            **env,
        },
    )


def restarts(tmp_path: Path) -> int:
    log = tmp_path / "restarts"
    return log.read_text().count("restarted") if log.exists() else 0


def test_coturn_gets_caddys_certificate_and_a_renewal_restarts_it_once(tmp_path: Path) -> None:
    name = "mafia.example.org"
    missing = copy_for_coturn(tmp_path, {})
    assert missing.returncode == 1 and "no certificate for mafia.example.org" in missing.stderr
    assert not (tmp_path / "coturn").exists()
    # Caddy's layout: certificates/<issuer>/<name>/<name>.crt and .key
    cert, key = self_signed(tmp_path / "made", name)
    folder = tmp_path / "caddy" / "acme-v02.api.letsencrypt.org-directory" / name
    folder.mkdir(parents=True)
    shutil.copy(cert, folder / f"{name}.crt")
    shutil.copy(key, folder / f"{name}.key")
    done = copy_for_coturn(tmp_path, {})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "coturn" / "fullchain.pem").read_bytes() == cert.read_bytes()
    assert (tmp_path / "coturn" / "privkey.pem").read_bytes() == key.read_bytes()
    assert (tmp_path / "coturn" / "privkey.pem").stat().st_mode & 0o777 == 0o640
    assert restarts(tmp_path) == 1
    assert copy_for_coturn(tmp_path, {}).returncode == 0  # unchanged: no restart
    assert restarts(tmp_path) == 1
    renewed, renewed_key = self_signed(tmp_path / "renewed", name)
    shutil.copy(renewed, folder / f"{name}.crt")
    shutil.copy(renewed_key, folder / f"{name}.key")
    assert copy_for_coturn(tmp_path, {}).returncode == 0
    assert (tmp_path / "coturn" / "fullchain.pem").read_bytes() == renewed.read_bytes()
    assert restarts(tmp_path) == 2


def test_coturn_gets_certbots_certificate_from_its_deploy_hook(tmp_path: Path) -> None:
    lineage = tmp_path / "letsencrypt" / "live" / "mafia.example.org"
    cert, key = self_signed(lineage, "mafia.example.org")
    cert.rename(lineage / "fullchain.pem")
    key.rename(lineage / "privkey.pem")
    done = copy_for_coturn(tmp_path, {"RENEWED_LINEAGE": str(lineage)})  # as certbot sets it
    assert done.returncode == 0, done.stderr
    copied = (tmp_path / "coturn" / "fullchain.pem").read_bytes()
    assert copied == (lineage / "fullchain.pem").read_bytes()
    assert restarts(tmp_path) == 1


def test_the_shipped_server_toml_offers_turns_only_once_the_guide_enables_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """coturn without its certificate runs with TLS off: the shipped file offers no `turns:`
    until the guide's step 5 uncomments it, after the certificate is copied."""
    monkeypatch.setenv("AUTOHOST_TURN_SECRET", "from-the-env-file")
    before = options_from(merged(parse_args(["--config", str(DEPLOY / "server.toml")])))
    assert not any(url.startswith("turns:") for url in before.ice.turn)
    (enable,) = [line for b in guide_blocks() for line in b.splitlines() if '"turns:' in line]
    config = tmp_path / "server.toml"
    shutil.copy(DEPLOY / "server.toml", config)
    command = enable.replace("/etc/autohost/server.toml", str(config))
    subprocess.run(command, shell=True, check=True, timeout=10)
    after = options_from(merged(parse_args(["--config", str(config)])))
    assert [u for u in after.ice.turn if u.startswith("turns:")] == [
        "turns:mafia.example.org:5349?transport=tcp"
    ]
