"""Archiving on a shared log is fenced: only the server that hosts a table archives it. A
server that does not refuses with a clear error (409 table_elsewhere) and changes nothing;
a table nobody hosts is claimed by the server asked, then archived."""

from __future__ import annotations

import json
import os
import subprocess

import httpx
import psycopg
import pytest

from plugin.paths import ROOT
from testing import ServerProcess

from .conftest import AUTOHOST, Servers, create_table, dsn_of, host_of, leases

pytestmark = pytest.mark.slow


def archive(server: ServerProcess, table_id: str) -> httpx.Response:
    return httpx.post(
        f"{server.base}/api/tables/{table_id}/archive",
        headers={"Authorization": f"Bearer {server.admin_key}"},
        timeout=30,
    )


def archived(dsn: str) -> set[str]:
    with psycopg.connect(dsn, connect_timeout=5) as db:
        return {row[0] for row in db.execute("SELECT table_id FROM archived").fetchall()}


def test_only_the_owner_archives_a_table(servers: Servers) -> None:
    running = servers(2)
    table_id = create_table(running[0])["id"]
    owner = host_of(table_id, running)
    (other,) = [s for s in running if s is not owner]
    before = leases(dsn_of(owner))[table_id]
    refused = archive(other, table_id)
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"] == "table_elsewhere"
    assert "another server" in refused.json()["message"]
    # Nothing changed: not archived, still hosted by its owner under the same lease.
    assert table_id not in archived(dsn_of(owner))
    assert table_id in owner.hosted() and table_id not in other.hosted()
    assert leases(dsn_of(owner))[table_id] == before
    done = archive(owner, table_id)
    assert done.status_code == 200 and done.json()["archived"] is True, done.text
    assert table_id in archived(dsn_of(owner)) and table_id not in owner.hosted()
    assert archive(other, "nosuchtable").status_code == 404


def test_a_table_nobody_hosts_is_claimed_then_archived(servers: Servers) -> None:
    running = servers(2)
    dsn = dsn_of(running[0])
    for server in running:  # both stopped: nobody can claim the table made next
        assert server.stop() == 0
    made = subprocess.run(
        [*AUTOHOST, "table", "new", "--seats", "10", "--db", dsn, "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**os.environ, "AUTOHOST_SECRET": running[0].secret},
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    table_id = json.loads(made.stdout)["id"]
    assert table_id not in leases(dsn)
    server = running[0]
    server.start()
    answer = archive(server, table_id)  # claimed (or already claimed by it), then archived
    assert answer.status_code == 200, answer.text
    assert table_id in archived(dsn) and table_id not in server.hosted()
    assert server.stop() == 0
