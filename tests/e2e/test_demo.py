"""`autohost demo`, run as a user runs it: the terminal day vote (issue 2's demo), and the
browser demo with every seat simulated, stopped with Ctrl-C."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from plugin.paths import ROOT
from testing import AutohostProcess

pytestmark = [pytest.mark.slow]

AUTOHOST = [sys.executable, "-m", "plugin.cli"]


def test_terminal_demo_plays_a_day_vote_with_a_tie_and_a_revote():
    done = subprocess.run(
        [*AUTOHOST, "demo", "--terminal", "--speed", "100", "--lang", "en"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()

    def first(pattern: str) -> int:
        found = [i for i, line in enumerate(lines) if re.search(pattern, line)]
        assert found, f"no line matching {pattern!r} in:\n{done.stdout}"
        return found[0]

    start = first(r"HOST: The day's discussion is over")
    tally = first(r"seat \d+ votes for \d+ +tally: 3→\d+ +7→\d+ +5→\d+")
    tie = first(r"HOST: A tie\. The candidates speak again: players three and seven")
    defense = first(r"seat 3 speaks: «Player 3\.")
    revote = first(r"HOST: Revote\. The candidates are players three and seven")
    out = first(r"HOST: Player three leaves the game")
    last = first(r"HOST: Player three, your last word")
    assert start < tally < tie < defense < revote < out < last
    # The first round ends 5 : 5 (the last tally line before the tie announcement).
    before_tie = [line for line in lines[:tie] if "tally:" in line][-1]
    assert before_tie.endswith("3→5  7→5  5→0")
    assert lines[-1].endswith("The vote is over: out [3] after 2 round(s).")


def test_terminal_demo_refuses_bad_arguments_and_does_nothing():
    done = subprocess.run(
        [*AUTOHOST, "demo", "--terminal", "--speed", "0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "--speed must be a positive number" in done.stderr
    assert done.stdout == ""


@pytest.mark.e2e
def test_browser_demo_with_every_seat_simulated_plays_and_stops_on_ctrl_c(tmp_path: Path):
    db = tmp_path / "demo.db"
    demo = AutohostProcess(
        ["demo", "--humans", "0", "--port", "0", "--speed", "20", "--lang", "en",
         "--db", str(db), "--seed", "5"],
        ready="the game has started",
    )  # fmt: skip
    demo.start(timeout=120)
    try:
        text = "".join(demo.output)
        assert "the game has started" in text, text
        base, table = re.search(r"table (\w+) on (http://127\.0\.0\.1:\d+)", text).group(2, 1)  # type: ignore[union-attr]
        links = re.findall(r"seat +(\d+) \(bot\): (\S+)", text)
        assert [int(seat) for seat, _ in links] == list(range(1, 11))
        assert all(f"/t/{table}/play#token=" in link for _, link in links)
        assert re.search(rf"host console: {re.escape(base)}/t/{table}/host#token=\S+", text)

        # The bots play: the table leaves night zero and reaches day 1's speeches or beyond.
        key = (tmp_path / "demo.db.admin-key").read_text().strip()
        request = urllib.request.Request(
            f"{base}/api/tables/{table}", headers={"Authorization": f"Bearer {key}"}
        )

        def table_view() -> dict[str, Any]:
            with urllib.request.urlopen(request, timeout=10) as response:
                view: dict[str, Any] = json.load(response)["view"]
            return view

        seen: set[str] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not ({"speech", "voting"} & seen):
            seen.add(table_view()["phase"])
            time.sleep(0.3)
        assert {"speech", "voting"} & seen, seen
        # The game starts once every bot's own end of WebRTC is up, before its socket opens
        # (in the bot's own task) and maybe before the server counts its peer as present:
        # at --speed 20 the day can come first. Every bot must still be in, within a minute.
        deadline = time.monotonic() + 60
        while True:
            now = table_view()["table"]
            connected, present = now["connected"], now["present"]
            if (len(connected) == 10 and len(present) == 10) or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert len(connected) == 10, connected  # every bot's socket
        assert len(present) == 10, present  # every bot's WebRTC peer
    finally:
        before_stop = len(demo.output)
        code = demo.stop(timeout=60, sig=signal.SIGINT)  # killed after that (a failure)
        rest = "".join(demo.output[before_stop:])
    assert code == 0  # its stderr is in the test's captured output
    assert "autohost demo: stopped (SIGINT)" in rest
