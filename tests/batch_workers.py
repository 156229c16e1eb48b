"""Worker functions for the batch tests: they kill their own process on chosen photos, or say
which process started them.

Passed to `sudoku_lens.batch.run(..., worker=...)`, imported by name in the worker processes
(local and Dask), so they live in a module of their own rather than in a test file.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from sudoku_lens.batch.work import Done, PhotoUnit, Unit, failed, work


def die_on_crash_photos(unit: Unit, encoding: str | None) -> Done:
    """Kill this process (SIGKILL, as the out-of-memory killer does) on a photo whose name
    holds `crash-always`, and on one holding `crash-once` the first time only (a marker file
    beside it remembers); do the real work otherwise."""
    if isinstance(unit, PhotoUnit):
        name = Path(unit.path).name
        marker = Path(unit.path + ".died")
        if "crash-always" in name or ("crash-once" in name and not marker.exists()):
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
    return work(unit, encoding)


def name_the_parent(unit: Unit, encoding: str | None) -> Done:
    """Record every item as an error that names the process this worker was started by."""
    return failed(unit, f"started by {os.getppid()}", encoding)
