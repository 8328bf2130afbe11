"""Static routes for LiveKit mode: our widget and demo page, the reconnecting socket they
share with the embedded pages, and livekit-client's browser build from
plugin/web/npm/node_modules (installed by the setup, never committed)."""

from __future__ import annotations

from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from plugin.paths import ROOT

WIDGET_DIR = ROOT / "plugin" / "web" / "static" / "livekit"
SOCKET_DIR = ROOT / "plugin" / "web" / "static" / "socket"  # transport.js imports from it
CLIENT_DIST = ROOT / "plugin" / "web" / "npm" / "node_modules" / "livekit-client" / "dist"
CLIENT_MODULE = "/npm/livekit-client/livekit-client.esm.mjs"


def client_installed() -> bool:
    return (CLIENT_DIST / "livekit-client.esm.mjs").is_file()


def static_routes() -> list[Mount]:
    """/static/livekit/* (widget, demo page), /static/socket/* (the reconnecting socket)
    and /npm/livekit-client/* (the SDK)."""
    return [
        Mount("/static/livekit", StaticFiles(directory=WIDGET_DIR), name="livekit-static"),
        Mount("/static/socket", StaticFiles(directory=SOCKET_DIR), name="socket-static"),
        Mount(
            "/npm/livekit-client",
            StaticFiles(directory=CLIENT_DIST, check_dir=False),
            name="livekit-client",
        ),
    ]
