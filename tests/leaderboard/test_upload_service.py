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
