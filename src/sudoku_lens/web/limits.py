"""Guards for untrusted uploads: a request-body size cap answered without storing the body, and
a 408 for a body that stops coming in (STALL_SECONDS).

The size cap is an ASGI middleware so that an oversized upload is refused from its
Content-Length header without keeping any of it, and a body sent without one (chunked) is cut
off as soon as the bytes streamed in pass the cap. Both answer 413 with a JSON error. Clients
such as Python's urllib and requests send the whole body before they read the answer: closing
the connection on unread bytes makes the kernel reset it, and the client sees the reset, not
the 413. So up to MAX_DRAIN bytes of an oversized body are read and dropped before answering
(not when the client waits for "100 Continue", which then never comes). Image limits (pixels,
format) are `load_image`'s, the same for every entry point.
"""

from __future__ import annotations

import json

import anyio
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

BODY_OVERHEAD = 64 * 1024
"""Bytes allowed on top of the upload limit for multipart boundaries, headers and form fields."""
MAX_DRAIN = 64 * 2**20
"""The most bytes of an oversized body read and dropped so that the client gets its 413."""
STALL_SECONDS = 30.0
"""Longest wait for the next piece of a request body: a client that stops sending halfway gets
a 408 and is let go, rather than holding its connection open for ever."""


class UploadTooLarge(HTTPException):
    """Raised while a request body streams in past the size cap; answered as 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large_message(limit))


class BodyStalled(HTTPException):
    """Raised when a request body stops coming in for `seconds`; answered as 408."""

    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body stopped coming in for {seconds:g} s")


def too_large_message(limit: int) -> str:
    """The 413 message for an upload cap of `limit` bytes."""
    return f"the upload is too large: the limit is {limit / 2**20:.3g} MB"


class BodySizeLimit:
    """ASGI middleware that refuses request bodies over `max_body` bytes with a 413 JSON error.

    `upload_limit` is the limit users are told about (the file itself); `max_body` adds room for
    the multipart envelope.
    """

    def __init__(
        self, app: ASGIApp, *, upload_limit: int, stall_seconds: float = STALL_SECONDS
    ) -> None:
        self.app = app
        self.upload_limit = upload_limit
        self.max_body = upload_limit + BODY_OVERHEAD
        self.stall_seconds = stall_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body:
            if declared <= MAX_DRAIN and not _expects_continue(scope):
                await _drain(receive, MAX_DRAIN, self.stall_seconds)
            await _send_json(send, 413, {"error": too_large_message(self.upload_limit)})
            return
        received = 0
        started = False
        body_done = False

        async def limited_receive() -> Message:
            nonlocal received, body_done
            if body_done:  # later receives wait for the client to go: no timeout there
                return await receive()
            try:
                with anyio.fail_after(self.stall_seconds):
                    message = await receive()
            except TimeoutError:
                raise BodyStalled(self.stall_seconds) from None
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise UploadTooLarge(self.upload_limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except UploadTooLarge as exc:
            if started:
                raise
            await _drain(receive, MAX_DRAIN - received, self.stall_seconds)
            await _send_json(send, 413, {"error": exc.detail})
        except BodyStalled as exc:
            if started:
                raise
            await _send_json(send, 408, {"error": exc.detail})


async def _drain(receive: Receive, limit: int, stall_seconds: float) -> None:
    """Read and drop what is left of the request body, `limit` bytes at most, until it stops
    coming in for `stall_seconds`."""
    drained = 0
    while drained <= limit:
        message = None
        with anyio.move_on_after(stall_seconds):
            message = await receive()
        if message is None or message["type"] != "http.request":
            return
        drained += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _expects_continue(scope: Scope) -> bool:
    """True when the client waits for "100 Continue" before sending its body."""
    return any(
        name == b"expect" and value.lower() == b"100-continue"
        for name, value in scope.get("headers", ())
    )


def _content_length(scope: Scope) -> int | None:
    """The request's Content-Length header as an int, or None when absent or malformed."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_json(send: Send, status: int, body: dict[str, str]) -> None:
    """Send a complete JSON response straight through the ASGI `send` channel."""
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
