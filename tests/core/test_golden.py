"""The engine version cannot drift: the payloads of two demos are pinned to it.

Any change to a number or to the payload's shape changes a digest below. Then bump
``ENGINE_VERSION`` (estimation/core/analysis.py) and record the new digests under the new
version; a deployment recomputes every snapshot of an older engine (README).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from estimation.core.analysis import ENGINE_VERSION
from estimation.core.contract import SCHEMA_VERSION
from tests.core.demo_tables import demo_analysis

# version -> digest of each demo's canonical payload. Keep old entries: a new version
# must come with new digests, never reuse an old version's.
GOLDEN: dict[str, dict[str, str]] = {
    "0.4.0": {
        "demsar": "fbcd77c861e534e973cc1c2eedec5d33cbcd9ff7ceed58874bd97d4bf8de3b0a",
        "simulated": "3bd8e72c6ecfc4556cbdd573c3e13e5ece7320d1adb33fc02fe9eb3646725c62",
    },
    # Schema 2: CD groups and compact letters may be NotApplicable (unreadable at large m);
    # the numbers of both demos are unchanged.
    "0.4.1": {
        "demsar": "693eb6963b0db33ae658e59ad624e36f910f44619d163e70867eb9204c45fdf3",
        "simulated": "9de95760aed3cdb2e30afedccb4f433216ebd4d250a0d2b36132d0a0521fd7fe",
    },
    # Schema 3 (issues 11 and 12): loo_brier, Board.win_interval (Wilson, Goodman), the
    # evaluation's Brier column and tests against the win rate, Friedman's exact p under
    # perfect agreement, the comparison with a control, the RM ANOVA and Tukey intervals
    # within datasets, the advisor section, the verdict and the score summary; the numbers
    # of the estimators of 0.4.1 are unchanged on both demos.
    "0.5.0": {
        "demsar": "bf5d352da9b65841210419c8156a0d5c5863a7f2613229a57206e9145d2cbbf0",
        "simulated": "5cdb6e7df731d07849fc4754498a19e6d94e291bcaaa7eb91d9aa5aa123d0663",
    },
    # Bootstrap refits of tables over a million rank cells stop at 1e-3 and their
    # cross-validation refits at 1e-5 (issue 8's m = 500, n = 5000 target); both demos
    # are far smaller, and their numbers are those of 0.5.0.
    "0.6.0": {
        "demsar": "4fb55638f9d5d730f6710251a5db44a866248218721dcdd6be1a314bdbc7850d",
        "simulated": "3a58cad75cdc4c7976ae4808ec3a232169849660ba0c1bc95de2ac488925f52a",
    },
    # Schema 4 (issue 21): each estimator's own bias-corrected interval with its kind and
    # label, the rank intervals and plausible winners, recommended_by, the verdict's
    # sentences from the plausible winners.
    "0.7.0": {
        "demsar": "ed412ca661828b5841b2a17706e7ce30082c4ff2c9664aecd84bca7ba1c90ba2",
        "simulated": "d80a26702156c1c0d6afc991b1b4e9231506f91796a24e337439fc1e10e3be29",
    },
}
SIGNIFICANT_DIGITS = 10  # below this, BLAS rounding may differ between machines


def _rounded(value):
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def canonical_digest(payload: dict) -> str:
    text = json.dumps(_rounded(payload), sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("demo", ["demsar", "simulated"])
def test_payload_is_pinned_to_the_engine_version(demo):
    payload = demo_analysis(demo).to_json()
    assert payload["engine_version"] == ENGINE_VERSION
    assert payload["schema_version"] == SCHEMA_VERSION
    pinned = GOLDEN.get(ENGINE_VERSION, {}).get(demo)
    digest = canonical_digest(payload)
    assert digest == pinned, (
        f"numbers or shape changed: bump ENGINE_VERSION and update the golden hash "
        f"({demo}: {digest} under engine {ENGINE_VERSION!r} in tests/core/test_golden.py)"
    )


def test_a_version_is_never_reused_with_other_digests():
    versions = list(GOLDEN)
    assert versions[-1] == ENGINE_VERSION, "record the current ENGINE_VERSION last in GOLDEN"
    seen = [tuple(sorted(d.values())) for d in GOLDEN.values()]
    assert len(set(seen)) == len(seen), "two engine versions share the same digests"


def test_the_digest_ignores_rounding_noise_but_not_a_changed_number():
    payload = {"p": [0.1 + 0.2, 0.5]}
    assert canonical_digest(payload) == canonical_digest({"p": [0.3, 0.5]})
    assert canonical_digest(payload) != canonical_digest({"p": [0.3000001, 0.5]})
