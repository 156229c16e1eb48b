"""uvicorn's HTTP/1.1 protocol, answering a malformed request with the API's JSON error.

uvicorn answers a request it cannot parse (a broken request line, bad headers, oversized
headers) itself, before the app sees it, with the plain text "Invalid HTTP request received."
and offers no option to change it. Its protocol class is the one place that answer is made, so
`sudoku-lens serve` runs this subclass of its pure-Python h11 protocol, whose only change is
that answer: a 400 with `{"error": "..."}` like every other error of the API.
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MALFORMED_MESSAGE = "the request is not valid HTTP/1.1"


class JsonErrorH11Protocol(H11Protocol):
    """h11-based uvicorn protocol whose 400 for malformed HTTP is a JSON error object."""

    def send_400_response(self, msg: str) -> None:
        body = json.dumps({"error": MALFORMED_MESSAGE}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()
