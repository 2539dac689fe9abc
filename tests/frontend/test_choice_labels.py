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


def test_the_default_estimator_help_says_each_name_once_with_its_meaning():
    from estimation.core.registry import ESTIMATORS

    help_text = str(BenchmarkCreateForm().fields["default_estimator"].help_text)
    items = help_text.split("<li>")[1:]
    assert len(items) == len(ESTIMATORS)
    for estimator, item in zip(ESTIMATORS, items, strict=True):
        assert item.startswith(f"{estimator.short_label}: ")
        # the name is not said again as its own explanation
        explanation = item.removeprefix(f"{estimator.short_label}: ")
        assert estimator.label not in explanation and estimator.short_label not in explanation
        assert estimator.meaning.split(". ")[0].rstrip(".") in item
