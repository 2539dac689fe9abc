"""The benchmark forms' selects show short option labels (a select cannot wrap, so long
ones were clipped on a phone) and keep each choice's meaning in the help text."""

from __future__ import annotations

import pytest

from frontend.contribute.choice_labels import SHORT_ENOUGH
from frontend.contribute.forms import BenchmarkCreateForm
from leaderboard.models import Benchmark

pytestmark = pytest.mark.django_db


def test_every_option_is_short_and_its_meaning_is_in_the_help():
    form = BenchmarkCreateForm()
    for name in ("visibility", "submission_policy", "missing_policy", "default_estimator"):
        field = form.fields[name]
        labels = [str(label) for _, label in field.choices]
        assert all(len(label) <= SHORT_ENOUGH for label in labels), labels
    policy = form.fields["submission_policy"]
    assert [str(label) for _, label in policy.choices] == ["open", "moderated", "closed"]
    for _, meaning in Benchmark.SubmissionPolicy.choices:
        assert meaning in policy.help_text  # "moderated: a maintainer accepts each submission"
    missing = form.fields["missing_policy"]
    assert "analyse datasets every included algorithm has" in missing.help_text
    assert missing.help_text.startswith("What a dataset without a result")


def test_the_values_are_unchanged():
    form = BenchmarkCreateForm()
    assert [v for v, _ in form.fields["submission_policy"].choices] == [
        v for v, _ in Benchmark.SubmissionPolicy.choices
    ]
