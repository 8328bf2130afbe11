"""`autohost serve` is a whole server: a table it creates has its player and host pages,
its WebRTC offer route and its video signalling, not only the control protocol."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_mounts_pages_rtc_and_video(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "plugin.cli", "serve", "--port", str(port), "--db",
               str(tmp_path / "log.db"), "--admin-key", "k", "--no-voice"]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "AUTOHOST_SECRET": "s" * 32})  # fmt: skip
    try:
        assert server.stdout is not None and "listening" in server.stdout.readline()
        base = f"http://127.0.0.1:{port}"
        created = httpx.post(f"{base}/api/tables", json={"seats": 10},
                             headers={"Authorization": "Bearer k"}, timeout=30)  # fmt: skip
        assert created.status_code in (200, 201), created.text
        links = created.json()
        table = links["id"]
        assert links["seats"][0]["link"].startswith(f"{base}/t/{table}/play#token=")
        page = httpx.get(f"{base}/t/{table}/play", timeout=30)
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert httpx.get(f"{base}/t/{table}/host", timeout=30).status_code == 200
        assert httpx.get(f"{base}/static/video/video.js", timeout=30).status_code == 200
        forged = httpx.post(
            f"{base}/rtc/{table}/offer",
            content=json.dumps({"sdp": "v=0", "type": "offer", "token": "forged"}),
            headers={"Content-Type": "application/json"},
            timeout=30,
        )
        assert forged.status_code == 403
    finally:
        server.terminate()
        assert server.wait(timeout=20) == 0
        if server.stdout is not None:
            server.stdout.close()
