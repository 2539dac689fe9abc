"""The metrics label of a request answered before URL resolution (a page-cache hit) is
resolved once per path, in a bounded memo that hostile paths cannot grow."""

from __future__ import annotations

from operations.metrics import _path_view_name


def test_a_path_resolves_to_its_view_name_and_an_unknown_one_to_unmatched():
    assert _path_view_name("/b/some-board/badge/alpha.svg") == "embed-badge"
    assert _path_view_name("/no/such/page/") == "unmatched"


def test_many_distinct_paths_keep_the_memo_bounded():
    _path_view_name.cache_clear()
    for i in range(3000):
        _path_view_name(f"/attack/{i}/" + "x" * 200)
    assert _path_view_name.cache_info().currsize <= 1024
