"""The kept studentized range values (tests/studentized_range_memo.py) are the ones the
core computes, read back from the folder by a process that has not computed them, and
the core's functions are restored after the block."""

from __future__ import annotations

import numpy as np

from estimation.core import studentized_range, within_dataset
from tests import studentized_range_memo
from tests.studentized_range_memo import studentized_range_kept


def test_a_kept_interpolant_and_critical_value_are_the_computed_ones(tmp_path, monkeypatch):
    build, critical = studentized_range._sf_interpolant, within_dataset._tukey_critical_q
    assert hasattr(build, "cache_info")  # the core's own (this module is in OWN_TESTS)
    q = np.linspace(0.1, 9.0, 200)
    expected_sf = studentized_range.studentized_range_sf(q, 4, 7.0)
    with studentized_range_kept(tmp_path):
        assert studentized_range._sf_interpolant is not build
        first = studentized_range._sf_interpolant(4, 7.0)
        assert within_dataset._tukey_critical_q(4, 7, 0.05) == critical(4, 7, 0.05)
    assert len(list(tmp_path.glob("*/*.pickle"))) == 2
    # another process: nothing in memory, so both are read from the folder
    monkeypatch.setattr(studentized_range_memo, "_VALUES", {})
    with studentized_range_kept(tmp_path):
        read = studentized_range._sf_interpolant(4, 7.0)
        assert read is not first and read is not build(4, 7.0)
        np.testing.assert_array_equal(read.log_q, first.log_q)
        np.testing.assert_array_equal(read.spline.c, first.spline.c)
        np.testing.assert_array_equal(
            studentized_range.studentized_range_sf(q, 4, 7.0), expected_sf
        )
        assert within_dataset._tukey_critical_q(4, 7, 0.05) == critical(4, 7, 0.05)
    assert studentized_range._sf_interpolant is build
    assert within_dataset._tukey_critical_q is critical
