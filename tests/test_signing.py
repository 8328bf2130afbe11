"""Signed tokens: genuine ones admit one seat of one table; the rest get distinct codes."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from plugin.signing import (
    BadKeyFile,
    Signer,
    TokenError,
    load_admin_key,
    load_secret,
    table_links,
)

SECRET = b"0123456789abcdef0123456789abcdef"


def test_a_token_grants_its_table_and_seat() -> None:
    signer = Signer(SECRET)
    grant = signer.verify(signer.issue("t1", 7), table="t1")
    assert (grant.table, grant.seat, grant.is_host) == ("t1", 7, False)
    host = signer.verify(signer.issue("t1", "host"))
    assert host.is_host and host.table == "t1"


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda s: s.issue("t1", 3, lifetime=10, now=1000.0), "token_expired"),
        (lambda s: Signer(b"another-secret-of-32-bytes------").issue("t1", 3), "token_forged"),
        (lambda s: s.issue("t2", 3), "token_other_table"),
        (lambda s: "not-a-token", "token_malformed"),
        (lambda s: "", "token_malformed"),
        (lambda s: "x" * 600, "token_malformed"),
    ],
)
def test_refused_tokens_have_distinct_codes(make, code: str) -> None:
    signer = Signer(SECRET)
    with pytest.raises(TokenError) as refusal:
        signer.verify(make(signer), table="t1")
    assert refusal.value.code == code


def test_changing_the_seat_in_the_payload_breaks_the_signature() -> None:
    signer = Signer(SECRET)
    body, signature = signer.issue("t1", 3).split(".")
    payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    forged = payload.replace(b'"s":3', b'"s":"host"')
    assert forged != payload
    forged_body = base64.urlsafe_b64encode(forged).rstrip(b"=").decode()
    with pytest.raises(TokenError) as refusal:
        signer.verify(f"{forged_body}.{signature}")
    assert refusal.value.code == "token_forged"


def test_bad_seats_cannot_get_a_token() -> None:
    signer = Signer(SECRET)
    for seat in (0, -1, True, "admin"):
        with pytest.raises(ValueError):
            signer.issue("t1", seat)  # type: ignore[arg-type]


def test_the_secret_is_created_once_with_mode_0600(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("AUTOHOST_SECRET", raising=False)
    path = tmp_path / "db.secret"
    first = load_secret(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_secret(path) == first and len(first) >= 32
    monkeypatch.setenv("AUTOHOST_SECRET", "from-the-environment-0123456789")
    assert load_secret(path) == b"from-the-environment-0123456789"


def test_an_empty_key_file_is_refused_naming_it_never_taken_as_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outside check: an empty `<db>.admin-key` (a crash between creating the file and
    writing it) was read as the key "", and `Authorization: Bearer` with nothing after it
    then matched: everyone was admin. An empty secret file failed with a traceback."""
    monkeypatch.delenv("AUTOHOST_SECRET", raising=False)
    monkeypatch.delenv("AUTOHOST_ADMIN_KEY", raising=False)
    db = tmp_path / "log.db"
    (tmp_path / "log.db.admin-key").write_text(" \n")
    with pytest.raises(BadKeyFile, match=r"log\.db\.admin-key is empty"):
        load_admin_key(db)
    (tmp_path / "db.secret").write_text("")
    with pytest.raises(BadKeyFile, match=r"db\.secret is empty"):
        load_secret(tmp_path / "db.secret")


def test_a_key_file_is_made_whole_once_with_mode_0600(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AUTOHOST_ADMIN_KEY", raising=False)
    db = tmp_path / "log.db"
    key = load_admin_key(db)
    path = tmp_path / "log.db.admin-key"
    assert len(key) >= 24 and path.read_text() == key
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_admin_key(db) == key  # made once
    assert [p.name for p in tmp_path.iterdir()] == ["log.db.admin-key"]  # no temporary left


def test_links_carry_a_token_for_each_seat_and_the_host() -> None:
    signer = Signer(SECRET)
    links = table_links(signer, "http://127.0.0.1:9/", "t1", 10, names=[f"P{i}" for i in range(10)])
    assert links["host"]["link"].startswith("http://127.0.0.1:9/t/t1/host#token=")
    assert signer.verify(links["host"]["token"], table="t1").is_host
    assert [s["seat"] for s in links["seats"]] == list(range(1, 11))
    assert links["seats"][2]["name"] == "P2"
    for entry in links["seats"]:
        assert entry["link"].endswith(entry["token"])
        assert signer.verify(entry["token"], table="t1").seat == entry["seat"]


def test_a_token_has_one_spelling_only() -> None:
    """The outside check found signatures with extra characters, and the standard base64
    alphabet, accepted: every other spelling of a genuine token is refused as malformed."""
    signer = Signer(b"s" * 32)
    token = signer.issue("t1", 3)
    body, _, signature = token.partition(".")
    last = signature[-1]
    odd_bits = "ABCD"[("ABCD".index(last) + 1) % 4] if last in "ABCD" else "B"
    spellings = [
        token + "=",  # padding
        body + "=." + signature,
        body + "." + signature + "==",
        body.replace("_", "/").replace("-", "+") + "." + signature + "/",  # standard alphabet
        " " + token,
        body + ".\n" + signature,
        body + "." + signature[:-1] + odd_bits,  # the unused low bits set
    ]
    for spelling in spellings:
        with pytest.raises(TokenError) as refused:
            signer.verify(spelling)
        assert refused.value.code in ("token_malformed", "token_forged"), spelling
    assert signer.verify(token).seat == 3


def test_a_signer_stamps_and_checks_expiry_with_its_clock() -> None:
    """The server sets the signer's clock to the log's (issue 31): a token's expiry is
    stamped and checked with it, never with this machine's clock."""
    moment = [1_000_000.0]
    signer = Signer(b"s" * 32, clock=lambda: moment[0])
    token = signer.issue("t1", 3, lifetime=60)
    assert signer.verify(token).expires == 1_000_060
    moment[0] = 1_000_059.5
    assert signer.verify(token).seat == 3
    moment[0] = 1_000_060.0
    with pytest.raises(TokenError) as refused:
        signer.verify(token)
    assert refused.value.code == "token_expired"
