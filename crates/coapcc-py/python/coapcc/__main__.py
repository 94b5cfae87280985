"""``python -m coapcc sweep SCENARIO --sweep KEY=V1,V2 …``: a sweep from the command line,
locally or on a running Dask scheduler (``--scheduler tcp://HOST:PORT``), writing what
``coapcc sim SCENARIO --sweep …`` writes (each point's files and ``sweep.csv``) and printing
what it prints. Errors: one line ``error: …`` on standard error; exit code 2 for bad input,
1 for a failure.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import Scenario, SweepResult, _coapcc, sweep
from ._extras import require


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m coapcc", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sweep", help="run a sweep (locally or on a Dask scheduler) and write sweep.csv")
    s.add_argument("scenario", help="scenario file (see scenarios/)")
    s.add_argument("--sweep", action="append", required=True, metavar="KEY=V1,V2,…", help="a swept key (repeatable)")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a scenario key (repeatable)")
    s.add_argument("-a", "--algorithm", action="append", default=[], help="run this algorithm (repeatable)")
    s.add_argument("--replications", type=int, help="replications per algorithm")
    s.add_argument("--seed", type=int, help="seed instead of the scenario's")
    s.add_argument("--out", type=Path, help="output folder (default results/<scenario name>/)")
    s.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://HOST:PORT); local without")
    s.add_argument("--jobs", type=int, help="local worker threads, 1 to 1024 (default: one per core)")
    s.add_argument(
        "--batch-s",
        type=float,
        default=0.1,
        metavar="SECONDS",
        help="with --scheduler: pack small jobs into tasks of about this many seconds (default 0.1; 0: one job per task)",
    )
    s.add_argument("--samples", action="store_true", help="also write samples.csv per point")
    s.add_argument(
        "--force",
        action="store_true",
        help="run every point again (by default a point finished in --out by the same scenario and coapcc version is kept)",
    )
    s.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    return p


def _sweep(args: argparse.Namespace) -> None:
    scenario = Scenario.load(args.scenario)
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"expected KEY=VALUE, got `{item}`")
        # The value text is read as the CLI reads it.
        scenario = scenario.set(key.strip(), value.strip())
    grid = {}
    for text in args.sweep:
        key, values = _coapcc.parse_sweep(text)
        if key in grid:
            # As `coapcc sim`: the later values would run under the earlier ones' labels.
            raise ValueError(f"--sweep: key `{key}` is swept twice; give all its values in one --sweep ({key}=V1,V2,…)")
        grid[key] = values
    out = args.out if args.out is not None else Path("results") / scenario.name
    # As `coapcc sim`: the folder is checked before anything runs, and a run that then fails
    # leaves none of the folders the check created (those still empty).
    with _coapcc.check_writable(os.fspath(out)):
        result = _run(args, scenario, grid, out)
    if result.kept and not args.quiet:
        print(
            f"kept {result.kept} sweep point(s) finished by an earlier run of the same scenario and coapcc version (--force runs them again)",
            file=sys.stderr,
        )
    if not args.quiet:
        for point, r in zip(result.points, result.results):
            label = _coapcc.sweep_label([(k, v) for k, v in point])
            s = r.scenario
            print(f"== {s.name} [{label}] (seed {s.seed}, {s.replications} replications)")
            sys.stdout.write(r.summary_text())
            print(f"results: {out / label}")


def _run(args: argparse.Namespace, scenario: Scenario, grid: dict, out: Path) -> SweepResult:
    """The sweep of ``args`` into ``out``, on the Dask scheduler of ``--scheduler`` if given."""
    client = None
    if args.scheduler:
        client = require("dask.distributed", "--scheduler").Client(args.scheduler)
    try:
        return sweep(
            scenario,
            grid=grid,
            algorithms=args.algorithm or None,
            replications=args.replications,
            seed=args.seed,
            client=client,
            jobs=args.jobs,
            out=out,
            force=args.force,
            samples=args.samples,
            batch_s=args.batch_s,
        )
    finally:
        if client is not None:
            client.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command line; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "sweep":
            _sweep(args)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except ImportError as e:
        # A missing optional dependency: the message names the extra that installs it.
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
