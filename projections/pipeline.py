"""A rebuild on two cores: a helper process reads the log, decodes its actions and makes
their rows (``_Fold.rows_of``) while the rebuilding process writes them, batch by batch.
Reading and making rows, and writing them, each take about half of a rebuild's time.

Only where it pays and can be done safely: the tables in an SQLite file, a log of ``LONG``
notifications or more (a helper costs a Python start), and an event log whose class
opens the file from its path (``open``, as ``ledger.application.Ledger`` does: the
helper calls it, so the read side imports no application). The helper only reads
the log, through eventsourcing's recorder. The rebuilding process still writes every
batch with its position in one transaction, and only a batch that starts right after
the position (``ReadModel._follow``). The pipe keeps the helper at most one batch
ahead, so memory stays flat.

The helper is ``python -c`` (not ``multiprocessing``, which would run a caller's
unguarded script again in the child). Its orders come on stdin, the rows go back
pickled on stdout, and its errors are not shown: if it fails or stops, no more
batches come, and the rebuilding process makes the rest of the rows itself. It then
meets any problem the helper met and reports it as a one-process rebuild would.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

from .readmodel import _Fold, _Rows
from .source import EventLog
from .tables import SQLiteTables, Tables

LONG = 50_000  # notifications from which a helper pays for its start (about half a second)
_RUN = "import pickle, sys; sys.path[:0] = pickle.load(sys.stdin.buffer); " \
       "from projections.pipeline import help_rebuild; help_rebuild()"


def helper_for(log: EventLog, tables: Tables, batch: int) -> Helper | None:
    """A helper making the rows of a rebuild of ``log`` in batches of ``batch``
    notifications, or None where the rebuild does better alone (see the module)."""
    opener = getattr(type(log), "open", None)
    if not (isinstance(tables, SQLiteTables) and callable(opener) and sys.executable):
        return None
    if not Path(tables.path).is_file() or (log.recorder.max_notification_id() or 0) < LONG:
        return None
    try:
        return Helper(opener, tables.path, batch)
    except OSError:  # it could not start
        return None


class Helper:
    """The helper process of one rebuild, and the batches of rows it sends."""

    def __init__(self, opener: Any, path: str, batch: int):
        self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-c", _RUN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            with self._process.stdin as orders:  # type: ignore[union-attr]
                pickle.dump([p or os.getcwd() for p in sys.path], orders)
                pickle.dump((opener, path, batch), orders)
        except OSError:
            self.close()
            raise

    def rows_after(self, start: int) -> _Rows | None:
        """The helper's next batch, if it is the one right after position ``start``;
        otherwise None, and the helper is stopped: it has sent its last batch, failed, or
        fallen out of step (the tables were reset meanwhile)."""
        if self._process is None:
            return None
        try:
            rows = pickle.load(self._process.stdout)  # type: ignore[arg-type]
        except Exception:  # EOFError after its last batch; anything else, it failed midway
            rows = None
        if not isinstance(rows, _Rows) or rows.start != start:
            self.close()
            return None
        return rows

    def close(self) -> None:
        """Stops the helper, whether it has finished or not."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
            if process.stdout is not None:
                process.stdout.close()


def help_rebuild() -> None:
    """The helper's side (``_RUN``): opens the log its orders name and sends the rows of
    each batch of it, from the start to the log's end as it finds it."""
    opener, path, batch = pickle.load(sys.stdin.buffer)
    log = opener(path)
    try:
        fold, out, recorder = _Fold(log), sys.stdout.buffer, log.recorder
        start, end = 0, recorder.max_notification_id() or 0
        while start < end:
            notes = recorder.select_notifications(start=start + 1, limit=batch)
            if not notes:
                break
            pickle.dump(fold.rows_of(notes).rows(start, notes), out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
            start = notes[-1].id
    finally:
        getattr(log, "close", lambda: None)()
