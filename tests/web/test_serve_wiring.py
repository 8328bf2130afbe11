"""`autohost serve` is a whole server: a table it creates has its player and host pages,
its WebRTC offer route and its video signalling, not only the control protocol."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from testing import ServerProcess

pytestmark = pytest.mark.slow


def test_serve_mounts_pages_rtc_and_video(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "log.db", admin_key="k", secret="s" * 32,
                           options=["--no-voice"])  # fmt: skip
    server.start()
    try:
        base = server.base
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
        assert server.stop(timeout=20) == 0
