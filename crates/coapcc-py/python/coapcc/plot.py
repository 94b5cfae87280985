"""Plots of the common views, as matplotlib figures, in the report's colours.

Each algorithm has the colour the SVG figures of ``coapcc reproduce`` give it
(:func:`coapcc.colour_of`, from the one palette of the Rust crate), so a notebook's figure
and the report's agree at a glance.

>>> import coapcc, coapcc.plot
>>> r = coapcc.sim("scenarios/fasor/10-flows-high-errors-random.toml", replications=5)
>>> fig = coapcc.plot.fct_boxplot(r)
>>> fig.savefig("fct.png")
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from . import SimResult, colour_of
from ._extras import require

__all__ = ["colour", "fct_boxplot", "cdf", "sweep_heatmap"]


def colour(name: str) -> str:
    """The report's colour of an algorithm or series name (``#RRGGBB``)."""
    return colour_of(name)


def _plt() -> Any:
    """``matplotlib.pyplot``, imported when first needed (matplotlib is the ``plot`` extra)."""
    return require("matplotlib.pyplot", "coapcc.plot")


def _frame_of(data: Any, name: str) -> Any:
    """``data`` if it is a DataFrame, else its ``name`` table (a :class:`SimResult`)."""
    if isinstance(data, SimResult):
        df = getattr(data, name)
        if df is None:
            raise ValueError(f"this result has no {name} table (an RTT-trace scenario)")
        return df
    return data


def _order(df: Any, algorithms: Optional[Sequence[str]]) -> list:
    return list(algorithms) if algorithms is not None else list(dict.fromkeys(df["algorithm"]))


def fct_boxplot(
    data: Any,
    algorithms: Optional[Sequence[str]] = None,
    whis: Sequence[float] = (10, 90),
    ax: Any = None,
    title: Optional[str] = None,
) -> Any:
    """Box plots of flow completion times per algorithm (boxes: quartiles and median;
    whiskers: 10th and 90th percentiles, as in the report). ``data``: a :class:`SimResult`
    or a ``flows`` DataFrame. Unfinished flows (NaN) are left out. Returns the figure."""
    df = _frame_of(data, "flows")
    names = _order(df, algorithms)
    plt = _plt()
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=(1.2 + 0.9 * len(names), 4))
    values = [df.loc[df["algorithm"] == n, "fct_s"].dropna().to_numpy() for n in names]
    box = ax.boxplot(values, whis=list(whis), showfliers=False, patch_artist=True)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=30, ha="right")
    for patch, n in zip(box["boxes"], names):
        patch.set_facecolor(colour(n))
        patch.set_alpha(0.85)
    for median in box["medians"]:
        median.set_color("black")
    ax.set_ylabel("flow completion time (s)")
    ax.grid(axis="y", color="#dddddd")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def cdf(
    data: Any,
    column: str = "fct_s",
    table: str = "flows",
    algorithms: Optional[Sequence[str]] = None,
    ax: Any = None,
    log_x: bool = False,
) -> Any:
    """Empirical CDFs of ``column`` per algorithm (default: flow completion times). ``data``:
    a :class:`SimResult` (its ``table``: ``flows``, ``runs`` or ``samples``) or a DataFrame
    with an ``algorithm`` column. For ``samples``, pass ``column="value_s"``; each row counts
    ``count`` times. Returns the figure."""
    df = _frame_of(data, table)
    names = _order(df, algorithms)
    plt = _plt()
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=(6, 4))
    for n in names:
        sub = df[df["algorithm"] == n]
        x = sub[column].to_numpy(dtype=float)
        w = sub["count"].to_numpy(dtype=float) if "count" in sub else np.ones_like(x)
        keep = np.isfinite(x)
        x, w = x[keep], w[keep]
        if len(x) == 0:
            continue
        order = np.argsort(x, kind="stable")
        x, w = x[order], w[order]
        y = np.cumsum(w) / w.sum()
        ax.step(x, y, where="post", label=n, color=colour(n))
    ax.set_xlabel(column)
    ax.set_ylabel("fraction")
    ax.set_ylim(0, 1)
    if log_x:
        ax.set_xscale("log")
    ax.grid(color="#eeeeee")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def sweep_heatmap(
    data: Any,
    x: Optional[str] = None,
    y: Optional[str] = None,
    value: str = "fct_p50_s",
    algorithms: Optional[Sequence[str]] = None,
    cmap: str = "viridis",
) -> Any:
    """A heat map of ``value`` over two swept keys, one panel per algorithm (one shared colour
    scale; each panel's title in the algorithm's colour). ``data``: a
    :class:`~coapcc.SweepResult` or its ``frame``; ``x`` and ``y`` default to the first two
    swept keys (with one swept key, ``y`` is the algorithm and there is one panel). Returns the
    figure."""
    df = data.frame if hasattr(data, "frame") else data
    keys = [c for c in df.columns[: list(df.columns).index("algorithm")]]
    names = _order(df, algorithms)
    plt = _plt()
    if len(keys) < 2 and (x is None or y is None):
        x = x or keys[0]
        table = df.pivot_table(index="algorithm", columns=x, values=value, sort=False).reindex(names)
        fig, ax = plt.subplots(figsize=(1.5 + 0.8 * table.shape[1], 1 + 0.45 * len(names)))
        im = ax.imshow(table.to_numpy(dtype=float), cmap=cmap, aspect="auto")
        ax.set_xticks(range(table.shape[1]), [str(c) for c in table.columns])
        ax.set_yticks(range(len(names)), names)
        for t, n in zip(ax.get_yticklabels(), names):
            t.set_color(colour(n))
        ax.set_xlabel(x)
        fig.colorbar(im, ax=ax, label=value)
        fig.tight_layout()
        return fig
    x = x or keys[1]
    y = y or keys[0]
    tables = [
        df[df["algorithm"] == n].pivot_table(index=y, columns=x, values=value, sort=False) for n in names
    ]
    lo = np.nanmin([np.nanmin(t.to_numpy(dtype=float)) for t in tables])
    hi = np.nanmax([np.nanmax(t.to_numpy(dtype=float)) for t in tables])
    fig, axes = plt.subplots(1, len(names), figsize=(0.5 + 3.2 * len(names), 3.2), squeeze=False)
    im = None
    for ax, n, t in zip(axes[0], names, tables):
        im = ax.imshow(t.to_numpy(dtype=float), cmap=cmap, vmin=lo, vmax=hi, origin="lower", aspect="auto")
        ax.set_xticks(range(t.shape[1]), [str(c) for c in t.columns])
        ax.set_yticks(range(t.shape[0]), [str(i) for i in t.index])
        ax.set_xlabel(x)
        ax.set_title(n, color=colour(n))
    axes[0][0].set_ylabel(y)
    fig.colorbar(im, ax=axes[0].tolist(), label=value)
    return fig
