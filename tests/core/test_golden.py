"""The engine version cannot drift: the payloads of two demos are pinned to it.

A fresh payload of each demo must equal the stored reference of the current
``ENGINE_VERSION`` (tests/core/golden.py): exact parts to the letter, floats within a
tolerance that holds on any CPU. Any change to a number or to the payload's shape fails
here. Then bump ``ENGINE_VERSION`` (estimation/core/analysis.py), write the references
anew (the command is in tests/core/golden.py) and record their digests below under the
new version; a deployment recomputes every snapshot of an older engine
(docs/operators.md, "Upgrades").
"""

from __future__ import annotations

import copy

import pytest

from estimation.core.analysis import ENGINE_VERSION
from estimation.core.contract import SCHEMA_VERSION
from estimation.core.contract.codec import to_json
from estimation.core.hierarchical import hierarchical_comparison
from tests.core.demo_tables import demo_analysis, simulated_table
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
    # Schema 4: each estimator's own bias-corrected interval with its kind and
    # label, the rank intervals and plausible winners, recommended_by, the verdict's
    # sentences from the plausible winners; the win rate's exact (Clopper-Pearson)
    # intervals in place of Wilson's and Goodman's (and identical pairs in
    # the Holm family, decimal ties in the Wilcoxon differences, a batch-independent
    # studentized range, scores near the float limits).
    "0.7.0": {
        "demsar": "cb64309ecc5dca9b363a119affd5989aabb31ce224ac5b65ba15a5360319ab67",
        "simulated": "2e44e0f7b601eabff911e1e2549e3469acc5500e2c0ac266f17ea26f3c9029dc",
    },
    # The robustness panels and the advisor's truth: the method-sensitivity panel (Kendall's
    # tau-b between every method's order), practical equivalence with a ROPE (the
    # simulated demo has one of 0.01), the #1-vs-#2 power figures and the mixture truth
    # of the advisor, which its recommendation reads.
    "0.8.0": {
        "demsar": "7083784adc7ead915f1469be92c44ec90c64ab4cc680b11dbd76f8450b2a073a",
        "simulated": "14729a28820145f6664bf2c0797ad83ef546a1cc19d45b7ecb490b4ffee8b2f3",
    },
    # The hierarchical model over datasets x folds in the practical section.
    "0.9.0": {
        "demsar": "d78b0b431e9954a157a0e1ea92da7941fbce489266ea9a111684b957325b453c",
        "simulated": "0542703d1fe29ffb67b2b251ccab76611422baf8ea9b916e35da313d38c78933",
    },
    # The dataset_scores section (the dataset-level values the analysis ranked,
    # for a version's per-dataset columns). The hierarchical sampler's nu and
    # std0 moves with the scale mixture integrated out (and a joint rescaling; truncated
    # gammas drawn plainly), each pair's Monte-Carlo standard error (mc_se), the advisor's
    # folds power; Monte-Carlo fields compared within tolerances from their Monte-Carlo
    # error (references.py).
    "0.10.0": {
        "demsar": "e0888fc3eb112b37ddf7bc53afb756f08a4c01efaded6cb0dc80ebeffd6b36e1",
        "simulated": "dcd8a5fcded402d1b31890ba339dd59135d313b8a2f897f721071dbde1fb3ed1",
    },
    # 0.11.0: the same numbers; the new "pairwise" section (not applicable
    # below analysis.MAX_PAIRWISE_ALGORITHMS, as here) is the only other difference.
    "0.11.0": {
        "demsar": "fbba57b6d887a19d95fa9a76560740261751a5b6254b5867cbcb789bf4e6d3a2",
        "simulated": "34c47bf7d534052383bc5cb1f665cac603a1cac9f074f7c01fb7e6b7e68ee56a",
    },
    # 0.12.0: the folds power's plug-in model is the medians of the first
    # hierarchical.FOLDS_POWER_KEEP (250) kept steps of the chains instead of all 500, so
    # that the advisor runs the sampler 550 steps instead of 800 (the simulated demo's
    # power at the present folds: 0.1425 -> 0.17, in the advisor and the practical
    # section alike); every other number as 0.11.0 computes it on the same machine (the
    # references were written on another CPU: last-bit differences elsewhere).
    "0.12.0": {
        "demsar": "41c66063310dfa913cfb585a54916a22dfc689862a5611f0cec97b90f0b14f4f",
        "simulated": "beb2199edf5b027910406a3df18f61e027e1bc512c795c16ee2c83c7f55f3a55",
    },
    # 0.12.1: wording only, so that stored boards are recomputed with it: the notes count
    # in the singular where the count is 1 ("1 algorithm has results on fewer than ...
    # and is not ranked", "1 of 4 datasets was left out", "Only the top 1 position is
    # known"). The numbers are 0.12.0's (written on this machine: last-bit differences).
    "0.12.1": {
        "demsar": "30217e587e8875e2f50d8704060d7f638576209bbd19ae292927223f25522aa1",
        "simulated": "1cfb9e78e77c4ada0c68f3c773dd21bfad1cef603ad9bd29674a016b8e1f79a3",
    },
    # 0.13.0: on whole rankings the set of the best and the rank intervals
    # answer "best on average across datasets" (paired t of rank differences, Bonferroni
    # over the best's m - 1 comparisons, Holm over all pairs, t with n - 3 degrees of
    # freedom, a sign-test guard; never a
    # candidate that Nemenyi or Holm against the best calls worse); RankIntervals gains
    # question and question_words; the verdict names the question, calls Borda's,
    # Plackett-Luce's and minimax's numbers by their own names and quotes the exact
    # confidence interval of the true P(win) (the spread stays in the table); the
    # sensitivity section compares values scale-free (no overflow above 1.8e296);
    # RankIntervals.separating_datasets (roughly how many datasets would single out the
    # best mean rank), quoted by the verdict's first sentence.
    "0.13.0": {
        "demsar": "f6b5f0013f6d34db0497265460e4d564c04efdfb79e69426e28df1c4e23c87d9",
        "simulated": "0511caab4f52d9ab00cda58d884efddc4620010eb29077b590d471aec05ca6cf",
    },
    # 0.13.1: Nemenyi and Tukey p-values and critical values from our
    # own studentized-range quadrature instead of scipy's integration (within 1e-6
    # relative of scipy where sf >= 1e-7; below, scipy's 1 - cdf was rounding noise).
    "0.13.1": {
        "demsar": "1b431669ec87833ade7678ab9b9f303cb54c6869e68f2168bb024d26e292761d",
        "simulated": "f654323dcee3b7f25a462cc43cc62dfaf82cfa2950bac04724622cb4e652226b",
    },
    # 0.14.0: paired differences exact on a decimal grid (integer numerators over
    # 10**D * L) instead of rounded at the 15th digit, so differences of fold means that
    # tie in exact arithmetic tie (3, 6, 7, 9 folds); continuous scores paired as floats.
    # The advisor's datasets needed carries its 95 % confidence interval
    # (datasets_needed_low, datasets_needed_high) and quotes it in its sentence.
    "0.14.0": {
        "demsar": "718b1dfaf7fa46629347f2755c720f621f89c97775b8960bc97cd9ba6a9ac30b",
        "simulated": "ba1b9c538bc4edaf5b324bb2540532e25d102865df133e765ef2d261b428899a",
    },
    # 0.15.0: Plackett-Luce fits (points, bootstrap, evaluation, advisor) take SQUAREM
    # steps between MM steps and stop at the same tolerance on an MM step's change, so
    # refitted worths move within that tolerance (the advisor's 1e-3 the most). And
    # whole rankings' rank intervals and set of the best computed without the
    # bootstrap (on the board served first, and with the bootstrap switched off); every
    # estimate of P(win) quoted beside the exact interval of the true P(win) (the verdict's
    # lower/upper), and Borda and minimax shares that every dataset gave alike carry the
    # exact bound for values that never varied instead of a point. The datasets needed's
    # interval takes the outer ends of the scalings by P(d_i + d_j > 0) (Noether) and by
    # mean/sd (holds for skewed differences too).
    "0.15.0": {
        "demsar": "365926eb4b43f68a22e3e2cfedfba49d7253476ad1e9ecd0ce63514cb8d356b4",
        "simulated": "6258a2565b339b18a3c9addfe6a00fb858715cc9a4f82018853b4010feacb11f",
    },
    # Within-dataset z-tests by the source's standard errors (DatasetTests.standard_errors).
    "0.16.0": {
        "demsar": "df60f713ee85d89b09d329e25fed235a6dc6eff627046e5a7987fad599e26d6c",
        "simulated": "5aa54f1e268acd22c565ffd569ca4f1cf435f874edbedbf4f5f0e68de6918c1a",
    },
    # 0.16.1: the same numbers to rounding (at most 6.5e-14 relative on these payloads;
    # 0.16.0's references still pass): the LOO-KL fit reads only its terms of positive
    # weight and the Brier QP solves its well-conditioned KKT systems by their inverse,
    # so their sums associate differently (the advisor's cost, issue 43 item 5).
    "0.16.1": {
        "demsar": "d48180ef0f100ad2265222824edf59ddf99012d92e4e77dcea1273009074fa7c",
        "simulated": "0b5a66112042ff0c27a0f97de03e2c3573acaa0db5a26c296f42aa35ea765d0c",
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


def _simulated_with_hierarchical(*, seed: int | None = None, rope: float = 0.01) -> dict:
    """The simulated demo's reference with its hierarchical section run again (another
    seed stands for another CPU, where one flipped accept step sends the chain elsewhere)."""
    reference = load_reference("simulated")
    stored = reference["practical"]["hierarchical"]
    table = simulated_table()
    order = [table.algorithms.index(stored["leader"])] + [
        table.algorithms.index(v["algorithm"]) for v in stored["versus"]
    ]
    rerun = hierarchical_comparison(
        table.algorithms,
        order,
        table.fold_values,
        rope=rope,
        seed=stored["seed"] if seed is None else seed,
    )
    changed = copy.deepcopy(reference)
    changed["practical"]["hierarchical"] = to_json(rerun)
    changed["practical"]["hierarchical"]["seed"] = stored["seed"]  # the stated seed stays
    return changed


def test_another_run_of_the_chain_passes_but_a_changed_model_does_not():
    reference = load_reference("simulated")
    assert reference_mismatches(_simulated_with_hierarchical(), reference, ITERATIVE) == []
    for seed in (1, 2, 3):
        other = _simulated_with_hierarchical(seed=seed)
        assert other["practical"]["hierarchical"] != reference["practical"]["hierarchical"]
        assert reference_mismatches(other, reference, ITERATIVE) == []
    # A wider region of practical equivalence is a changed number, beyond the chain's error.
    wider = _simulated_with_hierarchical(rope=0.03)
    assert any(
        "/hierarchical/versus" in m for m in reference_mismatches(wider, reference, ITERATIVE)
    )


def test_a_chain_probability_moved_beyond_its_error_fails():
    reference = load_reference("simulated")
    row = reference["practical"]["hierarchical"]["versus"][1]
    for factor, fails in ((2.0, False), (8.0, True)):
        moved = copy.deepcopy(reference)
        moved_row = moved["practical"]["hierarchical"]["versus"][1]
        moved_row["leader_better"] = row["leader_better"] - factor * row["mc_se"]
        assert bool(reference_mismatches(moved, reference, ITERATIVE)) is fails, factor


def test_signed_rank_and_advisor_shares_allow_a_few_draws_not_more():
    reference = load_reference("simulated")
    cases = (
        (("practical", "equivalent", "upper"), 1 / 4000, 0.01),
        (("advisor", "power", "power_at_observed"), 2 / 500, 0.05),
    )
    for path, few, many in cases:
        for shift, fails in ((few, False), (many, True)):
            moved = copy.deepcopy(reference)
            parent = moved
            for key in path[:-1]:
                parent = parent[key]
            value = parent[path[-1]]
            if isinstance(value, list):
                index = next(i for i, v in enumerate(value) if v is not None)
                value[index] += shift
            else:
                parent[path[-1]] = value + shift
            assert bool(reference_mismatches(moved, reference, ITERATIVE)) is fails, path


def test_a_sentence_with_a_sampled_number_is_compared_without_it():
    reference = load_reference("simulated")
    folds_power = reference["practical"]["hierarchical"]["folds_power"]
    moved = copy.deepcopy(reference)
    text = moved["practical"]["hierarchical"]["folds_power"]
    shown = round(100 * folds_power["power_at_current"])
    text["sentence"] = folds_power["sentence"].replace(f" {shown} %", f" {shown + 2} %")
    assert text["sentence"] != folds_power["sentence"]
    assert reference_mismatches(moved, reference, ITERATIVE) == []
    text["sentence"] = folds_power["sentence"].replace("hierarchical model", "fitted model")
    assert reference_mismatches(moved, reference, ITERATIVE) != []
