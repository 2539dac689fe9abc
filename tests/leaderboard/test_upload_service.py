"""The one way in for a results file holds its bounds whoever calls it: a command that
read the file itself, a trial, or the store."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from leaderboard.ingest.results_csv import ResultsCsvError
from leaderboard.services.errors import UploadTooLarge
from leaderboard.services.uploads import UploadInput, submissions_upload
from tests.factories import make_benchmark, make_user, stored_scores

pytestmark = pytest.mark.django_db

GOOD = b"dataset,algorithm,score\nd1,alg-a,0.9\nd2,alg-a,0.8\nd1,alg-b,0.5\n"


def test_a_file_over_the_size_bound_is_refused_before_it_is_read(settings):
    settings.PODIUM_MAX_UPLOAD_BYTES = len(GOOD) - 1
    board, user = make_benchmark(), make_user()
    for trial in (False, True):
        with pytest.raises(UploadTooLarge, match=f"the limit is {len(GOOD) - 1} bytes"):
            submissions_upload(
                benchmark=board, submitter=user, upload=UploadInput(GOOD), trial=trial
            )
    assert not stored_scores()


def test_a_file_over_the_row_bound_is_refused_in_the_request(settings):
    settings.PODIUM_MAX_UPLOAD_ROWS = 2
    with pytest.raises(ResultsCsvError, match="2"):
        submissions_upload(
            benchmark=make_benchmark(), submitter=make_user(), upload=UploadInput(GOOD)
        )
    assert not stored_scores()


def test_the_csv_command_stores_within_the_background_bound(settings, tmp_path):
    path = tmp_path / "results.csv"
    path.write_bytes(GOOD)
    settings.PODIUM_MAX_BACKGROUND_UPLOAD_ROWS = 2
    with pytest.raises(CommandError, match="too many results: at most 2"):
        call_command("import_benchmark", str(path), "--slug", "big", stdout=StringIO())
    assert not stored_scores()
    settings.PODIUM_MAX_BACKGROUND_UPLOAD_ROWS = 3
    call_command("import_benchmark", str(path), "--slug", "big", stdout=StringIO())
    assert len(stored_scores()) == 3


def test_the_csv_command_drops_what_lacks_folds_when_asked(tmp_path):
    path = tmp_path / "folds.csv"
    path.write_bytes(
        b"dataset,algorithm,fold,score\n"
        b"d1,alg-a,0,0.9\nd1,alg-a,1,0.8\nd1,alg-b,0,0.5\n"
        b"d2,alg-a,0,0.7\nd2,alg-b,0,0.6\n"
    )
    with pytest.raises(CommandError, match="lacks fold 1"):
        call_command("import_benchmark", str(path), "--slug", "gap", stdout=StringIO())
    err = StringIO()
    call_command(
        "import_benchmark",
        str(path),
        "--slug",
        "gap",
        "--incomplete=drop",
        stdout=StringIO(),
        stderr=err,
    )
    assert "--incomplete drop left out 1 algorithms' results" in err.getvalue()
    assert 'line 4, column "fold": algorithm "alg-b" on dataset "d1" lacks fold 1' in (
        err.getvalue()
    )
    assert sorted((r.algorithm, r.dataset) for r in stored_scores() if r.fold == 0) == [
        ("alg-a", "d1"),
        ("alg-a", "d2"),
        ("alg-b", "d2"),
    ]
