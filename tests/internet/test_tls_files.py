"""A certificate or key `autohost serve` cannot use ends it with one line that names the file
and what to do, exit 2, before anything listens (issue 32): certbot's files are root-only by
default, and a key from another certificate is an easy mistake. The real command line runs;
under root it runs without the capabilities that let root read any file (setpriv), so a file
with no read permission is unreadable to it as to a service's user."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from testing import ADMIN_KEY, SECRET, AutohostProcess, bound_by_permissions, free_port
from testing.certs import self_signed

ROOT = Path(__file__).resolve().parents[2]
NAME = "mafia.autohost.test"


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder every user may enter (pytest's tmp_path is its owner's only), removed after."""
    made = Path(tempfile.mkdtemp(prefix="autohost-tls-"))
    made.chmod(0o755)
    try:
        yield made
    finally:
        shutil.rmtree(made)


def serve(cert: Path, key: Path, db: Path) -> subprocess.CompletedProcess[str]:
    """`autohost serve` with these files, unable to read what its permissions forbid; bounded."""
    command = [*bound_by_permissions(), sys.executable, "-m", "plugin.cli", "serve"]
    command += ["--port", str(free_port()), "--no-voice", "--db", str(db)]
    command += ["--tls-cert", str(cert), "--tls-key", str(key)]
    env = {**os.environ, "AUTOHOST_SECRET": SECRET, "AUTOHOST_ADMIN_KEY": ADMIN_KEY}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def assert_one_line(result: subprocess.CompletedProcess[str], *named: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and "listening" not in result.stdout
    for text in named:
        assert text in lines[0], lines[0]
    return lines[0]


def test_an_unreadable_key_names_the_key_and_what_to_do(folder: Path) -> None:
    cert, key = self_signed(folder / "live", NAME)
    key.chmod(0o000)  # as certbot's privkey.pem is to any user but root
    line = assert_one_line(serve(cert, key, folder / "log.db"), str(key), "not readable")
    assert "--deploy-hook" in line and str(cert) not in line


def test_a_certificate_in_a_closed_folder_names_the_certificate(folder: Path) -> None:
    cert, key = self_signed(folder / "live", NAME)
    (folder / "live").chmod(0o000)  # as certbot's live/ is to any user but root
    try:
        result = serve(cert, key, folder / "log.db")
    finally:
        (folder / "live").chmod(0o755)
    assert_one_line(result, str(cert), "certificate", "not readable")


def test_a_key_of_another_certificate_is_refused_naming_both(folder: Path) -> None:
    cert, _ = self_signed(folder / "one", NAME)
    _, other_key = self_signed(folder / "two", NAME)
    line = assert_one_line(serve(cert, other_key, folder / "log.db"), str(other_key))
    assert "does not belong" in line and str(cert) in line


def test_a_file_that_is_not_pem_is_refused(folder: Path) -> None:
    cert, key = self_signed(folder / "tls", NAME)
    swapped = assert_one_line(serve(key, cert, folder / "log.db"), str(key))
    assert "not a PEM certificate" in swapped


def test_readable_matching_files_serve_and_table_new_trusts_a_private_ca(folder: Path) -> None:
    """The control: the same kind of files, readable and matching, get past the check. And
    `autohost table new --server` refuses the private certificate saying how to trust it,
    then creates the table with `--ca-file`."""
    cert, key = self_signed(folder / "tls", NAME)
    port = free_port()
    server = AutohostProcess(
        [
            "serve",
            "--port",
            str(port),
            "--no-voice",
            "--db",
            str(folder / "log.db"),
            "--tls-cert",
            str(cert),
            "--tls-key",
            str(key),
        ],
        env={"AUTOHOST_SECRET": SECRET, "AUTOHOST_ADMIN_KEY": ADMIN_KEY},
        ready="listening",
    )
    server.start()
    try:
        assert f"listening on https://127.0.0.1:{port}" in server.output[-1]
        command = [sys.executable, "-m", "plugin.cli", "table", "new", "--json"]
        command += ["--server", f"https://127.0.0.1:{port}", "--db", str(folder / "log.db")]
        env = {**os.environ, "AUTOHOST_ADMIN_KEY": ADMIN_KEY}
        refused = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        assert refused.returncode != 0 and "CERTIFICATE_VERIFY_FAILED" in refused.stderr
        assert "--ca-file" in refused.stderr and "Traceback" not in refused.stderr
        made = subprocess.run([*command, "--ca-file", str(cert)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert made.returncode == 0, made.stderr
        assert json.loads(made.stdout)["seats"][0]["link"].startswith("http")
    finally:
        server.stop()
