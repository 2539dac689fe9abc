"""Results files that try to exhaust the server: memory and time stay bounded by size.

The review's memory bomb was a long file whose every row names its own dataset and
metric, with a fold column: the fold check sized its counters by metrics x datasets, so
11,000 rows (198 KB) took a web upload from 0.2 GB to 4.1 GB. Peak memory is measured
with ``tracemalloc`` (numpy reports its buffers to it) around the parse alone and around
the whole API upload (parse, service checks, response).
"""

from __future__ import annotations

import time
import tracemalloc

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from leaderboard.ingest.results_csv import ResultsCsvError, parse_results_csv_text
from leaderboard.models import Submission
from tests.factories import make_benchmark, make_user, stored_scores

MiB = 2**20


def bomb(rows: int) -> bytes:
    """Each row its own dataset and metric, with a fold: the review's file."""
    lines = ["dataset,algorithm,score,fold,metric"]
    lines += [f"d{i},a,0.5,0,m{i}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def wide(rows: int, algorithms: int) -> bytes:
    header = "dataset," + ",".join(f"alg-{j}" for j in range(algorithms))
    body = [f"d{i}," + ",".join("0.5" for _ in range(algorithms)) for i in range(rows)]
    return ("\n".join([header, *body]) + "\n").encode()


def peak_while(action) -> tuple[float, float, object]:
    """(peak MiB allocated during ``action``, CPU seconds of this process, its result or
    exception): CPU, not wall time, so that a loaded machine does not fail the bound."""
    tracemalloc.start()
    started = time.process_time()
    try:
        outcome = action()
    except Exception as exc:  # the refusal is an outcome too
        outcome = exc
    seconds = time.process_time() - started
    peak = tracemalloc.get_traced_memory()[1] / MiB
    tracemalloc.stop()
    return peak, seconds, outcome


def test_memory_bomb_parses_in_memory_linear_in_its_size():
    content = bomb(11_000)
    assert len(content) < 250_000
    peak, seconds, outcome = peak_while(lambda: parse_results_csv_text(content))
    # Before the fix: (11,001 x 11,000) int64 counters, about 1 GB each, three of them.
    assert peak < 32, f"parsing a {len(content)} B file peaked at {peak:.0f} MiB"
    assert seconds < 10
    assert outcome.n_records == 11_000


def test_memory_bomb_twice_the_size_costs_about_twice_the_memory():
    small, _, _ = peak_while(lambda: parse_results_csv_text(bomb(11_000)))
    large, _, _ = peak_while(lambda: parse_results_csv_text(bomb(44_000)))
    assert large < 6 * small, (small, large)  # linear (4x rows), not quadratic (16x)


def test_wide_file_with_many_algorithms_stays_bounded():
    content = wide(rows=100, algorithms=2_000)  # 200,000 scores in 0.8 MB
    peak, seconds, outcome = peak_while(lambda: parse_results_csv_text(content))
    assert peak < 96, f"parsing a {len(content)} B wide file peaked at {peak:.0f} MiB"
    assert seconds < 20
    assert outcome.n_records == 200_000


def test_wide_cap_counts_scores_not_rows():
    content = wide(rows=10, algorithms=40)  # 10 rows, 400 scores
    with pytest.raises(ResultsCsvError) as refused:
        parse_results_csv_text(content, max_rows=50)
    assert "at most 50 scores" in str(refused.value)


@pytest.mark.django_db
def test_memory_bomb_through_the_api_is_refused_within_a_memory_bound(settings):
    benchmark = make_benchmark("toy")
    api = APIClient()
    api.force_login(make_user("attacker"))
    content = bomb(11_000)

    def send():
        upload = SimpleUploadedFile("bomb.csv", content, content_type="text/csv")
        return api.post(
            f"/api/benchmarks/{benchmark.slug}/submissions/upload/",
            {"file": upload},
            format="multipart",
        )

    peak, seconds, response = peak_while(send)
    assert seconds < 30
    assert response.status_code == 400, response
    assert "unknown metric" in response.content.decode()
    assert peak < 128, f"the upload peaked at {peak:.0f} MiB"
    assert not Submission.objects.exists() and not stored_scores()


@pytest.mark.django_db
def test_wide_file_over_the_cap_is_refused_through_the_api(settings):
    settings.PODIUM_MAX_UPLOAD_ROWS = 50
    benchmark = make_benchmark("toy")
    api = APIClient()
    api.force_login(make_user("attacker"))
    upload = SimpleUploadedFile("wide.csv", wide(10, 40), content_type="text/csv")
    response = api.post(
        f"/api/benchmarks/{benchmark.slug}/submissions/upload/",
        {"file": upload},
        format="multipart",
    )
    assert response.status_code == 400
    assert "at most 50 scores" in response.content.decode()
    assert not stored_scores()


def indexed_tiny_cells(size: int) -> bytes:
    """pandas' index column, then rows of one-character cells: about 45 bytes of Python
    per byte of the file where it is read whole (sheets.tidy_results_table)."""
    width = 500
    header = "," + ",".join(f"c{j}" for j in range(width)) + "\n"
    row = ",".join("1" for _ in range(width + 1)) + "\n"
    return (header + row * (size // len(row))).encode()


@pytest.mark.django_db
def test_a_csv_read_whole_before_parsing_is_refused_past_its_bound_before_it_is_read(settings):
    """Review of the web and API reading of one row per model (read whole): a 3.8 MB
    file of tiny cells took 168 MiB; at the API's 100 MB about 4.4 GB."""
    from leaderboard.services.uploads import UploadInput, submissions_upload

    settings.PODIUM_MAX_TIDY_UPLOAD_BYTES = 1 * MiB
    content = indexed_tiny_cells(2 * MiB)  # under the background threshold: in the request
    assert len(content) < settings.PODIUM_BACKGROUND_UPLOAD_BYTES
    board, user = make_benchmark(), make_user()
    peak, _, outcome = peak_while(
        lambda: submissions_upload(
            benchmark=board, submitter=user, upload=UploadInput(content, models_as_rows=True)
        )
    )
    assert isinstance(outcome, ResultsCsvError), outcome
    assert "may be up to 1 MiB and this one is 2.0 MiB" in str(outcome)
    assert peak < 16, f"refusing a {len(content)} B file peaked at {peak:.0f} MiB"
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_a_csv_with_an_index_column_or_nan_cells_is_streamed(settings):
    """pandas' index column and NaN cells are read row by row (sheets.streamed_results_text),
    so the whole-read bound does not apply to them: the same file of tiny cells past it is
    read and answered (its 500 columns are no results layout) without a Python object per
    cell held at once."""
    from leaderboard.services.uploads import UploadInput, submissions_upload

    settings.PODIUM_MAX_TIDY_UPLOAD_BYTES = 1 * MiB
    content = indexed_tiny_cells(2 * MiB)
    board, user = make_benchmark(), make_user()
    for choices in ({}, {"nan_missing": True}):
        peak, _, outcome = peak_while(
            lambda choices=choices: submissions_upload(
                benchmark=board, submitter=user, upload=UploadInput(content, **choices)
            )
        )
        assert isinstance(outcome, ResultsCsvError), outcome
        assert "may be up to" not in str(outcome)
        assert peak < 32, f"reading a {len(content)} B file peaked at {peak:.0f} MiB"
    assert not Submission.objects.exists()


def test_a_csv_read_whole_stops_at_the_row_cap():
    from leaderboard.ingest.results_csv.sheets import tidy_results_table

    content = b",dataset,algorithm,score\n" + b"".join(
        b"%d,d%d,a,0.5\n" % (i, i) for i in range(50)
    )
    with pytest.raises(ResultsCsvError, match="more than 10 rows: split the file"):
        tidy_results_table(content, filename="x.csv", max_rows=10)
    assert len(tidy_results_table(content, filename="x.csv", max_rows=50).source_lines) == 51
