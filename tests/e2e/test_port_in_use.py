"""`autohost demo` and `autohost serve` on a port already in use: one line naming the
port and exit status 2, not a traceback (issue 17, "Finish"; plugin/server/http.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from testing import free_port

pytestmark = [pytest.mark.e2e]


@pytest.mark.parametrize("command", ["demo", "serve"])
def test_a_busy_port_is_one_line_and_exit_2(command: str, tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        done = subprocess.run(
            [sys.executable, "-m", "plugin.cli", command, "--port", str(port)]
            + (["--db", str(tmp_path / "serve.db")] if command == "serve" else []),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 2, (done.returncode, lines)
    assert len(lines) == 1, lines
    assert str(port) in lines[0] and "Traceback" not in lines[0], lines
