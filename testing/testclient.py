"""starlette's TestClient (the app in this process, no socket), imported once for tests.

starlette 1.x warns at the import that its TestClient should use httpx2 (not installed:
the project pins httpx), and the suite turns warnings into errors. Only that one warning
is silenced, only for this import.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient, WebSocketTestSession

__all__ = ["TestClient", "WebSocketTestSession"]
