"""The fixtures' memo of engine results (tests/engine_memo.py) reuses a result only for
the same input: another table or other settings are analysed anew."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.table import ResultTable
from estimation.recompute import refresh
from tests.engine_memo import SWITCH, engine_results_remembered


def _table(shift: float) -> ResultTable:
    values = np.array([[0.9, 0.8, 0.7], [0.85, 0.86, 0.6], [0.7, 0.75, 0.65]]) + shift
    return ResultTable(("d1", "d2", "d3"), ("a", "b", "c"), values)


def test_the_memo_reuses_only_the_same_input_and_restores_the_engine(monkeypatch):
    monkeypatch.delenv(SWITCH, raising=False)  # on, even in a run measuring it off
    settings = AnalysisSettings(bootstrap=0, evaluation_repeats=1, evaluation_folds=2)
    with engine_results_remembered():
        first = refresh.analyze(_table(0.0), settings, advisor=False, uncertainty=False)
        assert refresh.analyze(_table(0.0), settings, advisor=False, uncertainty=False) is first
        other_table = refresh.analyze(_table(0.01), settings, advisor=False, uncertainty=False)
        other_settings = refresh.analyze(
            _table(0.0), replace(settings, alpha=0.1), advisor=False, uncertainty=False
        )
        other_flags = refresh.analyze(_table(0.0), settings, advisor=False)
    assert len({id(first), id(other_table), id(other_settings), id(other_flags)}) == 4
    assert refresh.analyze is analyze
