"""testing itself: its waits are bounded and say what they waited for, its figures
are nearest-rank, its fakes stand in for the ports, and only tests and benches import it."""

from __future__ import annotations

import ast
import asyncio
import time

import pytest

from plugin.paths import ROOT
from plugin.web.close_codes import CloseCode
from testing import FakeVoice, eventually, percentile, steady


async def test_eventually_takes_a_plain_or_an_async_check() -> None:
    ticks: list[int] = []

    def plain() -> bool:
        ticks.append(1)
        return len(ticks) >= 3

    async def awaited() -> bool:
        await asyncio.sleep(0)
        return True

    await eventually(plain, "three looks", seconds=5, interval=0)
    await eventually(awaited, "at once", seconds=5)
    assert len(ticks) == 3


async def test_eventually_fails_at_its_deadline_naming_what_and_why() -> None:
    async def explain() -> str:
        return "the door is shut"

    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(AssertionError, match=r"within 0.2 s: the door opens: the door is shut"):
        await eventually(lambda: False, "the door opens", seconds=0.2, explain=explain)
    assert 0.2 <= loop.time() - started < 2


@pytest.mark.parametrize(("q", "expected"), [(0.0, 0.0), (0.5, 50.0), (0.99, 99.0), (1.0, 100.0)])
def test_percentile_is_the_nearest_rank(q: float, expected: float) -> None:
    values = [float(v) for v in range(100, -1, -1)]  # 101 samples, in any order
    assert percentile(values, q) == expected


async def test_fake_voice_is_silent_and_reports_cuts() -> None:
    voice = FakeVoice()
    cuts: list[str] = []
    voice.on_cut(lambda: cuts.append("cut"))
    await voice.announce("night.falls", {}, urgent=True)
    voice.cut()
    assert [frame async for frame in voice.pcm_frames()] == []
    assert voice.keys == ["night.falls"] and cuts == ["cut"]


def imported(node: ast.AST) -> list[str]:
    """The absolute module names an import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return []


def test_the_product_never_imports_the_test_helpers() -> None:
    """`testing/` lives outside the installed package: tests and benches import it, the
    product (`plugin/`, `voice/`) never does."""
    importers = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for package in ("plugin", "voice")
        for path in sorted((ROOT / package).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        for name in imported(node)
        if name == "testing" or name.startswith("testing.")
    ]
    assert importers == []


def test_a_request_on_a_socket_the_server_closed_reads_as_the_close() -> None:
    """A page told "table_moved" (4410) reconnects. The tests' client reads that close as
    the answer to a request sent after it, when the socket is already shut (the send does
    not raise), and after that refuses to read on."""
    import threading

    from websockets.sync.server import ServerConnection, serve

    from testing import connect

    closed = threading.Event()

    def handler(ws: ServerConnection) -> None:
        ws.close(CloseCode.ENDED, "table_moved")
        closed.set()

    with serve(handler, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.socket.getsockname()[1]
        with connect(f"ws://127.0.0.1:{port}", timeout=5) as client:
            assert closed.wait(5)
            deadline = time.monotonic() + 5
            while client.ws.protocol.state.name != "CLOSED":  # the close handshake is over
                assert time.monotonic() < deadline
                time.sleep(0.01)
            assert client.request("vote", candidate=6, id="a") == {
                "type": "close",
                "code": CloseCode.ENDED,
            }
            with pytest.raises(ConnectionError):
                client.request("vote", candidate=6, id="b")
        server.shutdown()


async def test_steady_waits_for_a_quiet_window_and_fails_on_one_that_never_comes() -> None:
    ticks = 0

    async def arrive(until: int) -> None:
        nonlocal ticks
        while ticks < until:
            ticks += 1
            await asyncio.sleep(0.02)

    arriving = asyncio.create_task(arrive(10))
    assert await steady(lambda: ticks, "ticks", window=0.1, seconds=5) == 10
    await arriving
    forever = asyncio.create_task(arrive(10**9))
    try:
        with pytest.raises(AssertionError, match=r"still changing after 0\.3 s: ticks"):
            await steady(lambda: ticks, "ticks", window=0.1, seconds=0.3)
    finally:
        forever.cancel()
