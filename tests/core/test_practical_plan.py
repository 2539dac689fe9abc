"""Which pairs the practical section computes, and what it says it left out (a pure
decision of estimation/core/practical.py, apart from the posterior draws)."""

from estimation.core.practical import MAX_COMPARED, MIN_SAMPLES, N_SAMPLES, _planned_pairs

ORDER = [14, 3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]


def test_every_pair_of_the_first_algorithms_and_the_leader_with_every_one():
    compared, chosen, samples, notes = _planned_pairs(ORDER, len(ORDER), 10)
    assert compared == sorted(ORDER[:MAX_COMPARED])
    assert samples == N_SAMPLES
    pairs_of_compared = MAX_COMPARED * (MAX_COMPARED - 1) // 2
    assert len(chosen) == len(set(chosen)) == pairs_of_compared + len(ORDER) - MAX_COMPARED
    assert all(a < b for a, b in chosen if 14 not in (a, b))
    assert {j for pair in chosen if 14 in pair for j in pair} == set(ORDER)
    # the leader's pairs come first
    leader_pairs = [pair for pair in chosen if 14 in pair]
    assert chosen[: len(leader_pairs)] == leader_pairs
    assert notes == (
        f"every pair of the first {MAX_COMPARED} of 15 algorithms is compared; the leader "
        "with every algorithm",
    )


def test_the_budget_keeps_the_leader_pairs_and_says_what_it_left_out():
    _compared, chosen, samples, notes = _planned_pairs(ORDER, len(ORDER), 1000)
    assert samples == MIN_SAMPLES
    assert 0 < len(chosen) < len(ORDER) - 1
    assert all(14 in pair for pair in chosen)
    assert (
        notes[0]
        == f"{MIN_SAMPLES} posterior draws per pair instead of {N_SAMPLES}, to bound the cost"
    )
    assert notes[1] == f"{50 - len(chosen)} pairs left out to bound the cost"


def test_two_algorithms_make_one_pair_and_no_note():
    assert _planned_pairs([1, 0], 2, 5) == ([0, 1], [(0, 1)], N_SAMPLES, ())
