"""Progress bars and cancellation (issue 12, item 5): sweeps, maps, simulations at
scale, reproduce. A bar is drawn on a terminal only, never with progress=False."""

from __future__ import annotations

import concurrent.futures as cf
import io
import sys

import pytest

import qifldp as q
import qifldp.reproduce as rep
from qifldp.errors import InputTypeError


class Terminal(io.StringIO):
    def isatty(self):
        return True


def square(k):
    return k * k


def _terminal(monkeypatch):
    """stderr replaced by a terminal, in the test body (pytest's capture swaps
    sys.stderr between the setup and call phases)."""
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    return term


def test_a_sweep_draws_a_bar_on_a_terminal(monkeypatch):
    terminal = _terminal(monkeypatch)
    with cf.ThreadPoolExecutor(1) as pool:
        t = q.sweep(square, {"k": list(range(6))}, executor=pool, chunksize=1)
    assert t["value"].tolist() == [k * k for k in range(6)]
    assert "6/6" in terminal.getvalue() and "point" in terminal.getvalue()


def test_no_bar_with_progress_false(monkeypatch):
    terminal = _terminal(monkeypatch)
    with cf.ThreadPoolExecutor(1) as pool:
        q.sweep(square, {"k": [1, 2]}, executor=pool, progress=False)
        q.comparability_map("grr", "ss", [3], [1.0], executor=pool, progress=False)
        q.simulate_counts(
            q.protocol("grr", 3, 1.0), [0.5, 0.3, 0.2], 100, executor=pool, progress=False
        )
    assert terminal.getvalue() == ""


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch):
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    with cf.ThreadPoolExecutor(1) as pool:
        q.sweep(square, {"k": [1, 2]}, executor=pool)
    assert pipe.getvalue() == ""


def test_maps_and_simulations_draw_bars(monkeypatch):
    terminal = _terminal(monkeypatch)
    with cf.ThreadPoolExecutor(1) as pool:
        q.comparability_map("grr", "ss", [3], [1.0, 2.0], executor=pool, chunksize=1)
        assert "2/2" in terminal.getvalue()
        q.simulate_counts(
            q.protocol("grr", 3, 1.0),
            [0.5, 0.3, 0.2],
            1000,
            block=100,
            chunksize=2,
            executor=pool,
        )
    assert "5/5" in terminal.getvalue()  # 10 blocks in tasks of 2


def test_reproduce_draws_a_bar_and_stops_cleanly_on_ctrl_c(tmp_path, monkeypatch):
    terminal = _terminal(monkeypatch)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(rep, "figure_7", interrupted)
    with pytest.warns(RuntimeWarning, match=r"figures \[7\] not made"):
        figs = rep.reproduce(tmp_path, quick=True, which=[6, 7])
    assert [f.path.name for f in figs] == ["figure6_capacity_all_protocols.png"]
    assert (tmp_path / "figure6_capacity_all_protocols.png").exists()
    assert "1/2" in terminal.getvalue()


def test_reproduce_progress_must_be_a_bool(tmp_path):
    with pytest.raises(InputTypeError, match="progress"):
        rep.reproduce(tmp_path, quick=True, which=[6], progress="yes")
