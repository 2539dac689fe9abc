"""Tests across datasets on dataset-level results (METHODS 4).

``ranks`` is an ``(n, m)`` array of average ranks per dataset (1 = best); ``scores`` an
``(n, m)`` array of dataset-level scores oriented so that larger is better, ``NaN``
for a missing result. A test that cannot be computed on the given input returns a
result whose ``not_applicable`` field says why, and whose numbers are ``None``; no
result ever holds ``NaN``.
"""

from estimation.core.significance.checks import Correction, rank_test_not_applicable
from estimation.core.significance.checks import _check_alpha as _check_alpha
from estimation.core.significance.checks import _matrix_to_list as _matrix_to_list
from estimation.core.significance.checks import _plain as _plain
from estimation.core.significance.friedman import (
    PERFECT_AGREEMENT,
    FriedmanResult,
    NemenyiResult,
    friedman,
    nemenyi,
)
from estimation.core.significance.groups import (
    MAX_CD_ALGORITHMS,
    MAX_LETTERS_PER_ALGORITHM,
    IndistinguishableGroups,
    cd_groups,
    compact_letter_display,
    indistinguishable_groups,
    indistinguishable_groups_by_distance,
)
from estimation.core.significance.groups import _letter as _letter
from estimation.core.significance.groups import _maximal_cliques as _maximal_cliques
from estimation.core.significance.signed_rank import (
    PairwiseSignedRank,
    WilcoxonPairwiseResult,
    adjust_pvalues,
    wilcoxon_pairwise,
)
from estimation.core.significance.signed_rank import _paired_signed_rank as _paired_signed_rank

__all__ = [
    "MAX_CD_ALGORITHMS",
    "MAX_LETTERS_PER_ALGORITHM",
    "PERFECT_AGREEMENT",
    "Correction",
    "FriedmanResult",
    "IndistinguishableGroups",
    "NemenyiResult",
    "PairwiseSignedRank",
    "WilcoxonPairwiseResult",
    "adjust_pvalues",
    "cd_groups",
    "compact_letter_display",
    "friedman",
    "indistinguishable_groups",
    "indistinguishable_groups_by_distance",
    "nemenyi",
    "rank_test_not_applicable",
    "wilcoxon_pairwise",
]
