"""`autohost livekit`: refuses to start without credentials; with the real server, the bot
joins the room, /livekit/token mints a seat's token from its link, SIGINT stops it."""

from __future__ import annotations

import json
import signal

import httpx
import pytest
from livekit import api

from plugin.cli.livekit import main
from plugin.rooms.livekit.tokens import verify_seat
from testing import AutohostProcess
from testing.livekit_server import API_KEY, API_SECRET


def test_missing_credentials_are_named(monkeypatch, capsys):
    for name in ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LIVEKIT_URL", "ws://127.0.0.1:1")
    assert main(["--room", "r"]) == 2
    error = capsys.readouterr().err
    assert "LIVEKIT_API_KEY" in error and "LIVEKIT_API_SECRET" in error
    assert "LIVEKIT_URL," not in error


@pytest.mark.livekit
async def test_the_bot_joins_and_tokens_are_minted(livekit_server, tmp_path):
    env = dict(LIVEKIT_URL=livekit_server.ws_url, LIVEKIT_API_KEY=API_KEY,
               LIVEKIT_API_SECRET=API_SECRET, AUTOHOST_ADMIN_KEY="admin-test")  # fmt: skip
    process = AutohostProcess(
        ["livekit", "--room", "cli-room", "--port", "0",
         "--db", str(tmp_path / "autohost.db"), "--no-voice", "--seats", "10"],
        env=env, ready="listening on",
    )  # fmt: skip
    process.start(timeout=30)
    try:
        listening = process.wait_for("listening on")
        assert "listening on" in listening, listening
        url = listening.split("listening on ")[1].split()[0]
        links = json.loads(process.wait_for('"seats":', timeout=30))  # the line after it
        async with api.LiveKitAPI(livekit_server.ws_url, API_KEY, API_SECRET,
                                  failover=False) as lkapi:  # fmt: skip
            listed = await lkapi.room.list_participants(
                api.ListParticipantsRequest(room="cli-room")
            )
            assert "autohost-bot" in {p.identity for p in listed.participants}
        async with httpx.AsyncClient() as client:
            seat3 = links["seats"][2]["token"]
            answer = await client.post(f"{url}/livekit/token", json={"link": seat3})
            assert answer.status_code == 200, answer.text
            minted = answer.json()
            assert minted["room"] == "cli-room" and minted["url"] == livekit_server.ws_url
            verifier = api.TokenVerifier(API_KEY, API_SECRET)
            assert verify_seat(verifier, minted["token"], room="cli-room") == 3
            forged = await client.post(f"{url}/livekit/token", json={"link": seat3 + "x"})
            assert forged.status_code == 401
    finally:
        code = process.stop(timeout=30, sig=signal.SIGINT)
    assert code == 0  # its stderr is in the test's captured output


def test_table_new_stores_the_livekit_room_with_the_table(tmp_path, capsys):
    from plugin.cli.table import main as table_main
    from plugin.eventlog import open_log
    from plugin.host.settings import SettingsError, TableSettings

    db = tmp_path / "autohost.db"
    assert table_main(["new", "--seats", "7", "--livekit-room", "club-hall", "--db", str(db),
                       "--json"]) == 0  # fmt: skip
    table_id = json.loads(capsys.readouterr().out)["id"]
    log = open_log(db)
    try:
        record = log.table_settings(table_id)
    finally:
        log.close()
    assert record is not None and record["livekit_room"] == "club-hall"
    assert TableSettings.from_record(record).livekit_room == "club-hall"
    old = {"preset": "online", "language": "uk", "seats": 7, "seed": 1}  # before the field
    assert TableSettings.from_record(old).livekit_room is None
    assert "livekit_room" not in TableSettings.from_record(old).to_record()
    for bad in ("", " padded", "x" * 129, 7, "line\nbreak"):
        with pytest.raises(SettingsError):
            TableSettings.from_record({**old, "livekit_room": bad})
