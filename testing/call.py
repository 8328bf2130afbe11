"""A table's call as the internet tests and the mesh bench drive it: the embedded audio room
(with a bot whose voice the test switches), the video mesh, the control protocol and
`POST /api/ice`, served by `plugin.server.listening` on any address (a namespace's too),
over HTTP or HTTPS, with one page that joins both audio and video.

    async with call_site(tmp_path, ice=IceSettings(...)) as site:
        page = await browser.new_page(); await join(page, site, 3)
        await site.room.set_speakers(frozenset({3}))
        await selected_pairs(page)   # {"audio": {"local": "relay", ...}, "video:1": ...}
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from playwright.async_api import Page
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from plugin.eventlog import log_opener
from plugin.host.settings import TableSettings
from plugin.rooms.embedded import EmbeddedRoom, rtc_ice_servers
from plugin.rooms.embedded.frames import FRAME_SAMPLES, SAMPLE_RATE, SILENCE, tone
from plugin.rooms.embedded.signalling import rtc_routes
from plugin.web.app import create_app
from plugin.web.context import Server, ServerConfig
from plugin.web.ice import IceSettings, server_ice_routes
from plugin.web.pages import STATIC_DIR
from plugin.web.video import video_routes

from .browser import wait_for


class SwitchableBot:
    """A bot voice for tests: a 440 Hz tone while `speaking`, silence otherwise, paced in
    real time (20 ms frames)."""

    def __init__(self) -> None:
        self.speaking = True

    async def __aiter__(self) -> AsyncIterator[np.ndarray]:
        loop = asyncio.get_running_loop()
        start, sample = loop.time(), 0
        while True:
            await asyncio.sleep(max(0.0, start + sample / SAMPLE_RATE - loop.time()))
            yield tone(440, sample) if self.speaking else SILENCE
            sample += FRAME_SAMPLES


# The page: the control socket (hello with the token from the fragment), the audio room
# (media.js) and the video mesh (video.js), each optional; `window.pairs()` names the
# selected ICE candidate pair of every connection (getStats).
# Its script is served on its own (/call.js): the server's pages run under a CSP without
# inline scripts (plugin/web/headers.py).
CALL_PAGE = """<!doctype html><meta charset="utf-8"><title>call test</title>
<div id="tiles"></div>
<script type="module" src="/call.js"></script>"""
CALL_SCRIPT = """import { connect } from "/static/embedded/media.js";
import { startVideo } from "/static/video/video.js";

const token = new URLSearchParams(location.hash.slice(1)).get("token");
const table = location.pathname.split("/")[2];
const ws = location.protocol === "https:" ? "wss" : "ws";
const tiles = document.getElementById("tiles");
const tileFor = (seat) => {
  let tile = tiles.querySelector(`.video[data-seat="${seat}"]`);
  if (!tile) {
    tile = document.createElement("div");
    tile.className = "video";
    tile.dataset.seat = String(seat);
    tiles.append(tile);
  }
  return tile;
};

// The audio connection as the widget keeps it (widget/av.js): an attempt that fails, or is
// not up within 12 s (a lost ICE check on a loaded machine), is closed and made again.
async function connectAudio(attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const room = await connect(`/rtc/${table}/offer`, token);
    const up = await new Promise((resolve) => {
      const check = () => {
        const state = room.pc.connectionState;
        if (state === "connected") resolve(true);
        else if (state === "failed" || state === "closed") resolve(false);
      };
      room.pc.addEventListener("connectionstatechange", check);
      check();
      setTimeout(() => resolve(room.pc.connectionState === "connected"), 12000);
    });
    if (up || attempt >= attempts) return room;
    console.warn(`audio: attempt ${attempt} did not connect (${room.pc.connectionState})`);
    room.pc.close();
  }
}

window.join = async ({ audio = true, video = true } = {}) => {
  const view = await new Promise((resolve, reject) => {
    const control = new WebSocket(`${ws}://${location.host}/ws`);
    control.onopen = () => control.send(JSON.stringify({ type: "hello", token }));
    control.onerror = () => reject(new Error("control socket failed"));
    control.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type !== "state") return;
      window.view = message;
      window.video?.update(message);
      resolve(message);
    };
    window.control = control;
  });
  if (audio) window.room = await connectAudio();
  if (video) {
    window.video = await startVideo({
      wsUrl: `${ws}://${location.host}/video`, token, seat: view.you, tileFor, view,
      connectTimeoutMs: 30000,
    });
    window.video.update(window.view);
  }
  return view.you;
};

async function selected(pc) {
  const stats = await pc.getStats();
  let pair = null;
  stats.forEach((s) => {
    if (s.type === "transport" && s.selectedCandidatePairId) {
      pair = stats.get(s.selectedCandidatePairId);
    }
  });
  if (!pair) stats.forEach((s) => {
    if (s.type === "candidate-pair" && s.nominated && s.state === "succeeded") pair = s;
  });
  if (!pair) return null;
  const local = stats.get(pair.localCandidateId) ?? {};
  const remote = stats.get(pair.remoteCandidateId) ?? {};
  return {
    local: local.candidateType, remote: remote.candidateType,
    localAddress: `${local.address}:${local.port}`,
    remoteAddress: `${remote.address}:${remote.port}`,
    protocol: local.protocol, relayProtocol: local.relayProtocol ?? null,
    bytesSent: pair.bytesSent ?? 0, bytesReceived: pair.bytesReceived ?? 0,
  };
}

window.pairs = async () => {
  const out = {};
  if (window.room) out.audio = await selected(window.room.pc);
  if (window.video) {
    for (const [seat, pc] of Object.entries(window.video.connections())) {
      out[`video:${seat}`] = await selected(pc);
    }
  }
  return out;
};
window.ready = true;
"""


@dataclass
class CallSite:
    url: str
    table: str
    tokens: dict[int | str, str]
    room: EmbeddedRoom
    bot: SwitchableBot
    server: Server

    def page_url(self, who: int | str) -> str:
        return f"{self.url}/call/{self.table}#token={self.tokens[who]}"


@contextlib.asynccontextmanager
async def call_site(
    folder: Path,
    *,
    ice: IceSettings,
    host: str = "127.0.0.1",
    port: int = 0,
    tls: tuple[Path, Path] | None = None,
    public_host: str | None = None,
    seats: int = 10,
) -> AsyncIterator[CallSite]:
    """The call served on `host`:`port`; `public_host` is the name pages use (a TLS
    certificate's name), default `host`. The bot speaks until the test says otherwise;
    nobody's microphone is forwarded until `site.room.set_speakers`."""
    from plugin.server import listening  # the assembly imports every layer

    bot = SwitchableBot()
    servers = (lambda: rtc_ice_servers(ice.servers("server"))) if ice.stun or ice.turn else None
    room = EmbeddedRoom(seats=seats, bot_audio=bot.__aiter__(), ice_servers=servers)
    table_id: list[str] = []

    async def page(request: Request) -> Response:
        return HTMLResponse(CALL_PAGE, headers={"Cache-Control": "no-store"})

    async def script(request: Request) -> Response:
        return Response(CALL_SCRIPT, media_type="text/javascript")

    def rtc(server: Server) -> Sequence[Any]:
        return rtc_routes(
            lambda t: room if table_id and t == table_id[0] else None, server.authorize
        )

    config = ServerConfig(
        db_path=folder / "log.db",
        log=log_opener(folder / "log.db"),
        admin_key="admin",
        secret=b"call-site-secret-0123456789abcdef",
        routes=[
            rtc,
            video_routes,
            server_ice_routes(ice),
            Route("/call/{table_id}", page),
            Route("/call.js", script),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
    )
    app = create_app(config)
    await room.start()
    try:
        async with listening(app, host=host, port=port, tls=tls) as where:
            scheme = "https" if tls else "http"
            url = f"{scheme}://{public_host or host}:{where.port}"
            server: Server = app.state.server
            assert server.registry is not None
            settings = TableSettings.from_record({"preset": "online", "seats": seats})
            table = await server.registry.create(settings)
            table_id.append(table.id)
            links = server.links(table)
            tokens: dict[int | str, str] = {s["seat"]: s["token"] for s in links["seats"]}
            tokens["host"] = links["host"]["token"]
            yield CallSite(
                url=url, table=table.id, tokens=tokens, room=room, bot=bot, server=server
            )
    finally:
        await room.stop()


async def join(
    page: Page,
    site: CallSite,
    who: int | str,
    *,
    audio: bool = True,
    video: bool = True,
    timeout: float = 45,
) -> None:
    """Open the call page for `who` and join; wait until its audio connection is up (the
    page makes up to three attempts, as the widget does)."""
    await page.goto(site.page_url(who), timeout=timeout * 1000)
    await wait_for(page, "window.ready === true", timeout=timeout * 1000)
    await page.evaluate("(o) => window.join(o)", {"audio": audio, "video": video})
    if audio:
        await wait_for(
            page, "window.room.pc.connectionState === 'connected'", timeout=timeout * 1000
        )


async def selected_pairs(page: Page) -> dict[str, dict[str, Any] | None]:
    """The selected candidate pair of every connection of the page, by connection
    ("audio", "video:<seat>"): candidate types, addresses, protocol."""
    return dict(await page.evaluate("window.pairs()"))


async def video_frames(page: Page) -> dict[str, int]:
    """framesDecoded of the inbound video from each peer page, by seat (as a string)."""
    return dict(await page.evaluate("window.video.stats()"))


async def wait_video(
    page: Page, seats: Sequence[int | str], *, timeout: float = 30, grown: int = 5
) -> None:
    """Wait until `grown` more frames from each of `seats` were decoded on `page`."""
    keys = [str(s) for s in seats]
    start = await video_frames(page)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        now = await video_frames(page)
        late = [k for k in keys if now.get(k, 0) - start.get(k, 0) < grown]
        if not late:
            return
        if loop.time() > deadline:
            debug = await page.evaluate("window.video.debug()")
            raise AssertionError(f"no frames decoded from {late}: {start} -> {now}; {debug}")
        await asyncio.sleep(0.2)
