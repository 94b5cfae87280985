"""The plot helpers use the report's palette; the example notebooks run without error."""

from __future__ import annotations

import json
import re
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors as mcolors  # noqa: E402
import pytest  # noqa: E402

import coapcc  # noqa: E402
import coapcc.plot  # noqa: E402

ERRORS = "scenarios/fasor/10-flows-high-errors-random.toml"


@pytest.fixture(scope="module")
def result():
    return coapcc.sim(ERRORS, algorithms=["default", "cocoa", "fasor"], replications=2)


def test_the_palette_is_the_reports(repo):
    p = coapcc.palette()
    # The colours of the Rust figures: each algorithm's in the registry (its `colour` next to
    # its `name`), the other series' in SERIES_COLOURS of the report's figures.
    registry = (repo / "crates/coapcc-core/src/registry.rs").read_text()
    series = (repo / "crates/coapcc-report/src/figures.rs").read_text()
    stated = {
        name: colour
        for name, colour in re.findall(
            r'name: "([^"]+)",(?:\n[^\n]*?){1,6}\n\s*colour: (\[[^\]]*\]),', registry
        )
    }
    assert set(stated) == set(coapcc.algorithms().name)
    for name, colour in p.items():
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        rgb = f"[0x{r:02X}, 0x{g:02X}, 0x{b:02X}]"
        assert stated.get(name) == rgb or f'("{name}", {rgb})' in series, name
    assert set(stated) <= set(p)
    assert coapcc.colour_of("cocoa (sim)").lower() == p["cocoa"]


def test_fct_boxes_are_drawn_in_each_algorithms_colour(result):
    fig = coapcc.plot.fct_boxplot(result)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["default", "cocoa", "fasor"]
    faces = [mcolors.to_hex(p.get_facecolor()[:3]) for p in ax.patches]
    assert faces == [coapcc.palette()[n] for n in labels]


def test_cdfs_end_at_one_in_each_algorithms_colour(result):
    fig = coapcc.plot.cdf(result)
    lines = fig.axes[0].get_lines()
    assert [ln.get_label() for ln in lines] == ["default", "cocoa", "fasor"]
    for ln in lines:
        assert mcolors.to_hex(ln.get_color()) == coapcc.palette()[ln.get_label()]
        assert ln.get_ydata()[-1] == pytest.approx(1.0)


def test_a_sweep_heat_map_has_a_panel_per_algorithm():
    r = coapcc.sweep(ERRORS, grid={"workload.flows": [4, 8], "buffer_bytes": [2500, 5000]}, algorithms=["cocoa", "fasor"], replications=2)
    fig = coapcc.plot.sweep_heatmap(r)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["cocoa", "fasor"]
    assert panels[0].images[0].get_array().shape == (2, 2)


FIGURES = {
    "paper-figure.ipynb": ["paper-figure-fct.png"],
    "sweep-heatmap.ipynb": ["sweep-heatmap.png"],
    "lim-goodput.ipynb": ["lim-goodput.png"],
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_an_example_notebook_runs_without_error_and_writes_its_figures_beside_itself(repo, name):
    import nbclient
    import nbformat

    path = repo / "examples" / name
    started = time.time()
    raw = json.loads(path.read_text())
    assert "/tmp" not in path.read_text() and "tempfile" not in path.read_text()
    assert all(not c.get("outputs") for c in raw["cells"] if c["cell_type"] == "code"), "outputs are committed"
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(repo / "examples")}})
    client.execute()  # raises CellExecutionError if a cell raises
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    for figure in FIGURES[name]:
        written = repo / "examples" / figure
        assert written.stat().st_mtime >= started - 1, figure
        assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", figure


def test_no_notebook_or_module_of_the_package_carries_a_table_of_t_quantiles(repo):
    # 12.706 is t(0.975, 1), 2.262 t(0.975, 9): the signature of a hand-copied table.
    sources = list((repo / "examples").glob("*.ipynb")) + list((repo / "crates/coapcc-py/python").rglob("*.py"))
    for p in sources:
        text = p.read_text()
        assert "12.706" not in text and "2.262" not in text, p
