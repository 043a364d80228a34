"""A rebuild on two cores: a helper process reads the log, decodes its actions and makes
their rows (``_Fold.rows_of``) while the rebuilding process writes them, batch by batch.
Reading and making rows cost more than writing them, so the rebuilding process makes
some batches itself: the first ``FIRST``, while the helper starts, then every
``SHARE``-th, while the helper goes on with the next ones.

Only where it pays and can be done safely: the tables in an SQLite file, a log of ``LONG``
notifications or more (a helper costs a Python start), and an event log whose class
opens the file from its path (``open``, as ``ledger.application.Ledger`` does: the
helper calls it, so the read side imports no application). The helper only reads
the log, through eventsourcing's recorder. The rebuilding process still writes every
batch with its position in one transaction, and only a batch that starts right after
the position (``ReadModel._follow``).

Batch ``k`` of a rebuild is notifications ``k·batch + 1`` to ``(k+1)·batch``, so both
processes know which batch is whose without a word (the log's notification ids have
no gaps; if they had one, the helper's next batch would not start at the position,
and the rebuilding process would go on alone). A thread of the rebuilding process
takes in the helper's batches as they come, at most ``AHEAD`` of them waiting to be
written (and one more on its way): memory stays flat, and neither process waits on the
other more than it must.

The helper is ``python -c`` (not ``multiprocessing``, which would run a caller's
unguarded script again in the child). Its orders come on stdin, the rows go back
pickled on stdout, and its errors are not shown: if it fails or stops, no more
batches come, and the rebuilding process makes the rest of the rows itself. It then
meets any problem the helper met and reports it as a one-process rebuild would.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from .readmodel import _Fold, _Rows
from .source import EventLog
from .tables import SQLiteTables, Tables

LONG = 50_000  # notifications from which a helper pays for its start (about half a second)
SHARE = 4  # then every SHARE-th batch is the rebuilding process's (making rows ~25 µs an event, writing ~17)
AHEAD = 2  # batches of the helper's that may wait to be written
FIRST = 2  # batches the rebuilding process makes first, while the helper starts
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
        self.batch, self.share, self.first = batch, SHARE, FIRST
        self._batches: queue.Queue[_Rows | None] = queue.Queue(maxsize=AHEAD)
        self._closing = threading.Event()
        self._reader: threading.Thread | None = None
        self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-c", _RUN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            with self._process.stdin as orders:  # type: ignore[union-attr]
                pickle.dump([p or os.getcwd() for p in sys.path], orders)
                pickle.dump((opener, path, batch, self.share, self.first), orders)
        except OSError:
            self.close()
            raise
        self._reader = threading.Thread(target=self._take_in, args=(self._process,), daemon=True,
                                        name="rebuild helper's batches")
        self._reader.start()

    def leaves(self, start: int) -> bool:
        """Is the batch after position ``start`` one the helper leaves to the rebuilding process?"""
        return start % self.batch == 0 and _leaves(start // self.batch, self.share, self.first)

    def rows_after(self, start: int) -> _Rows | None:
        """The helper's next batch, if it is the one right after position ``start``;
        otherwise None, and the helper is stopped: it has sent its last batch, failed, or
        fallen out of step (the tables were reset meanwhile)."""
        if self._process is None:
            return None
        rows = self._batches.get()
        if rows is None or rows.start != start:
            self.close()
            return None
        return rows

    def _take_in(self, process: subprocess.Popen[bytes]) -> None:
        """The reader thread: each batch the helper sends, unpickled, into the queue; None
        after the last (or when it fails)."""
        while True:
            try:
                rows = pickle.load(process.stdout)  # type: ignore[arg-type]
            except Exception:  # EOFError after its last batch; anything else, it failed midway
                rows = None
            if not isinstance(rows, _Rows):
                rows = None
            while not self._closing.is_set():
                try:
                    self._batches.put(rows, timeout=0.1)
                    break
                except queue.Full:
                    continue
            if rows is None or self._closing.is_set():
                return

    def close(self) -> None:
        """Stops the helper, whether it has finished or not. Called again after being cut
        short (Ctrl-C), it finishes the job."""
        process = self._process
        if process is None:
            return
        self._closing.set()
        process.kill()
        process.wait()
        if self._reader is not None:
            self._reader.join(timeout=10)  # it meets the end of the helper's output
        if process.stdout is not None:
            process.stdout.close()
        self._process = None


def _leaves(k: int, share: int, first: int) -> bool:
    """Is batch ``k`` of a rebuild (from 0) one the rebuilding process makes itself: one of
    the ``first`` (while the helper starts), or every ``share``-th after them?"""
    return k < first or (k - first) % share == share - 1


def help_rebuild() -> None:
    """The helper's side (``_RUN``): opens the log its orders name and sends the rows of
    each of its batches (those ``_leaves`` does not leave), from the start to the log's
    end as it finds it."""
    opener, path, batch, share, first = pickle.load(sys.stdin.buffer)
    log = opener(path)
    try:
        fold, out, recorder = _Fold(log), sys.stdout.buffer, log.recorder
        end = recorder.max_notification_id() or 0
        for start in range(0, end, batch):
            if _leaves(start // batch, share, first):
                continue
            notes = recorder.select_notifications(start=start + 1, limit=batch, stop=start + batch)
            if not notes:
                break
            pickle.dump(fold.rows_of(notes, after=start).rows(start, notes), out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
    finally:
        getattr(log, "close", lambda: None)()
