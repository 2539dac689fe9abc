"""The engine version cannot drift: the payloads of two demos are pinned to it.

A fresh payload of each demo must equal the stored reference of the current
``ENGINE_VERSION`` (tests/core/golden.py): exact parts to the letter, floats within a
tolerance that holds on any CPU. Any change to a number or to the payload's shape fails
here. Then bump ``ENGINE_VERSION`` (estimation/core/analysis.py), write the references
anew (the command is in tests/core/golden.py) and record their digests below under the
new version; a deployment recomputes every snapshot of an older engine (README).
"""

from __future__ import annotations

import copy

import pytest

from estimation.core.analysis import ENGINE_VERSION
from estimation.core.contract import SCHEMA_VERSION
from tests.core.demo_tables import demo_analysis
from tests.core.golden import DEMOS, load_reference, reference_digest
from tests.core.references import ITERATIVE, reference_mismatches

# version -> SHA-256 of each demo's reference file. Keep old entries: a new version must
# come with new references, never reuse an old version's. (Before 0.6.0 the entries were
# digests of payloads rounded to 10 significant digits, which a last-bit difference on
# another CPU could flip: see git history.)
GOLDEN: dict[str, dict[str, str]] = {
    # The numbers of 0.6.0 as they were pinned before, stored whole (their rounded digests
    # matched these files).
    "0.6.0": {
        "demsar": "be0bf0d10777c294ac4629d8a18814fed8d0596409a9584b320cf12af8dcf4d1",
        "simulated": "8cab800366da92c02cb723b040d1b23e03d567d9bf00ad97462957f1760de9af",
    },
    # Schema 4 (issue 21): each estimator's own bias-corrected interval with its kind and
    # label, the rank intervals and plausible winners, recommended_by, the verdict's
    # sentences from the plausible winners; the win rate's exact (Clopper-Pearson)
    # intervals in place of Wilson's and Goodman's (issue 24 as well: identical pairs in
    # the Holm family, decimal ties in the Wilcoxon differences, a batch-independent
    # studentized range, scores near the float limits).
    "0.7.0": {
        "demsar": "cb64309ecc5dca9b363a119affd5989aabb31ce224ac5b65ba15a5360319ab67",
        "simulated": "2e44e0f7b601eabff911e1e2549e3469acc5500e2c0ac266f17ea26f3c9029dc",
    },
    # Issue 24 items 1-3 and the advisor's truth: the method-sensitivity panel (Kendall's
    # tau-b between every method's order), practical equivalence with a ROPE (the
    # simulated demo has one of 0.01), the #1-vs-#2 power figures and the mixture truth
    # of the advisor, which its recommendation reads.
    "0.8.0": {
        "demsar": "7083784adc7ead915f1469be92c44ec90c64ab4cc680b11dbd76f8450b2a073a",
        "simulated": "14729a28820145f6664bf2c0797ad83ef546a1cc19d45b7ecb490b4ffee8b2f3",
    },
    # Issue 24's hierarchical model over datasets x folds in the practical section.
    "0.9.0": {
        "demsar": "d78b0b431e9954a157a0e1ea92da7941fbce489266ea9a111684b957325b453c",
        "simulated": "0542703d1fe29ffb67b2b251ccab76611422baf8ea9b916e35da313d38c78933",
    },
    # Issue 28: the dataset_scores section (the dataset-level values the analysis ranked,
    # for a version's per-dataset columns). Every other number is that of 0.9.0.
    "0.10.0": {
        "demsar": "c1fe8340e2bc0f8e2ced2d55e4a915c04ba36b2d80351b0aaf400e6e88e94ada",
        "simulated": "ef0c8c602f588142e12e56e2b2e45a65ec29ba5dd4e534088772c6af4f907571",
    },
}


@pytest.mark.parametrize("demo", DEMOS)
def test_payload_is_pinned_to_the_engine_version(demo):
    payload = demo_analysis(demo).to_json()
    assert payload["engine_version"] == ENGINE_VERSION
    assert payload["schema_version"] == SCHEMA_VERSION
    reference = load_reference(demo)
    assert reference["engine_version"] == ENGINE_VERSION, (
        f"the {demo} reference is of engine {reference['engine_version']!r}: after bumping "
        "ENGINE_VERSION, write the references anew (tests/core/golden.py)"
    )
    assert reference_digest(demo) == GOLDEN.get(ENGINE_VERSION, {}).get(demo), (
        f"the {demo} reference was rewritten without a new engine version, or its digest "
        f"({reference_digest(demo)}) is not recorded under {ENGINE_VERSION!r} in GOLDEN"
    )
    mismatches = reference_mismatches(payload, reference, ITERATIVE)
    assert mismatches == [], (
        f"numbers or shape changed ({len(mismatches)} places, first: {mismatches[:5]}): "
        "bump ENGINE_VERSION and write the references anew (tests/core/golden.py)"
    )


def test_a_version_is_never_reused_with_other_digests():
    versions = list(GOLDEN)
    assert versions[-1] == ENGINE_VERSION, "record the current ENGINE_VERSION last in GOLDEN"
    seen = [tuple(sorted(d.values())) for d in GOLDEN.values()]
    assert len(set(seen)) == len(seen), "two engine versions share the same digests"


def test_the_comparison_ignores_rounding_noise_but_not_a_changed_number():
    reference = load_reference("demsar")
    estimate = reference["board"]["estimators"][0]["p"]
    noisy = copy.deepcopy(reference)
    noisy["board"]["estimators"][0]["p"] = [v * (1 + 1e-12) for v in estimate]
    assert reference_mismatches(noisy, reference, ITERATIVE) == []

    changed = copy.deepcopy(reference)
    changed["board"]["estimators"][0]["p"] = [estimate[0] * (1 + 1e-4), *estimate[1:]]
    assert len(reference_mismatches(changed, reference, ITERATIVE)) == 1

    renamed = copy.deepcopy(reference)
    renamed["board"]["input"]["algorithms"][0] += "x"
    assert reference_mismatches(renamed, reference, ITERATIVE) != []

    reshaped = copy.deepcopy(reference)
    reshaped["board"]["new_field"] = 1
    assert reference_mismatches(reshaped, reference, ITERATIVE) != []
