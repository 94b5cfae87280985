"""coapcc from Python: the algorithm registry, replay, simulation and sweeps.

The simulator is the Rust one of the ``coapcc`` command-line tool (this package wraps it
through PyO3), so a result here has the same numbers as ``coapcc sim`` and ``save()`` writes
the same bytes. Tables come as pandas DataFrames, built from Arrow buffers.

Example::

    import coapcc
    s = coapcc.Scenario.load("scenarios/fasor/10-flows-high-errors-random.toml").set("flows", 20)
    r = coapcc.sim(s, algorithms=["cocoa", "fasor"], replications=5)
    r.summary[["algorithm", "fct_p50_s", "loss_ratio"]]
    coapcc.sweep(s, grid={"buffer_bytes": [2500, 5000]}, replications=5).frame

A multihop scenario (a ``[multihop]`` table: ``scenarios/lim/``, ``scenarios/betzler/``,
``scenarios/makarem-cooja/``) runs the same way and gives the same :class:`SimResult`, with
``nodes`` too::

    r = coapcc.sim("scenarios/lim/e1-nullrdc-4x4.toml", replications=5)
    r.runs.groupby("algorithm").goodput_bps.mean()

Errors are Python exceptions with the CLI's messages: a bad key, value, name or file is a
``ValueError`` naming it (the CLI's exit code 2); a failure while running is a
``RuntimeError`` (exit code 1); Ctrl-C during a simulation raises ``KeyboardInterrupt``.
Three subclasses tell the simulator's errors apart:

- :class:`ScenarioError` (a ``ValueError``): a scenario, key, value, override or sweep point
  that does not check;
- :class:`BudgetError` (a ``ValueError``, like the CLI's exit code 2: nothing failed, the
  scenario as given needs more memory than there is; fewer flows, replications or ``jobs``
  run): a scenario the memory budget refuses before anything runs;
- :class:`RunError` (a ``RuntimeError``): a run (an algorithm's replication) that failed.
"""

from __future__ import annotations

import os
import warnings
import weakref
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _coapcc
from ._coapcc import BudgetError, RunError, ScenarioError
from ._frames import frame, maybe_frame
from ._values import text_of

__version__: str = _coapcc.__version__

__all__ = [
    "BudgetError",
    "RunError",
    "Scenario",
    "ScenarioError",
    "SimResult",
    "SweepResult",
    "algorithm",
    "algorithms",
    "colour_of",
    "palette",
    "replay",
    "sim",
    "sweep",
]


def algorithms() -> Any:
    """Every algorithm of the registry, one row each (``coapcc algorithms --format csv``).

    Columns: ``name``, ``family``, ``exactness``, ``state_bytes``, ``spec``, ``source``.

    >>> df = coapcc.algorithms()
    >>> df[df.family == "backoff"].name.tolist()[:3]
    ['default', 'default-aggressive', 'default-fb1']
    """
    return frame(_coapcc.algorithms_table())


def algorithm(name: str) -> Dict[str, Any]:
    """One algorithm: its registry row, ``keys`` (every configuration key with its preset
    value, as ``coapcc algorithms NAME`` prints), ``family_presets`` (the presets of its
    family) and ``documentation`` (its section of ``docs/algorithms.md``).

    >>> coapcc.algorithm("fasor")["keys"]["max_retransmit"]
    4

    Raises ``ValueError`` (listing the valid names) for an unknown name.
    """
    return dict(_coapcc.algorithm_info(name))


def replay(algorithm: str, script: str, *, seed: int = 1, no_dither: bool = False, **settings: Any) -> Any:
    """``coapcc replay``: run a script (``send``, ``wait MS``, ``ack``, ``ack copy K``; one
    command a line) on one controller and return its events.

    Columns: ``t_ms``, ``event`` (``transmit``, ``ack``, ``give_up``), ``exchange``, ``copy``
    (nullable integer), ``timer_ms`` (the timer armed for a transmission), ``rto_ms`` (after an
    ack: the undithered timer of the next original transmission, when the notion applies).
    Keyword arguments override configuration keys as ``--set`` does.

    >>> coapcc.replay("cocoa", "send\\nwait 400\\nack\\n", no_dither=True)
       t_ms     event  exchange  copy  timer_ms  rto_ms
    0   0.0  transmit         1     0    2000.0     NaN
    1 400.0       ack         1  <NA>       NaN  1600.0

    Raises ``ValueError`` naming the line or the key (the CLI's message).
    """
    pairs = [(k, text_of(v)) for k, v in settings.items()]
    df = frame(_coapcc.replay_events(algorithm, script, seed, pairs, no_dither))
    df["copy"] = df["copy"].astype("Int64")
    return df


def palette() -> Dict[str, str]:
    """The report's fixed colours (``#rrggbb``) per algorithm and series name: the same table
    the SVG figures of ``coapcc reproduce`` use."""
    return dict(_coapcc.palette())


def colour_of(name: str) -> str:
    """The colour (``#RRGGBB``) the report gives a series named ``name``: its palette entry,
    else that of the name before a space or ``(``, else a stable colour derived from the name."""
    return _coapcc.colour_of(name)


class Scenario:
    """A scenario: a scenario file's text plus settings, checked as ``coapcc sim`` checks it.

    Load one with :meth:`Scenario.load`, or build one from keys::

        s = coapcc.Scenario("mine", algorithms=["default", "cocoa"], replications=5,
                            network={"nbiot": {"buffer_bytes": 2500}},
                            workload={"flows": 10, "flow_type": "continuous"})

    A scenario is a value, as a pandas frame is: :meth:`set` returns a new scenario with a
    typed override applied exactly as ``--set KEY=VALUE`` does (bare or dotted key; a Python
    ``str`` is read as the CLI reads VALUE) and leaves this one unchanged; a bad key or value
    raises ``ValueError`` naming the key, and nothing is stored anywhere.
    """

    def __init__(self, name: str, **fields: Any) -> None:
        """A scenario named ``name`` from the keys of a scenario file (``description`` and
        ``source`` default to empty, ``seed`` and ``replications`` to 1)."""
        table: Dict[str, Any] = {"name": name, "description": "", "source": "", "seed": 1, "replications": 1}
        table.update(fields)
        self._init(_coapcc.dict_to_toml(table), name, [])

    def _init(self, source: str, file: str, settings: List[Tuple[str, str]]) -> None:
        # Resolved first: a setting that does not check leaves nothing behind.
        resolved = _coapcc.resolve(source, file, list(settings))
        self._source = source
        self._file = file
        self._settings = list(settings)
        self._resolved = resolved
        self._discarded_sets: List[Tuple[Any, str]] = []

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Scenario":
        """The scenario file at ``path``; when there is no such file, the built-in scenario
        of that name (``coapcc scenarios`` lists them), from any folder.

        >>> coapcc.Scenario.load("cocoa/10-flows-nstart-4").name
        'cocoa/10-flows-nstart-4'
        """
        file = os.fspath(path)
        return cls._from(_coapcc.read_scenario(file), file, [])

    @classmethod
    def from_toml(cls, text: str, file: str = "<string>") -> "Scenario":
        """The scenario of a scenario file's text (``file`` names it in errors)."""
        return cls._from(text, file, [])

    @classmethod
    def _from(cls, source: str, file: str, settings: List[Tuple[str, str]]) -> "Scenario":
        s = cls.__new__(cls)
        s._init(source, file, settings)
        return s

    def set(self, key: str, value: Any) -> "Scenario":
        """A new scenario: this one with ``key`` (``"flows"``, ``"algorithm.cocoa.aging"``) set
        to ``value`` as ``--set KEY=VALUE`` would; this one is unchanged (so calls chain, and a
        rejected value changes nothing).

        >>> s = s.set("flows", 50).set("algorithm.cocoa-plus.vbf", "makarem")

        Earlier builds of coapcc changed the scenario in place. Code written for that
        (``s.set("flows", 50)`` with the result dropped, then ``coapcc.sim(s)``) gets a
        ``FutureWarning`` naming the setting when the unchanged scenario is run: a result
        dropped on the floor is the one sign of it that Python leaves.
        """
        text = text_of(value)
        new = Scenario._from(self._source, self._file, self._settings + [(key, text)])
        self._discarded_sets.append((weakref.ref(new), f"{key}={text}"))
        return new

    def _warn_if_set_was_dropped(self) -> None:
        """The transition from the in-place ``set``: a ``FutureWarning`` when a scenario
        :meth:`set` returned was dropped (nothing refers to it any more) and this unchanged
        one is run instead."""
        dropped = [text for ref, text in self._discarded_sets if ref() is None]
        self._discarded_sets = [(ref, text) for ref, text in self._discarded_sets if ref() is not None]
        if dropped:
            warnings.warn(
                f"Scenario.set returns a new scenario and leaves this one unchanged: "
                f"{', '.join(dropped)} is not applied to the scenario run here (write `s = s.set(key, value)`)",
                FutureWarning,
                stacklevel=4,
            )

    def with_settings(self, settings: Iterable[Tuple[str, Any]]) -> "Scenario":
        """A copy with ``(key, value)`` settings applied after this one's."""
        extra = [(k, text_of(v)) for k, v in settings]
        return Scenario._from(self._source, self._file, self._settings + extra)

    def to_toml(self) -> str:
        """The fully resolved scenario as TOML (what ``scenario.toml`` of a result holds)."""
        return self._resolved.to_toml()

    @property
    def name(self) -> str:
        """The scenario's name (its default output folder is ``results/<name>/``)."""
        return self._resolved.name

    @property
    def seed(self) -> int:
        """The seed: replication ``r`` draws every random stream from (seed, r, stream)."""
        return self._resolved.seed

    @property
    def replications(self) -> int:
        """Replications per algorithm."""
        return self._resolved.replications

    @property
    def algorithms(self) -> List[str]:
        """The algorithms run, in order."""
        return list(self._resolved.algorithms)

    @property
    def model(self) -> str:
        """``"network"``, ``"trace"`` (the RTT-trace model) or ``"multihop"`` (a ``[multihop]``
        table: :func:`sim` gives a :class:`SimResult` with ``nodes``)."""
        return self._resolved.model

    @property
    def settings(self) -> List[Tuple[str, str]]:
        """The settings applied to the file, in order, as ``(key, CLI text)``."""
        return list(self._settings)

    def __getstate__(self) -> Dict[str, Any]:
        return {"source": self._source, "file": self._file, "settings": self._settings}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._init(state["source"], state["file"], state["settings"])

    def __repr__(self) -> str:
        return f"<coapcc.Scenario {self.name!r}: {', '.join(self.algorithms)}; {self.replications} replications, seed {self.seed}>"


ScenarioLike = Union[Scenario, str, "os.PathLike[str]"]


def _scenario(s: ScenarioLike) -> Scenario:
    if isinstance(s, Scenario):
        s._warn_if_set_was_dropped()
        return s
    return Scenario.load(s)


Overrides = Union[Mapping[str, Any], Iterable[Tuple[str, Any]]]
"""``--set`` overrides: ``{"multihop.csma.queuebuf_num": 4}`` or ``[(key, value), …]``."""


def _run_settings(
    algorithms: Optional[Sequence[str]],
    replications: Optional[int],
    seed: Optional[int],
    overrides: Optional[Overrides] = None,
) -> List[Tuple[str, Any]]:
    """The overrides of ``coapcc sim``'s options, in the order it applies them: ``--set``
    first, then ``--replications``, ``--seed``, ``--algorithm``. ``algorithms`` is None (the
    scenario's list), one name (``"cocoa"``) or a non-empty list of names, each at most once."""
    if isinstance(algorithms, str):
        algorithms = [algorithms]
    elif algorithms is not None:
        algorithms = list(algorithms)
        if not algorithms:
            raise ValueError("algorithms=[] runs nothing: give at least one name, or None for the scenario's list")
    out: List[Tuple[str, Any]] = []
    if overrides is not None:
        out.extend(overrides.items() if isinstance(overrides, Mapping) else overrides)
    if replications is not None:
        out.append(("replications", replications))
    if seed is not None:
        out.append(("seed", seed))
    if algorithms is not None:
        out.append(("algorithms", algorithms))
    return out


class SimResult:
    """The results of one scenario, of any model: ``runs`` and ``summary`` always; ``flows``
    (network flows, or multihop CoAP flows or TCP motes; None for an RTT-trace scenario),
    ``series`` (when there is one), ``samples`` (network scenarios), ``transfers`` (block-wise
    transfers) and ``nodes`` (multihop scenarios), else None. Tables are pandas DataFrames with the columns of the CLI's CSV
    files at full precision, typed: counts as unsigned integers, measurements as floats, names
    as strings, flags as booleans; a count that may be absent (``nodes.parent``,
    ``nodes.hops``) is a nullable integer. Also ``kind``, ``scenario``, :meth:`summary_text`
    and :meth:`save`.

    The tables come from the same column model as ``coapcc sim``'s CSV writers, so a metric
    added there is a column here.

    >>> r = coapcc.sim("scenarios/lim/e1-nullrdc-4x4.toml", replications=3)
    >>> r.runs.groupby("algorithm", sort=False).goodput_bps.mean()
    """

    def __init__(self, scenario: Scenario, output: Any) -> None:
        self.scenario: Scenario = scenario
        self._output = output
        # The call that made the result, as run.json records it (set by sim and sweep).
        self._call = f"coapcc (Python): {scenario.name}"
        self._frames: Dict[str, Any] = {}

    @property
    def kind(self) -> str:
        """The scenario's model: ``"network"``, ``"trace"`` or ``"multihop"``."""
        return self.scenario.model

    def _frame(self, name: str) -> Any:
        if name not in self._frames:
            self._frames[name] = maybe_frame(getattr(self._output, name)())
        return self._frames[name]

    @property
    def flows(self) -> Any:
        """Network: one row per algorithm × replication × flow. Multihop CoAP: one row per
        algorithm × replication × flow (``client_node`` and ``server_node`` are node ids as
        text, or ``"host"``); multihop TCP: one row per algorithm × replication × mote
        (``flows.csv``). None for an RTT-trace scenario."""
        return self._frame("flows")

    @property
    def runs(self) -> Any:
        """One row per algorithm × replication (``runs.csv``); for a multihop scenario
        ``algorithm``, ``replication``, ``seed``, then every run metric (``goodput_bps``,
        ``fairness``, … for TCP; ``throughput_per_s``, ``duration_mean_s``, … for CoAP)."""
        return self._frame("runs")

    @property
    def summary(self) -> Any:
        """``summary.csv``: one row per algorithm; for a multihop scenario one row per
        algorithm × metric with ``mean``, ``ci95`` (Student-t 95 % half-width) and
        ``replications``."""
        return self._frame("summary")

    @property
    def series(self) -> Any:
        """Time series of replication 0 (``series.csv``), or None."""
        return self._frame("series")

    @property
    def samples(self) -> Any:
        """Every RTT sample and expired RTO per flow (``samples.csv``) of a network scenario,
        or None."""
        return self._frame("samples")

    @property
    def transfers(self) -> Any:
        """One row per algorithm × replication × flow of a scenario whose flows do a block-wise
        transfer (``[coap.blockwise]``): object, block size and count, FCT, set-up time,
        datagrams each way, retransmissions, unnecessary ones, goodput (``transfers.csv``);
        else None."""
        return self._frame("transfers")

    @property
    def nodes(self) -> Any:
        """One row per algorithm × replication × mote of a multihop scenario: role, position,
        DODAG parent and hop count, MAC counters and duty cycle (``nodes.csv``); else None."""
        return self._frame("nodes")

    def summary_text(self) -> str:
        """The summary table ``coapcc sim`` prints."""
        return self._output.summary_text()

    def save(self, directory: Union[str, "os.PathLike[str]"], samples: bool = False) -> List[Path]:
        """Writes the files ``coapcc sim --out DIRECTORY`` writes (``samples.csv`` only when
        ``samples``, as with ``--samples``, which changes nothing for an RTT-trace or
        multihop scenario), byte for byte, and ``run.json`` (version, commit, date, the Python
        call, seed, host cores); returns their paths."""
        written = _write_files(Path(directory), self._output.files(samples))
        _coapcc.write_run_json(os.fspath(directory), self._call, self.scenario.seed)
        return written + [Path(directory) / "run.json"]

    def __repr__(self) -> str:
        return f"<coapcc.SimResult {self.scenario.name!r}>\n{self.summary_text()}"


def _write_files(directory: Path, files: Iterable[Tuple[str, Union[str, bytes]]]) -> List[Path]:
    """Writes each ``(name, text or bytes)`` through a temporary file and a rename, as the CLI
    does: an interrupted write never leaves half a file under the name."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files:
        path = directory / name
        tmp = directory / f".{name}.tmp-{os.getpid()}"
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        written.append(path)
    return written


AnyResult = SimResult
"""The result of :func:`sim` (kept for code that names it; every model gives a :class:`SimResult`)."""


def _result(scenario: Scenario, output: Any) -> SimResult:
    """The result object of a native output."""
    return SimResult(scenario, output)


def __getattr__(name: str) -> Any:
    """``MultihopResult``, the old name of a multihop scenario's result: :class:`SimResult`,
    with a ``DeprecationWarning``."""
    if name == "MultihopResult":
        warnings.warn(
            "coapcc.MultihopResult is deprecated: every scenario gives a coapcc.SimResult",
            DeprecationWarning,
            stacklevel=2,
        )
        return SimResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sim(
    scenario: ScenarioLike,
    algorithms: Optional[Sequence[str]] = None,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    jobs: Optional[int] = None,
    set: Optional[Overrides] = None,
) -> SimResult:
    """``coapcc sim``: run every algorithm × replication of ``scenario`` (a :class:`Scenario`
    or a path) on ``jobs`` threads (default: one per core; results never depend on it).

    Every model gives a :class:`SimResult` (``result.kind`` tells which: ``"network"``,
    ``"trace"``, ``"multihop"``).

    ``algorithms``, ``replications`` and ``seed`` override the scenario's, as ``--algorithm``,
    ``--replications`` and ``--seed`` do; ``set`` (``{key: value}`` or ``(key, value)`` pairs)
    overrides keys as ``--set KEY=VALUE`` does, before them. ``algorithms`` is one name
    (``"cocoa"``) or a non-empty list of distinct names (``[]`` is a ``ValueError``, a name
    listed twice a :class:`ScenarioError`); ``seed`` is any integer from 0 to 2⁶⁴−1; ``jobs``
    is from 1 to 1024 (else a ``ValueError``), and no more threads start than there are runs.
    The simulation runs without the GIL; Ctrl-C stops it (``KeyboardInterrupt``) between
    replications.

    >>> r = coapcc.sim("scenarios/fasor/10-flows-high-errors-random.toml", replications=2)
    >>> r.summary.set_index("algorithm").fct_p50_s
    """
    s = _scenario(scenario)
    extra = _run_settings(algorithms, replications, seed, set)
    if extra:
        s = s.with_settings(extra)
    (output,) = _coapcc.simulate_many([s._resolved], jobs)
    r = _result(s, output)
    r._call = _call_text("coapcc.sim", scenario, algorithms=algorithms, replications=replications, seed=seed, jobs=jobs, set=set)
    return r


def _call_text(function: str, scenario: Any, **kwargs: Any) -> str:
    """A Python call as ``run.json`` records it: ``coapcc.sim('fasor/…', replications=2)``
    (arguments left at None are not shown)."""
    first = repr(os.fspath(scenario)) if isinstance(scenario, (str, os.PathLike)) else f"<Scenario {scenario.name!r}>"
    return f"{function}({first}{''.join(f', {k}={v!r}' for k, v in kwargs.items() if v is not None)})"


from ._sweep import SweepResult, sweep  # noqa: E402  (uses the names above)
