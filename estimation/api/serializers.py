"""The snapshot API's serializers and the help texts its schema shows."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse
from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from estimation.core.contract import (
    SECTION_NAMES,
    section_to_json,
)
from estimation.models import ResultSnapshot
from estimation.selectors import SNAPSHOT_SUMMARY_FIELDS, snapshot_board, snapshot_is_servable


class SnapshotSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = ResultSnapshot
        fields = list(SNAPSHOT_SUMMARY_FIELDS)  # the columns snapshot_status reads


class SubmissionChangeSerializer(serializers.Serializer):
    submission = serializers.IntegerField(help_text="the submission's id")
    algorithm = serializers.CharField()
    status = serializers.CharField(help_text="its status now")


class RecomputeFailureSerializer(serializers.Serializer):
    schema_description = (
        "Set when the newest input of this metric failed: the results served are older."
    )

    version = serializers.IntegerField(help_text="the failed version (the newest one)")
    failed_during = serializers.ChoiceField(
        choices=["load", "analysis", "store"],
        help_text="analysis: the input cannot be analysed (it stays failed until the "
        "accepted submissions change); load or store: an internal error, retried "
        "automatically with back-off",
    )
    reason = serializers.CharField(help_text="why, in plain words")
    failed_at = serializers.DateTimeField(allow_null=True)
    retry_at = serializers.DateTimeField(
        allow_null=True, help_text="the next automatic try (load or store failures), or null"
    )
    served_version = serializers.IntegerField(
        allow_null=True, help_text="the older version being served instead, or null"
    )
    still_includes = SubmissionChangeSerializer(
        many=True,
        help_text="submissions the results served include that are no longer accepted "
        "(at most 100; n_still_includes counts them all)",
    )
    lacks = SubmissionChangeSerializer(
        many=True,
        help_text="accepted submissions the results served do not include (at most 100; "
        "n_lacks counts them all)",
    )
    n_still_includes = serializers.IntegerField()
    n_lacks = serializers.IntegerField()


GONE_HELP = (
    "A version that retention removed (older versions nobody cited are pruned) answers "
    "410 Gone with the latest version and its URL; a version that never existed, 404."
)


# ``?algorithms=`` in characters, such that any list this long fits in gunicorn's request
# line of 8190 bytes (config/gunicorn.py) with the rest of the request: percent-encoded,
# one character takes up to 12 bytes (4 in UTF-8), 6000 here; the path (an 80-character
# slug) and ``&metric=`` (100 characters) take under 1400 more. A longer list is refused
# by the API (400), not by the server before it.
ALGORITHMS_MAX_LENGTH = 500


LONG_LIST_HELP = (
    "A list of algorithms travels in the URL, whose request line is limited to 8190 bytes "
    f"(gunicorn's maximum): `algorithms` takes up to {ALGORITHMS_MAX_LENGTH} characters. For "
    "many algorithms ask `?top=N`, or fetch the whole section and filter it."
)


class RecomputeActivitySerializer(serializers.Serializer):
    """What the background work is doing for this benchmark, told honestly."""

    state = serializers.ChoiceField(
        choices=["idle", "computing", "waiting", "stalled"],
        help_text="idle: the results served are of the newest input; computing: a worker "
        "runs the recompute now (its lease is alive); waiting: new input is queued, or a "
        "failed run is retried later; stalled: new input has waited longer than the stall "
        "time with no worker running it, or a version is marked computing that no worker "
        "runs",
    )
    reason = serializers.CharField(help_text="the state in plain words")
    unserved_since = serializers.DateTimeField(
        allow_null=True,
        help_text="when the oldest change the results served lack was asked for "
        "(null: they lack none)",
    )
    unserved_seconds = serializers.IntegerField(
        allow_null=True, help_text="its age in whole seconds when answered (null: none)"
    )


FAILURE_HELP = (
    "null, unless the newest input of this metric failed: why, and how the results "
    "served (an older version) differ from the accepted submissions"
)


@extend_schema_field(
    {"type": "object", "description": "the board section (docs/snapshot-contract.md#board)"}
)
class BoardField(serializers.Field):
    def to_representation(self, value):
        return value


class SnapshotSerializer(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    metric = serializers.CharField(source="metric.name")
    board = serializers.SerializerMethodField(
        help_text="the O(m) board section; null unless the snapshot is ready"
    )
    sections = serializers.SerializerMethodField(
        help_text="URL of each section of a ready snapshot, by name (null otherwise)"
    )

    class Meta:
        model = ResultSnapshot
        fields = [
            "benchmark",
            "metric",
            *SnapshotSummarySerializer.Meta.fields,
            "timings",
            "board",
            "sections",
        ]

    @extend_schema_field(BoardField(allow_null=True))
    def get_board(self, snapshot) -> dict | None:
        board = snapshot_board(snapshot=snapshot)
        return None if board is None else section_to_json("board", board)

    @extend_schema_field(serializers.DictField(child=serializers.URLField(), allow_null=True))
    def get_sections(self, snapshot) -> dict | None:
        if not snapshot_is_servable(snapshot):
            return None
        request = self.context.get("request")
        query = "?" + urlencode({"metric": snapshot.metric.name})
        urls = {}
        for name in SECTION_NAMES:
            path = reverse(
                "api-snapshot-section",
                kwargs={"slug": snapshot.benchmark.slug, "version": snapshot.version, "name": name},
            )
            url = path + query
            urls[name] = request.build_absolute_uri(url) if request is not None else url
        return urls
