"""The page routes (no browser): the widget and the console for any table, the static
files, the landing page; tokens never needed by, nor leaked from, these routes."""

from __future__ import annotations

from pathlib import Path

from plugin.eventlog import log_opener
from plugin.web.app import ServerConfig, create_app
from plugin.web.pages import page_routes
from testing import TestClient


def _client(tmp_path: Path) -> TestClient:
    config = ServerConfig(
        db_path=tmp_path / "pages.db",
        log=log_opener(tmp_path / "pages.db"),
        admin_key="pages-admin-key-0123456789",
        secret=b"pages-secret-0123456789abcdef",
        routes=(page_routes,),
    )
    return TestClient(create_app(config))


def test_the_player_page_and_the_console_are_served_for_any_table(tmp_path: Path):
    with _client(tmp_path) as client:
        play = client.get("/t/abc123/play?token=secret-token")
        host = client.get("/t/abc123/host")
        for response in (play, host):
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/html")
            assert response.headers["referrer-policy"] == "no-referrer"
            assert response.headers["cache-control"] == "no-store"
            assert "secret-token" not in response.text  # the page reads it itself
        assert '<script type="module" src="../../static/widget/widget.js">' in play.text
        assert '<script type="module" src="../../static/console/console.js">' in host.text


def test_static_files_and_texts_in_three_languages(tmp_path: Path):
    with _client(tmp_path) as client:
        for path in (
            "/static/widget/widget.js",
            "/static/widget/tiles.js",
            "/static/console/console.js",
            "/static/embedded/media.js",
            "/static/widget/widget.css",
        ):
            assert client.get(path).status_code == 200, path
        keys = None
        for lang in ("ru", "uk", "en"):
            texts = client.get(f"/static/i18n/{lang}.json").json()
            keys = keys or set(texts)
            assert set(texts) == keys, lang  # every language has every text
        assert client.get("/static/i18n/uk.json").json()["dialog.tie"] == "Нічия"
        assert client.get("/static/../pages.py").status_code == 404


def test_the_landing_page_says_how_to_join(tmp_path: Path):
    with _client(tmp_path) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert "/t/&lt;table&gt;/play#token=" in page.text
        assert "autohost demo" in page.text
        assert "Tables on this server: 0." in page.text
