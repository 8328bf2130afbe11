"""Fixtures for more than one test directory (helpers live in plugin/testing)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from plugin.testing.livekit_server import LiveKitServer, running_server, server_binary


@pytest.fixture(scope="session")
def livekit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKitServer]:
    """The real LiveKit server (tests/livekit, tests/e2e); skipped when its binary is missing."""
    binary = server_binary()
    if binary is None:
        pytest.skip(
            "livekit-server binary missing: run scripts/test (setup builds it with "
            "`go install github.com/livekit/livekit-server/cmd/server@v1.13.5`) or set "
            "LIVEKIT_SERVER_BIN"
        )
    with running_server(binary, tmp_path_factory.mktemp("livekit")) as server:
        yield server
