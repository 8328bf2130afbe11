"""HTTP request bodies read within a limit, and JSON decoded without a traceback.

Every endpoint that takes a body reads it through `read_body`: a Content-Length over the
limit is refused before anything is read, and a body streamed without one (chunked) is cut
off as soon as it passes the limit, so a client can never make the server hold more than
`limit` bytes for it. `decode_json` turns broken or too deeply nested JSON into BadBody
(HTTP 400) instead of a 500 with a traceback. `sending_media` reads an SDP offer or answer
for whether it would send media (a spectator's must not: issue 17).
"""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import ClientDisconnect, Request


class BadBody(Exception):
    """A body refused before use. `status` is the HTTP status to answer with."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, at most `limit` bytes; BadBody(413) past that, read or announced."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 12:
            raise BadBody(400, "bad_request", "Content-Length must be a number of bytes")
        if int(declared) > limit:
            raise BadBody(413, "too_large", f"the body is over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BadBody(413, "too_large", f"the body is over {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:  # it went away mid-body: nothing to answer, nothing to log
        raise BadBody(400, "client_gone", "the client closed before its body ended") from None
    return b"".join(chunks)


def decode_json(body: bytes) -> Any:
    """The JSON value of `body`; BadBody(400) for anything that is not JSON."""
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError as error:
        raise BadBody(400, "bad_json", f"the body is not JSON: {error}") from None
    except RecursionError:
        raise BadBody(400, "bad_json", "the body's JSON is nested too deep") from None


def sending_media(sdp: str) -> bool:
    """Whether an SDP offers to send any media (an m-line that is sendrecv or sendonly,
    which is what an m-line without a direction attribute means)."""
    sections = sdp.replace("\r\n", "\n").split("\nm=")[1:]
    for section in sections:
        lines = section.split("\n")
        if lines[0].split(" ", 2)[1:2] == ["0"]:
            continue  # port 0: a rejected m-line carries nothing
        directions = {line.strip() for line in lines if line.strip() in (
            "a=sendrecv", "a=sendonly", "a=recvonly", "a=inactive"
        )}  # fmt: skip
        if not directions or directions & {"a=sendrecv", "a=sendonly"}:
            return True
    return False
