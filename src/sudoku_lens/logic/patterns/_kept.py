"""What the chain techniques keep about the last state they saw, one store per thread.

Techniques are tried one after another on the same state, and several share costly work (the
link graph, the almost locked sets, the forcing sweep): each module keeps it for the last state,
keyed by the state's digits and candidates (never by the grid object, which the solver changes
in place). Web requests may solve in several threads at once, so every thread has its own stores.
"""

from __future__ import annotations

import threading

from sudoku_lens.logic.state import CandidateGrid

_local = threading.local()


def state_key(grid: CandidateGrid) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The digits and candidates of a state, as a key."""
    return tuple(grid.values), tuple(grid.cands)


def kept(owner: str, key: object) -> dict[object, object]:
    """This thread's store of `owner` for the state `key`; a fresh one when the key changed."""
    stores = getattr(_local, "stores", None)
    if stores is None:
        stores = _local.stores = {}
    store = stores.get(owner)
    if store is None or store["key"] != key:
        store = stores[owner] = {"key": key}
    return store
