import matplotlib

matplotlib.use("Agg")


# -- report layout checks (tests/test_report.py, tests/test_reports_all_games.py) -------------------

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.text import Text  # noqa: E402


def check_layout(fig) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox

    def inside(e, what):
        assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y0 >= box.y0 - 1 and e.y1 <= box.y1 + 1, \
            f"{what} extends past the figure: {e} vs {box}"

    # an axes' tight box covers what it draws: tick labels in view, axis labels, title, legend
    for ax in fig.axes:
        inside(ax.get_tightbbox(renderer), f"axes {ax.get_title()!r}")
    texts = [fig._suptitle, fig._supxlabel, fig._supylabel, *fig.texts]
    for t in texts:
        if isinstance(t, Text) and t.get_visible() and t.get_text().strip():
            inside(t.get_window_extent(renderer), f"text {t.get_text()[:40]!r}")
    for leg in fig.legends:
        inside(leg.get_window_extent(renderer), "figure legend")
    legends = [leg for ax in fig.axes if (leg := ax.get_legend()) is not None] + list(fig.legends)
    for leg in legends:
        assert isinstance(leg, Legend)
        lb = leg.get_window_extent(renderer)
        for ax in fig.axes:
            ab = ax.get_window_extent(renderer)
            if not lb.overlaps(ab):
                continue  # outside this axes: cannot cover its data
            for line in ax.get_lines():
                if not isinstance(line, Line2D) or line.get_marker() in (None, "None", ""):
                    continue
                xy = ax.transData.transform(np.column_stack(line.get_data()).astype(float))
                xy = xy[np.isfinite(xy).all(axis=1)]
                inside = (xy[:, 0] >= lb.x0) & (xy[:, 0] <= lb.x1) & (xy[:, 1] >= lb.y0) & (xy[:, 1] <= lb.y1)
                assert not inside.any(), f"legend covers plotted points of {line.get_label()!r}"


def checking_save(monkeypatch, plots) -> list[str]:
    """Make ``plots.save`` check every figure before saving it; returns the list of files checked."""
    seen: list[str] = []
    original = plots.save

    def save(fig, path):
        if fig.get_layout_engine() is None:
            fig.set_layout_engine("constrained")
        check_layout(fig)
        seen.append(str(path))
        original(fig, path)

    monkeypatch.setattr(plots, "save", save)
    return seen


@pytest.fixture
def layout_checked(monkeypatch):
    """Every figure the report saves is first checked with ``check_layout``; yields the paths checked."""
    from boardsim.report import plots

    return checking_save(monkeypatch, plots)


@pytest.fixture
def layout_check():
    return check_layout


@pytest.fixture(scope="module")
def dask_client():
    """A local Dask cluster of two single-threaded worker processes on loopback (tests/test_executors.py and
    tests/analysis/test_patch.py: results must equal local runs)."""
    import distributed  # a test dependency (the test extra): these tests must run, never skip

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
