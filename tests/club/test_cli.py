"""`autohost player` (issue 33): the roster from the command line, in the same log the server
reads; a refusal is one line on stderr, status 1, and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plugin.cli import main
from plugin.club import Club
from plugin.eventlog import EventLog, open_log
from plugin.signing import Signer, load_secret, secret_path_for


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["player", *args])
    out, err = capsys.readouterr()
    return status, out.strip(), err.strip()


def test_add_grant_link_revoke_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "club.db")
    assert run(capsys, "add", "Ann", "--city", "Lviv", "--db", db) == (0, "added Ann (p1)", "")
    status, _, err = run(capsys, "add", "ANN", "--db", db)
    assert status == 1 and "already taken" in err
    status, _, err = run(capsys, "link", "Ann", "--kind", "judge", "--db", db)
    assert status == 1 and "not a club judge" in err
    assert run(capsys, "grant", "Ann", "judge", "--db", db)[:2] == (0, "Ann: judge")
    status, url, _ = run(capsys, "link", "Ann", "--kind", "judge", "--db", db, "--base-url",
                         "https://club.example")  # fmt: skip
    assert status == 0 and url.startswith("https://club.example/club/me#token=")
    token = url.partition("#token=")[2]
    log = open_log(db)
    assert isinstance(log, EventLog)
    club = Club(log, Signer(load_secret(secret_path_for(Path(db)))))
    assert club.person(token).kind == "judge"
    assert run(capsys, "revoke", "Ann", "--kind", "judge", "--db", db)[0] == 0
    with pytest.raises(Exception, match="revoked"):
        club.person(token)
    log.close()
    status, out, _ = run(capsys, "list", "--json", "--db", db)
    assert status == 0
    assert json.loads(out) == [{"id": "p1", "nick": "Ann", "name": "", "city": "Lviv",
                                "club": "", "roles": ["judge"]}]  # fmt: skip
