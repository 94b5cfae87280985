"""Sweeps: every (point, algorithm, replication) is one job, run on the local cores or on a
Dask cluster (small jobs packed into tasks of about 0.1 s, :mod:`coapcc._batch`), with the
same result whichever.

A point's scenario is the scenario with the run's overrides and then the point's settings
applied, in that order (as ``coapcc sim FILE --set … --replications N --seed S --algorithm A
--sweep KEY=V1,V2`` builds it), and replication ``r`` of it draws every random stream from
(scenario seed, r, stream): a task's output does not depend on where, when, or with what
else it runs. Outputs are gathered per point in (algorithm, replication) order and summarised
by the same Rust code as the CLI, so the frame and ``sweep.csv`` are identical whether the
sweep ran through the CLI, locally, or on a cluster of any size.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _batch
from . import AnyResult, Overrides, Scenario, ScenarioLike, _call_text, _coapcc, _result, _run_settings, _scenario, _write_files
from ._extras import require
from ._values import text_of

Point = Tuple[Tuple[str, Any], ...]
"""A sweep point: ``((key, value), …)`` in grid order."""

TaskSpec = Tuple[str, str, Tuple[Tuple[str, str], ...], int, int]
"""What a task needs: (scenario text, file name, settings as CLI texts, algorithm, replication)."""


@functools.lru_cache(maxsize=64)
def _resolved(source: str, file: str, settings: Tuple[Tuple[str, str], ...]) -> Any:
    """A point's scenario, parsed once per process (a worker runs many tasks of a point)."""
    return _coapcc.resolve(source, file, list(settings))


def run_task(spec: TaskSpec) -> bytes:
    """Runs one sweep task (on a Dask worker, or anywhere): the job's output as bytes.

    A module-level function so that Dask pickles it by reference; the worker needs the
    ``coapcc`` package installed, nothing else (the scenario travels as text).
    """
    source, file, settings, algorithm, replication = spec
    return _coapcc.run_job(_resolved(source, file, settings), algorithm, replication)


def points(grid: Mapping[str, Sequence[Any]]) -> List[Point]:
    """Every combination of the grid's values, in order: the last key varies fastest, as with
    repeated ``--sweep``.

    >>> points({"flows": [10, 20], "buffer_bytes": [2500, 5000]})[:2]
    [(('flows', 10), ('buffer_bytes', 2500)), (('flows', 10), ('buffer_bytes', 5000))]
    """
    keys = list(grid)
    for k in keys:
        if isinstance(grid[k], (str, bytes)) or len(grid[k]) == 0:
            raise ValueError(f"bad sweep of `{k}`: expected a non-empty list of values")
    return [tuple(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]


def _texts(point: Point) -> List[Tuple[str, str]]:
    return [(k, text_of(v)) for k, v in point]


def _label(point: Point) -> str:
    """The folder name ``coapcc sim --sweep`` gives the point."""
    return _coapcc.sweep_label(_texts(point))


def _part(point: Point, result: AnyResult) -> pd.DataFrame:
    """A point's rows of :attr:`SweepResult.frame`: the swept keys, then its summary."""
    df = result.summary.copy()
    for i, (k, v) in enumerate(point):
        df.insert(i, k, [v] * len(df))
    return df


class SweepResult:
    """The results of a sweep: :attr:`frame` (the swept keys, then the columns of
    ``summary.csv``: one row per point × algorithm, or for a multihop scenario per point ×
    algorithm × metric; rows in point order then the summary's order), :attr:`results` (a
    :class:`~coapcc.SimResult` per point), :meth:`to_csv`
    (the bytes of ``coapcc sim --sweep``'s ``sweep.csv``), :meth:`save`, and :attr:`kept`
    (how many points a sweep with ``out=`` took from an earlier run instead of running) and
    :attr:`stats` (throughput and overhead)."""

    stats: Dict[str, Any]
    """How the sweep ran (set by :func:`sweep`): ``jobs`` (the (point, algorithm, replication)
    jobs run, kept points' not counted), ``wall_s`` (the whole call) and ``jobs_per_s``
    (``jobs / wall_s``); on a cluster also ``tasks``, ``jobs_per_task``, ``threads`` (the
    cluster's worker threads), ``probe_s`` (the jobs timed on this process to size the tasks),
    ``cluster_s`` (from submitting the tasks to having every output), ``compute_s`` (the tasks'
    time computing jobs, added up) and ``overhead_ms`` (a task's mean time on a worker thread
    not spent computing: ``(cluster_s × threads − compute_s) / tasks``, in ms; it includes
    threads left idle). Locally these are None."""

    def __init__(
        self,
        scenario: Scenario,
        points: List[Point],
        results: List[AnyResult],
        kept: int = 0,
        parts: Optional[List[pd.DataFrame]] = None,
    ) -> None:
        self.scenario = scenario
        self.points = points
        self.results = results
        self.kept = kept
        self.stats = _batch.stats(0, 0.0)
        # The call that made the sweep, as run.json records it (set by sweep).
        self._call = f"coapcc.sweep (Python): {scenario.name}"
        if parts is None:
            parts = [_part(point, result) for point, result in zip(points, results)]
        self.frame: pd.DataFrame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    def to_csv(self) -> str:
        """``sweep.csv`` as ``coapcc sim --sweep`` writes it."""
        if not self.points:
            return ""
        text = self.results[0]._output.sweep_header(_texts(self.points[0]))
        for point, result in zip(self.points, self.results):
            text += result._output.sweep_rows(_texts(point))
        return text

    def save(self, directory: Union[str, "os.PathLike[str]"], samples: bool = False) -> Path:
        """Writes what ``coapcc sim --sweep … --out DIRECTORY`` writes: each point's files in
        ``DIRECTORY/<key=value,…>/`` and ``DIRECTORY/sweep.csv``; returns the latter's path."""
        d = Path(directory)
        for point, result in zip(self.points, self.results):
            _save_point(d / _label(point), result, samples)
        return self._save_sweep_csv(d)

    def _save_sweep_csv(self, d: Path) -> Path:
        """Writes ``d/sweep.csv`` and the sweep folder's ``run.json`` (the seed when every
        point has the same); returns the former's path."""
        _write_files(d, [("sweep.csv", self.to_csv())])
        seeds = {r.scenario.seed for r in self.results}
        _coapcc.write_run_json(os.fspath(d), self._call, seeds.pop() if len(seeds) == 1 else None)
        return d / "sweep.csv"

    def __repr__(self) -> str:
        return f"<coapcc.SweepResult {self.scenario.name!r}: {len(self.points)} points>"


def sweep(
    scenario: ScenarioLike,
    grid: Mapping[str, Sequence[Any]],
    algorithms: Optional[Sequence[str]] = None,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    client: Any = None,
    jobs: Optional[int] = None,
    progress: bool = False,
    set: Optional[Overrides] = None,
    out: Union[str, "os.PathLike[str]", None] = None,
    force: bool = False,
    samples: bool = False,
    batch_s: Optional[float] = 0.1,
    batch_jobs: Optional[int] = None,
) -> SweepResult:
    """Runs ``scenario`` at every point of ``grid`` (``{"buffer_bytes": [2500, 5000],
    "flows": [10, 20]}``; the last key varies fastest): every (point, algorithm, replication)
    is one job.

    ``client=None`` runs the jobs on the local cores (``jobs`` threads, 1 to 1024, default one
    per core, never more than the jobs);
    a ``dask.distributed.Client`` runs them on its cluster (Dask's progress, dashboard and
    retries apply: a task lost with a killed worker is run again, with the same output).
    On a cluster, small jobs are packed into tasks of about ``batch_s`` seconds (default 0.1;
    None or 0: one job per task), since a Dask task costs milliseconds whatever it runs: the
    first job of each point is run and timed on this process first (point after point until
    the probes have taken ``batch_s``; their outputs are kept, not run again), a point not
    probed is taken to cost the probes' mean, and consecutive jobs (in point, algorithm,
    replication order) are cut into tasks of equal estimated cost, as many as a multiple of
    the cluster's worker threads (so that the workers end together), each of at least
    ``batch_s`` (to within one job) where the total allows and at least four per worker thread
    (:func:`coapcc._batch.by_cost`). ``batch_jobs=N`` packs exactly N jobs per task instead
    (no probe; 1 turns packing off). Each point's outputs are fetched and summarised as soon
    as its tasks are done, while the others run. Packing never changes the results.
    :attr:`SweepResult.stats` reports the throughput and the overhead per task.
    ``progress=True`` shows Dask's progress bar (a widget in Jupyter, text in a terminal).
    ``algorithms``, ``replications``, ``seed`` and ``set`` override the scenario's as in
    :func:`sim` (before the point's settings; ``algorithms`` one name or a non-empty list).
    The result is the same, value for value and in the same order, however it ran. A
    multihop scenario sweeps the same way (``grid={"multihop.udgm.success_ratio_tx": [1,
    0.9]}``).

    ``out`` (a folder) makes the sweep resumable, as ``coapcc sim --sweep … --out DIR``: each
    point's files (``samples.csv`` too when ``samples``) and its finished piece go to
    ``out/<key=value,…>/`` as soon as the point is done, and ``sweep.csv`` at the end; a point
    whose piece is already there, written for the same resolved scenario (its canonical TOML,
    hashed) by the same coapcc version, is kept and not run again, so an interrupted sweep
    continues where it stopped (a CLI sweep into the same folder too). ``force=True`` runs every
    point again. The result is the same either way; ``.kept`` says how many points were kept.

    >>> r = coapcc.sweep("scenarios/fasor/10-flows-high-errors-random.toml",
    ...                  grid={"buffer_bytes": [2500, 5000]}, replications=4)
    >>> r.frame.pivot(index="buffer_bytes", columns="algorithm", values="fct_p50_s")
    """
    start = time.perf_counter()
    base = _scenario(scenario)
    run = _run_settings(algorithms, replications, seed, set)
    pts = points(grid)
    # Every point is checked (parsed with its settings) before any task runs.
    scenarios = [base.with_settings(run + list(p)) for p in pts]
    kwargs = dict(grid=grid, algorithms=algorithms, replications=replications, seed=seed, jobs=jobs, set=set)
    kwargs.update(out=None if out is None else os.fspath(out), force=force or None, samples=samples or None)
    batch_s = batch_s or 0.0
    kwargs.update(batch_s=None if batch_s == 0.1 else batch_s, batch_jobs=batch_jobs)
    call = _call_text("coapcc.sweep", scenario, **kwargs)
    batching = dict(progress=progress, batch_s=batch_s, batch_jobs=batch_jobs)
    if out is None:
        results: List[Any] = [None] * len(scenarios)
        parts: List[Any] = [None] * len(scenarios)
        measured: Dict[str, Any]

        def keep(i: int, output: Any) -> None:
            # The point's result and rows, made as soon as its output is in (on a cluster,
            # while the tasks of the other points still run).
            results[i] = _with_call(_result(scenarios[i], output), call)
            parts[i] = _part(pts[i], results[i])

        if client is None:
            for i, o in enumerate(_coapcc.simulate_many([s._resolved for s in scenarios], jobs)):
                keep(i, o)
            measured = {"jobs": sum(len(s.algorithms) * s.replications for s in scenarios)}
        else:
            measured = _on_cluster(client, scenarios, keep, **batching)
        result = SweepResult(base, pts, results, parts=parts)
    else:
        result, measured = _resumable(base, pts, scenarios, Path(out), force, samples, client, jobs, batching, call)
    result.stats = _batch.stats(wall_s=time.perf_counter() - start, **measured)
    return _with_call(result, call)


def _with_call(result: Any, call: str) -> Any:
    """``result`` (a point's or the sweep's), recording ``call`` as the call that made it."""
    result._call = call
    return result


PIECE = ".coapcc-piece"
"""The file name of a finished point's piece in its folder (``coapcc_sim::sweep::store``)."""


def _save_point(directory: Path, result: AnyResult, samples: bool) -> None:
    """A point's result files, then its piece (so a piece on disk means its files are there)."""
    result.save(directory, samples=samples)
    _write_files(directory, [(PIECE, result._output.piece())])


def _kept(directory: Path, scenario: Scenario) -> Optional[Any]:
    """The output kept in the piece in ``directory`` for ``scenario``, or None."""
    try:
        data = (directory / PIECE).read_bytes()
    except OSError:
        return None
    return _coapcc.kept_piece(scenario._resolved, data)


def _resumable(
    base: Scenario,
    pts: List[Point],
    scenarios: List[Scenario],
    out: Path,
    force: bool,
    samples: bool,
    client: Any,
    jobs: Optional[int],
    batching: Dict[str, Any],
    call: str,
) -> Tuple[SweepResult, Dict[str, Any]]:
    """:func:`sweep` with ``out``: kept points are taken, the others run and are saved as each
    finishes (all of them at once on a cluster), then ``sweep.csv`` is written. As with
    ``coapcc sim --sweep``, a kept point's result files and ``run.json`` are written again by
    this call (from its piece, the same bytes; the piece itself stays): its ``run.json`` names
    the call that wrote the folder as it is now, not the earlier one."""
    for s in scenarios:
        _coapcc.check(s._resolved)
    dirs = [out / _label(p) for p in pts]
    outputs: List[Optional[Any]] = [None if force else _kept(d, s) for d, s in zip(dirs, scenarios)]
    kept = sum(o is not None for o in outputs)
    for i, o in enumerate(outputs):
        if o is not None:
            _with_call(_result(scenarios[i], o), call).save(dirs[i], samples=samples)
    todo = [i for i, o in enumerate(outputs) if o is None]
    measured: Dict[str, Any] = {"jobs": sum(len(scenarios[i].algorithms) * scenarios[i].replications for i in todo)}
    if client is not None and todo:

        def save(k: int, output: Any) -> None:
            i = todo[k]
            outputs[i] = output
            _save_point(dirs[i], _with_call(_result(scenarios[i], output), call), samples)

        measured = _on_cluster(client, [scenarios[i] for i in todo], save, **batching)
    else:
        for i in todo:
            (outputs[i],) = _coapcc.simulate_many([scenarios[i]._resolved], jobs)
            _save_point(dirs[i], _with_call(_result(scenarios[i], outputs[i]), call), samples)
    result = _with_call(SweepResult(base, pts, [_with_call(_result(s, o), call) for s, o in zip(scenarios, outputs)], kept), call)
    result._save_sweep_csv(out)
    return result, measured


Job = Tuple[int, int, int]
"""A job of a sweep: (point number, algorithm number, replication)."""

Batch = Tuple[Tuple[str, str, Tuple[Tuple[str, str], ...], Tuple[Tuple[int, int], ...]], ...]
"""What a batched task needs: per point it touches, (scenario text, file name, settings as CLI
texts, its jobs' (algorithm, replication) in order)."""


def run_batch(batch: Batch) -> Tuple[List[bytes], float]:
    """Runs a task's jobs in order (on a Dask worker, or anywhere): their outputs as bytes, and
    the seconds spent computing them (what :attr:`SweepResult.stats` adds up as ``compute_s``).
    A module-level function, as :func:`run_task`."""
    start = time.perf_counter()
    outs = [run_task((source, file, settings, a, r)) for source, file, settings, jobs in batch for a, r in jobs]
    return outs, time.perf_counter() - start


def _spec(s: Scenario, a: int, r: int) -> TaskSpec:
    return (s._source, s._file, tuple(s.settings), a, r)


def _probe(scenarios: List[Scenario], batch_s: float) -> Tuple[Dict[int, float], Dict[Job, bytes], float]:
    """Times the first job of each point on this process, point after point until the probes
    have taken ``batch_s`` (at least one): each probed point's seconds per job, the probes'
    outputs (kept: those jobs are not run again), and the seconds the probes took."""
    costs: Dict[int, float] = {}
    outs: Dict[Job, bytes] = {}
    spent = 0.0
    for i, s in enumerate(scenarios):
        if costs and spent >= batch_s:
            break
        spec = _spec(s, 0, 0)
        _resolved(*spec[:3])  # parsed once per process on a worker too: not part of a job's cost
        start = time.perf_counter()
        outs[(i, 0, 0)] = run_task(spec)
        costs[i] = time.perf_counter() - start
        spent += costs[i]
    return costs, outs, spent


def _on_cluster(
    client: Any,
    scenarios: List[Scenario],
    each: Callable[[int, Any], None],
    progress: bool = False,
    batch_s: Optional[float] = None,
    batch_jobs: Optional[int] = None,
) -> Dict[str, Any]:
    """Runs every job of every point on ``client``'s cluster, packed into tasks
    (:mod:`coapcc._batch`), and calls ``each(point number, output)`` as soon as a point's jobs
    are all in (so fetching and summarising the outputs overlaps the tasks still running);
    returns the run's measurements for :func:`coapcc._batch.stats` (all but the wall time)."""
    # A missing progress bar is said before anything runs (the probe runs jobs locally).
    distributed = require("dask.distributed", "coapcc.sweep(progress=True)" if progress else "coapcc.sweep(client=…)")
    for s in scenarios:
        # As `coapcc sim --sweep`: every point is checked before any task runs.
        _coapcc.check(s._resolved)
    jobs: List[Job] = [(i, a, r) for i, s in enumerate(scenarios) for a in range(len(s.algorithms)) for r in range(s.replications)]
    threads = sum(client.nthreads().values())
    done: Dict[Job, bytes] = {}
    probe_s = 0.0
    if batch_jobs is not None:
        tasks = _batch.fixed(len(jobs), batch_jobs)
    elif batch_s:
        probed, done, probe_s = _probe(scenarios, batch_s)
        jobs = [j for j in jobs if j not in done]
        cost = _batch.estimates(probed, len(scenarios))
        tasks = _batch.by_cost([cost[i] for i, _, _ in jobs], batch_s, threads)
    else:
        tasks = _batch.fixed(len(jobs), 1)
    batches: List[Batch] = []
    for task in tasks:
        groups = itertools.groupby((jobs[k] for k in task), key=lambda j: j[0])
        batches.append(tuple(_spec(scenarios[i], 0, 0)[:3] + (tuple((a, r) for _, a, r in g),) for i, g in groups))
    # Deterministic task keys (the same sweep packed the same way is the same graph), one per
    # task's first job and length, so that differently packed sweeps never share a key.
    digest = hashlib.sha256(repr([(s._source, s._file, s.settings) for s in scenarios]).encode()).hexdigest()[:16]
    keys = ["coapcc-task-{}-{}-{}-{}-{}".format(digest, *jobs[t[0]], len(t)) for t in tasks]

    left = [len(s.algorithms) * s.replications for s in scenarios]
    per: List[List[Tuple[int, int, bytes]]] = [[] for _ in scenarios]

    def finish(job: Job, out: bytes) -> None:
        i, a, r = job
        per[i].append((a, r, out))
        left[i] -= 1
        if left[i] == 0:
            each(i, _coapcc.gather(scenarios[i]._resolved, per[i]))
            per[i] = []

    for job, out in done.items():
        finish(job, out)
    start = time.perf_counter()
    futures = client.map(run_batch, batches, key=keys, pure=False)
    if progress:
        distributed.progress(futures)
    task_of = {f.key: t for f, t in zip(futures, tasks)}
    compute_s, cluster_s = 0.0, 0.0
    for future, (outs, seconds) in distributed.as_completed(futures, with_results=True):
        cluster_s = time.perf_counter() - start
        compute_s += seconds
        for k, out in zip(task_of[future.key], outs):
            finish(jobs[k], out)
    return dict(
        jobs=len(jobs) + len(done),
        tasks=len(tasks),
        threads=threads,
        cluster_s=cluster_s,
        compute_s=compute_s,
        probe_s=probe_s,
    )
