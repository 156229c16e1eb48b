"""Guards for untrusted uploads: a request-body size cap and an image check by content.

The size cap is an ASGI middleware so that an oversized upload is refused from its
Content-Length header before any of it is read, and a body sent without one (chunked) is cut off
as soon as the bytes streamed in pass the cap. Both answer 413 with a JSON error.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

BODY_OVERHEAD = 64 * 1024
"""Bytes allowed on top of the upload limit for multipart boundaries, headers and form fields."""

_SIGNATURES: tuple[tuple[int, bytes], ...] = (
    (0, b"\xff\xd8\xff"),  # JPEG
    (0, b"\x89PNG\r\n\x1a\n"),
    (0, b"GIF87a"),
    (0, b"GIF89a"),
    (0, b"BM"),
    (0, b"II*\x00"),  # TIFF, little-endian
    (0, b"MM\x00*"),  # TIFF, big-endian
    (8, b"WEBP"),
)


class UploadTooLarge(HTTPException):
    """Raised while a request body streams in past the size cap; answered as 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large_message(limit))


def too_large_message(limit: int) -> str:
    """The 413 message for an upload cap of `limit` bytes."""
    return f"the upload is too large: the limit is {limit / 2**20:.3g} MB"


def looks_like_image(data: bytes) -> bool:
    """Whether `data` starts with the signature of an image format the reader decodes.

    This is the cheap content check behind 415 answers; the full header and pixel checks happen
    when the image is decoded, and a file that passes here but fails there is a 422.
    """
    if any(data[offset : offset + len(magic)] == magic for offset, magic in _SIGNATURES):
        return True
    return len(data) > 2 and data[:1] == b"P" and data[1:2] in b"1234567" and data[2:3].isspace()


def image_kind_hint(data: bytes) -> str:
    """A short note naming a well-known format we do not decode, for the 415 message."""
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"avif"):
        return " (HEIC/AVIF photos are not supported: export the photo as JPEG)"
    if data[:4] == b"%PDF":
        return " (a PDF was sent: send a photo or a screenshot instead)"
    return ""


class BodySizeLimit:
    """ASGI middleware that refuses request bodies over `max_body` bytes with a 413 JSON error.

    `upload_limit` is the limit users are told about (the file itself); `max_body` adds room for
    the multipart envelope.
    """

    def __init__(self, app: ASGIApp, *, upload_limit: int) -> None:
        self.app = app
        self.upload_limit = upload_limit
        self.max_body = upload_limit + BODY_OVERHEAD

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body:
            await _send_json(send, 413, {"error": too_large_message(self.upload_limit)})
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
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
            await _send_json(send, 413, {"error": exc.detail})


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
