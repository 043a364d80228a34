#!/usr/bin/env python
"""Soak run of the crash test (tests/test_crash.py): a child process records actions
on a real SQLite campaign file and is killed with SIGKILL at random moments, 200 times
by default; after every kill the same checks as the test run (verify passes, nothing
reported committed is lost, nothing half-written is visible, the read models catch up
on the next command).

    python tests/soak/run_crash_soak.py                 # 200 kills
    python tests/soak/run_crash_soak.py --kills 1000 --seed 7 --per-db 100

The campaign is continued across kills; a new campaign file is started every
``--per-db`` kills so that ``verify`` (which replays the whole log) stays quick.
Prints each kill that found a problem, then one summary line:

    kills: 200, actions committed: N, lost: 0, verify failures: 0

and exits 1 if any kill found a problem. Not collected by pytest (no ``test_`` prefix).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.test_crash import CrashRig, Figures  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200, help="how many SIGKILLs (default 200)")
    parser.add_argument("--seed", type=int, default=None, help="fixes the delays and seeds (default: random)")
    parser.add_argument("--per-db", type=int, default=50, help="kills per campaign file (default 50)")
    parser.add_argument("--dir", default=None, help="where to put the campaign files (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the campaign files")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="ledger-crash-soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"crash soak: {args.kills} kills, seed {seed}, files in {workdir}", flush=True)

    total = Figures()
    started = time.monotonic()
    rig: CrashRig | None = None
    try:
        for number in range(args.kills):
            if rig is None or number % args.per_db == 0:
                if rig is not None:
                    _add(total, rig.figures)
                rig = CrashRig(workdir / f"campaign-{number // args.per_db:03d}.db", seed + number)
            cycle = rig.cycle(number)
            if cycle.problems:
                print(f"PROBLEM {cycle.describe()}:\n  " + "\n  ".join(cycle.problems), flush=True)
            elif (number + 1) % 10 == 0:
                print(f"  {number + 1} kills, {time.monotonic() - started:.0f}s, log at seq {rig.last}", flush=True)
        if rig is not None:
            _add(total, rig.figures)
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(total.details())
    print(total.summary())
    return 1 if total.failed_kills or total.lost or total.verify_failures else 0


def _add(total: Figures, part: Figures) -> None:
    for name in ("kills", "committed", "reported", "lost", "verify_failures", "failed_kills"):
        setattr(total, name, getattr(total, name) + getattr(part, name))


if __name__ == "__main__":
    sys.exit(main())
