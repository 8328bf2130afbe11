"""POST /api/tables refuses rule overrides out of range with the engine's message."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from .conftest import ADMIN


@pytest.mark.parametrize(
    ("overrides", "setting"),
    [
        ({"defense_seconds": int("9" * 400)}, "defense_seconds"),
        ({"defense_seconds": [30]}, "defense_seconds"),
        ({"defense_seconds": 3601}, "defense_seconds"),
        ({"read_candidates_times": 10**9}, "read_candidates_times"),
        ({"tie_dialog_options": ["speeches", "dance"]}, "tie_dialog_options"),
        ({"voting_mode": "shouting"}, "voting_mode"),
    ],
)
def test_rule_overrides_are_bounded(app_client: TestClient, overrides, setting: str) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    answer = app_client.post("/api/tables", json={"overrides": overrides}, headers=admin)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_setting" and setting in answer.json()["message"]
    assert app_client.get("/api/tables", headers=admin).json() == []


def test_non_finite_numbers_in_the_body_are_refused(app_client: TestClient) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    for literal in ("NaN", "Infinity", "1e999"):
        body = b'{"overrides": {"defense_seconds": ' + literal.encode() + b"}}"
        answer = app_client.post("/api/tables", content=body, headers=admin)
        assert answer.status_code == 400, (literal, answer.text)
    assert app_client.get("/api/tables", headers=admin).json() == []


def test_a_seat_written_with_a_non_ascii_digit_is_refused(app_client: TestClient) -> None:
    """Bug: {"roles": {"²": "don"}} passed isdigit() and int() raised: a 500, not a 400."""
    admin = {"Authorization": f"Bearer {ADMIN}"}
    answer = app_client.post("/api/tables", json={"roles": {"²": "don"}}, headers=admin)
    assert answer.status_code == 400 and answer.json()["error"] == "bad_roles"
    assert app_client.get("/api/tables", headers=admin).json() == []
