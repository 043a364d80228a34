"""What the table-server tests share: a demo campaign with a seat for every WHO, and
the real server (``ledger serve``, uvicorn in a child process) on a free port.

``table(tmp)`` plays the demo into ``tmp/demo.db`` once per call and opens seats for
master, public and each hero; ``serving(db)`` starts ``ledger --db DB serve`` and
yields its base URL once it answers, then stops it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from ledger.interface.cli import cli

WHO = ("master", "public", "ana", "bo")


@dataclass
class Table:
    db: Path | str  # a file, or a PostgreSQL URL
    tokens: dict[str, str]  # who -> token

    def ledger(self, *args: str) -> str:
        """Runs ``ledger --db DB ARGS`` in this process; returns stdout (fails the test on exit != 0)."""
        result = CliRunner().invoke(cli, ["--db", str(self.db), *args])
        assert result.exit_code == 0, result.output
        return result.output

    def headers(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


def table(tmp: Path, db: Path | str | None = None) -> Table:
    """The demo in ``tmp/demo.db`` (or ``db``: a PostgreSQL URL), with a seat for every WHO."""
    db = db or tmp / "demo.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "demo"])
    assert result.exit_code == 0, result.output
    tokens = {}
    for who in WHO:
        out = CliRunner().invoke(cli, ["--db", str(db), "--json", "seat", "add", who])
        assert out.exit_code == 0, out.output
        tokens[who] = json.loads(out.output)["token"]
    return Table(db, tokens)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(db: Path | str, workers: int = 1, timeout: float = 20.0, logs: Path | None = None) -> Iterator[str]:
    """``ledger serve`` on a free port, in a child process; yields ``http://127.0.0.1:PORT``.
    Its log goes to ``serve-PORT.log`` beside the file (or in ``logs``)."""
    with server(db, workers, logs or Path(db).parent, timeout) as (base, _proc, _log):
        yield base


@contextmanager
def server(db: Path | str, workers: int, logs: Path, timeout: float = 20.0, options: tuple[str, ...] = ()
           ) -> Iterator[tuple[str, subprocess.Popen, Path]]:
    """``ledger --db DB serve --workers N [OPTIONS]`` on a free port, in a child process,
    once every worker has started; yields (base URL, the process, its log's path), then
    stops it."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log_path = logs / f"serve-{port}.log"
    log = log_path.open("w+b")  # a file, not a pipe nobody reads (it would fill)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ledger", "--db", str(db), "serve", "--port", str(port), "--workers", str(workers),
         *options],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                with urllib.request.urlopen(base + "/openapi.json", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"ledger serve did not start: {log_path.read_text(errors='replace')}") from None
                time.sleep(0.05)
        # every worker up (each logs its startup), not only the first to answer
        while log_path.read_bytes().count(b"Application startup complete") < workers:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ledger serve: not every worker started: {log_path.read_text(errors='replace')}")
            time.sleep(0.05)
        yield base, proc, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
