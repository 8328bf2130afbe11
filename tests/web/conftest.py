"""A real app (starlette TestClient, real engine, SQLite log in tmp); the WebSocket client is
testing.Client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plugin.web.app import ServerConfig, create_app
from testing import TestClient

SECRET = b"test-secret-0123456789abcdef0123"
ADMIN = "admin-key-for-tests"
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}


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
