"""A real app (starlette TestClient, real engine, SQLite log in tmp) and WebSocket helpers."""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Starlette 1.10 warns at import that its TestClient should use httpx2 (not installed; the
# project pins httpx). Only that one warning is silenced, only for this import.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from plugin.web.app import ServerConfig, create_app

SECRET = b"test-secret-0123456789abcdef0123"
ADMIN = "admin-key-for-tests"
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}
_ids = itertools.count(1)


def next_id() -> str:
    return f"m{next(_ids)}"


class Client:
    """One WebSocket client: sends protocol messages, remembers the last state it got."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: dict[str, Any] | None = None

    def receive(self) -> dict[str, Any]:
        message = json.loads(self.ws.receive_text())
        if message["type"] == "state":
            self.state = message
        return message

    def request(self, type: str, id: str | None = None, **fields: Any) -> dict[str, Any]:
        """Send one message and return its ack or error (states before it are kept)."""
        id = id or next_id()
        self.ws.send_text(json.dumps({"v": 1, "id": id, "type": type, **fields}))
        return self.reply_to(id)

    def send_raw(self, text: str) -> dict[str, Any]:
        self.ws.send_text(text)
        while True:
            message = self.receive()
            if message["type"] != "state":
                return message

    def reply_to(self, id: str) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message["type"] in ("ack", "error") and message["id"] == id:
                return message

    def wait_version(self, version: int) -> dict[str, Any]:
        """Read states until one is at least this table version."""
        while self.state is None or self.state["table"]["version"] < version:
            self.receive()
        return self.state


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    config = ServerConfig(db_path=tmp_path / "autohost.db", admin_key=ADMIN, secret=SECRET)
    with TestClient(create_app(config)) as client:
        yield client


def create_table(client: TestClient, **settings: Any) -> dict[str, Any]:
    body = {"preset": "online", "language": "uk", "seats": 10, "roles": ROLES, **settings}
    answer = client.post("/api/tables", json=body, headers={"Authorization": f"Bearer {ADMIN}"})
    assert answer.status_code == 201, answer.text
    return answer.json()


def token_of(links: dict[str, Any], who: int | str) -> str:
    if who == "host":
        return links["host"]["token"]
    return links["seats"][int(who) - 1]["token"]
