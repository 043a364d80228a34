"""Benchmark: what one commit costs at the append floor, by how long since the one before.

    python tests/benchmarks/commit_pace.py FILE       # e.g. /tmp/ledger-bench/c10000.db

The append floor of ``run.py`` commits back to back (BEGIN IMMEDIATE, one INSERT, COMMIT;
WAL, synchronous=FULL). The ledger decides an action between two commits (~0.5–0.9 ms
here), and on this machine a commit costs more the longer since the one before, whether
that time was spent working or asleep. This prints the median and mean insert + commit at
each pace, in rounds that alternate between the paces so that the disk's moods weigh on
all alike, into the log's own table in a copy of FILE (the file itself is not touched).

Not collected by pytest; prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

PACES_US = (0, 200, 400, 600, 1000, -1000)  # microseconds between commits; negative: asleep


def busy(microseconds: int, junk: list[dict]) -> None:
    """Work the CPU (dictionary and list lookups, as Python code does) for a while."""
    end = time.perf_counter() + microseconds / 1e6
    j = 0
    while time.perf_counter() < end:
        len(junk[(j * 7919) % len(junk)]["b"])
        j += 1


def measure(path: Path, rounds: int = 10, per_round: int = 100) -> dict[int, list[float]]:
    """Seconds of each insert + commit at each pace of ``PACES_US``."""
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / "floor.db"
        shutil.copyfile(path, copy)
        if Path(f"{path}-wal").exists():
            shutil.copyfile(f"{path}-wal", f"{copy}-wal")
        raw = sqlite3.connect(copy, isolation_level=None)
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("PRAGMA synchronous=FULL")
        sample = [row[0] for row in raw.execute("SELECT state FROM stored_events ORDER BY rowid DESC LIMIT 200")]
        if not sample:
            raise SystemExit(f"{path}: no stored events to copy (give a campaign file)")
        version = 0
        junk = [{"a": i, "b": str(i)} for i in range(200_000)]
        times: dict[int, list[float]] = {pace: [] for pace in PACES_US}
        for _ in range(rounds):
            for pace in PACES_US:
                for _ in range(per_round):
                    if pace > 0:
                        busy(pace, junk)
                    elif pace < 0:
                        time.sleep(-pace / 1e6)
                    version += 1
                    t0 = time.perf_counter()
                    raw.execute("BEGIN IMMEDIATE")
                    raw.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) "
                                "VALUES (?, ?, ?, ?)", ("pace", version, "t", sample[version % len(sample)]))
                    raw.execute("COMMIT")
                    times[pace].append(time.perf_counter() - t0)
        raw.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="a campaign file (copied; not changed)")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if not args.file.is_file():
        raise SystemExit(f"{args.file}: no such file")
    for pace, spent in measure(args.file, args.rounds).items():
        between = "nothing" if pace == 0 else f"{abs(pace)} µs {'asleep' if pace < 0 else 'of CPU'}"
        print(f"{between:>18} between commits: insert + commit median {1000 * statistics.median(spent):.3f} ms, "
              f"mean {1000 * statistics.mean(spent):.3f} ms")


if __name__ == "__main__":
    main()
