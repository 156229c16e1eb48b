"""A bounded, thread-safe cache of per-browser camera sessions.

Camera mode keeps state between frames (the tracked grid, the puzzle already read), so each
browser tab gets its own live solver, named by a session id the page makes up. Only the most
recently used sessions are kept: an abandoned tab costs nothing once it falls off the end.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class SessionCache(Generic[T]):
    """Least-recently-used map from session id to a state object made by `factory`.

    `use(session_id)` hands out the state under a per-session lock, so frames of one session are
    processed one after another even when they arrive at once, while different sessions run in
    parallel.
    """

    def __init__(self, factory: Callable[[], T], *, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._factory = factory
        self._capacity = capacity
        self._entries: OrderedDict[str, tuple[T, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, session_id: object) -> bool:
        with self._lock:
            return session_id in self._entries

    @contextmanager
    def use(self, session_id: str) -> Iterator[T]:
        """Yield the state of `session_id` (made on first use), holding that session's lock."""
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None:
                entry = (self._factory(), threading.Lock())
                self._entries[session_id] = entry
                while len(self._entries) > self._capacity:
                    self._entries.popitem(last=False)
            else:
                self._entries.move_to_end(session_id)
        state, session_lock = entry
        with session_lock:
            yield state
