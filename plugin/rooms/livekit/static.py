"""Static routes for LiveKit mode: our widget and demo page, the reconnecting socket they
share with the embedded pages, the end screen and the texts it speaks, and livekit-client's
browser build from
plugin/web/npm/node_modules (installed by the setup, never committed)."""

from __future__ import annotations

from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from plugin.paths import ROOT

WIDGET_DIR = ROOT / "plugin" / "web" / "static" / "livekit"
SOCKET_DIR = ROOT / "plugin" / "web" / "static" / "socket"  # transport.js imports from it
END_DIR = ROOT / "plugin" / "web" / "static" / "end"  # the widget's end of the game
I18N_DIR = ROOT / "plugin" / "web" / "static" / "i18n"  # ... in the table's language
CLIENT_DIST = ROOT / "plugin" / "web" / "npm" / "node_modules" / "livekit-client" / "dist"
CLIENT_MODULE = "/npm/livekit-client/livekit-client.esm.mjs"


def client_installed() -> bool:
    return (CLIENT_DIST / "livekit-client.esm.mjs").is_file()


def static_routes() -> list[Mount]:
    """/static/livekit/* (widget, demo page), /static/socket/* (the reconnecting socket),
    /static/end/* and /static/i18n/* (the end of the game, its texts) and
    /npm/livekit-client/* (the SDK)."""
    return [
        Mount("/static/livekit", StaticFiles(directory=WIDGET_DIR), name="livekit-static"),
        Mount("/static/socket", StaticFiles(directory=SOCKET_DIR), name="socket-static"),
        Mount("/static/end", StaticFiles(directory=END_DIR), name="end-static"),
        Mount("/static/i18n", StaticFiles(directory=I18N_DIR), name="i18n-static"),
        Mount(
            "/npm/livekit-client",
            StaticFiles(directory=CLIENT_DIST, check_dir=False),
            name="livekit-client",
        ),
    ]
