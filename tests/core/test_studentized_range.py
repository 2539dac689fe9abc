"""The studentized range by our own quadrature (estimation/core/studentized_range.py)
against scipy.stats.studentized_range and, for m = 2, the closed form."""

import numpy as np
import pytest
from scipy import stats

from estimation.core import studentized_range
from estimation.core.studentized_range import studentized_range_isf, studentized_range_sf

MS = (2, 3, 5, 10, 50, 200, 1000)
DFS = (1.0, 2.0, 5.0, 10.0, 30.0, 100.0, np.inf)
# Survival functions the q of each cell are chosen at, from 1 down to 1e-7.
LEVELS = np.concatenate([[0.999999, 0.99, 0.9, 0.5], np.geomspace(0.1, 1e-7, 7)])
# scipy's sf is 1 - cdf with the cdf integrated to epsabs = 1e-11: its own error.
SCIPY_ATOL = 1e-11


def _scipy_sf(q, m, df):
    return stats.studentized_range.sf(q, m, df)


def _scipy_ppf(p, m, df):
    return stats.studentized_range.ppf(p, m, df)


@pytest.mark.parametrize("df", DFS)
@pytest.mark.parametrize("m", MS)
def test_sf_is_within_1e6_relative_of_scipy_from_1_to_1e7(m, df, peer_reference):
    """At df = 1 and 2 scipy's integration loses the tail (m = 2, df = 1: scipy 2.3e-14
    where the closed form, and ours, give 1e-4; m = 5, df = 2: scipy 1.8e-13 at our
    1e-7): compared down to 1e-3 (df = 1) and 1e-5 (df = 2) there; the closed form of
    m = 2 checks the mixture's tail (next test)."""
    floor = {1.0: 1e-3, 2.0: 1e-5}.get(df, 0.0)
    levels = LEVELS[LEVELS >= floor]
    q = np.array([studentized_range_isf(p, m, df) for p in levels])
    expected = peer_reference(
        "scipy-studentized-range-sf", _scipy_sf, q, m, df, under_test=studentized_range
    )
    np.testing.assert_allclose(studentized_range_sf(q, m, df), expected, rtol=1e-6, atol=SCIPY_ATOL)


@pytest.mark.parametrize("df", (1.0, 2.0, 3.0, 28.0, 891.0, 1e5, np.inf))
def test_m2_is_the_two_sided_t_or_normal_down_to_1e30(df):
    """The range of two normals over s is sqrt(2) |t_df|: exact, far into the tail."""
    q = np.geomspace(1e-6, 1e8, 400)
    exact = 2 * (
        stats.t.sf(q / np.sqrt(2), df) if np.isfinite(df) else stats.norm.sf(q / np.sqrt(2))
    )
    keep = exact >= 1e-30
    np.testing.assert_allclose(studentized_range_sf(q, 2, df)[keep], exact[keep], rtol=1e-8)


def test_a_value_does_not_depend_on_its_batch():
    rng = np.random.default_rng(43)
    q = rng.uniform(0, 12, 500)
    for m, df in ((4, 27.0), (200, np.inf)):
        together = studentized_range_sf(q, m, df)
        alone = np.array([studentized_range_sf(q[i : i + 1], m, df)[0] for i in range(20)])
        np.testing.assert_array_equal(alone, together[:20])  # one path, same machine
        np.testing.assert_array_equal(studentized_range_sf(q[::-1], m, df), together[::-1])


def test_edges_and_monotone():
    q = np.array([-1.0, 0.0, np.nan, 1e300])
    np.testing.assert_array_equal(studentized_range_sf(q, 5, 10), [1.0, 1.0, np.nan, 0.0])
    grid = np.linspace(0, 60, 3000)
    for df in (1.0, 16.0, np.inf):
        assert (np.diff(studentized_range_sf(grid, 7, df)) <= 0).all()
    with pytest.raises(ValueError, match="m must"):
        studentized_range_sf(grid, 1, 5)
    with pytest.raises(ValueError, match="df must"):
        studentized_range_sf(grid, 3, 0.5)


@pytest.mark.parametrize(("m", "df"), [(4, np.inf), (3, 12.0), (20, 171.0), (200, np.inf)])
def test_isf_matches_scipy_ppf(m, df, peer_reference):
    expected = peer_reference(
        "scipy-studentized-range-ppf",
        _scipy_ppf,
        0.95,
        m,
        df,
        under_test=studentized_range,
    )
    assert studentized_range_isf(0.05, m, df) == pytest.approx(float(expected), rel=1e-6)


def test_demsar_critical_difference():
    """Demšar 2006 Table 5: q_0.05 = 2.569 for k = 4 (already divided by sqrt 2)."""
    assert studentized_range_isf(0.05, 4, np.inf) / np.sqrt(2) == pytest.approx(2.569, abs=5e-4)
