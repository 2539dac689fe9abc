"""Submissions: create (JSON or a results file), list, read, withdraw, moderate."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from common.pagination import LimitOffsetPagination, paginated_response
from common.rest import (
    ApiView,
    BoundedJSONParser,
    ErrorSerializer,
    PageQuerySerializer,
    PayloadTooLarge,
)
from leaderboard.api.common import (
    NonFiniteJSONParser,
    ScoreValueField,
    StrictInput,
    idempotency_key_from,
    idempotency_parameter,
    submission_or_404,
)
from leaderboard.ingest.formats import UPLOAD_FORMATS
from leaderboard.ingest.imported import EMPTY_IMPORT, IMPORT_FORMATS, ON_ERROR
from leaderboard.ingest.results_csv import INCOMPLETE
from leaderboard.ingest.results_csv.sheets import MAPPABLE, parse_columns
from leaderboard.lookups import benchmark_or_404
from leaderboard.models import Submission, UploadJob
from leaderboard.selectors import (
    submission_list_by_ids,
    submission_list_visible,
    submission_score_rows,
    upload_job_get_visible,
)
from leaderboard.services import (
    MAX_URL_LENGTH,
    ScoreInput,
    SubmissionInput,
    entries_incomplete_notes,
    submission_accept,
    submission_create,
    submission_reject,
    submission_withdraw,
    url_problem,
    user_is_maintainer,
)
from leaderboard.services.uploads import UploadInput, left_out_where, submissions_upload
from leaderboard.throttling import SubmissionThrottles

logger = logging.getLogger(__name__)
ERRORS = {400: ErrorSerializer, 401: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer}
SUBMIT_THROTTLES = [SubmissionThrottles]


def url_validator(value: str) -> None:
    if problem := url_problem(value):
        raise serializers.ValidationError(problem)


class SubmissionOutputSerializer(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    algorithm = serializers.CharField(source="algorithm.name")
    submitter = serializers.CharField(source="submitter.username", allow_null=True)
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True)
    n_scores = serializers.IntegerField()

    class Meta:
        model = Submission
        fields = [
            "id",
            "benchmark",
            "algorithm",
            "status",
            "source",
            "note",
            "submitter",
            "created_at",
            "decided_at",
            "decided_by",
            "decision_note",
            "n_scores",
        ]


class SubmissionCreatedOutputSerializer(SubmissionOutputSerializer):
    incomplete_note = serializers.SerializerMethodField(
        help_text="What the submission's empty cells do under the benchmark's "
        "incomplete_submissions policy (null: none empty)",
    )

    class Meta(SubmissionOutputSerializer.Meta):
        fields = [*SubmissionOutputSerializer.Meta.fields, "incomplete_note"]

    def get_incomplete_note(self, submission) -> str | None:
        return self.context.get("incomplete_note")


class SubmissionDetailOutputSerializer(SubmissionOutputSerializer):
    class ScoreSerializer(serializers.Serializer):
        dataset = serializers.CharField()
        metric = serializers.CharField()
        fold = serializers.IntegerField(allow_null=True)
        value = serializers.FloatField()

    scores = serializers.SerializerMethodField()

    class Meta(SubmissionOutputSerializer.Meta):
        fields = [*SubmissionOutputSerializer.Meta.fields, "scores"]

    @extend_schema_field(ScoreSerializer(many=True))
    def get_scores(self, submission) -> list[dict]:
        rows = submission_score_rows(submission=submission)
        return self.ScoreSerializer(rows, many=True).data  # type: ignore[return-value]  # many=True: a ReturnList


def _stored(submissions: list[Submission]) -> list[Submission]:
    """The submissions again, as stored."""
    return _stored_by_ids([s.pk for s in submissions])


def _stored_by_ids(ids: list[int]) -> list[Submission]:
    return list(submission_list_by_ids(ids=ids))


def _stored_or_written(submissions: list[Submission]) -> list[Submission]:
    """The submissions re-read, or, when that read fails (the database went away right
    after the commit), as written: the write is stored, so the answer is a success
    either way and a client that retries without an Idempotency-Key does not store it
    twice. Every field the answer shows is already on the objects the service returned
    (it loads their relations and counts their scores)."""
    try:
        return _stored(submissions)
    except DatabaseError:
        logger.warning(
            "submissions %s are stored, but re-reading them failed; answering from what "
            "was written",
            [s.pk for s in submissions],
            exc_info=True,
        )
    return submissions


def _replayed(submissions: list[Submission], key: str, started) -> bool:
    """True when an Idempotency-Key retry returned what an earlier request stored."""
    return bool(key) and all(s.created_at < started for s in submissions)


class SubmissionListApi(ApiView):
    pagination_class = LimitOffsetPagination
    create_endpoints = (
        ("a submission", "api-submission-create"),
        ("submissions from a results file", "api-submission-upload"),
    )

    class FilterSerializer(PageQuerySerializer):
        status = serializers.ChoiceField(choices=Submission.Status.choices, required=False)
        algorithm = serializers.CharField(
            required=False, min_length=1, max_length=200, help_text="algorithm name"
        )

    query_serializer_class = FilterSerializer

    @extend_schema(
        summary="List submissions",
        description="Maintainers see every submission; everyone else the accepted ones "
        "and their own.",
        parameters=[FilterSerializer],
        responses={200: SubmissionOutputSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        filters = {k: v for k, v in self.query.items() if k in ("status", "algorithm")}
        submissions = submission_list_visible(
            benchmark=benchmark,
            user=request.user,
            is_maintainer=user_is_maintainer(user=request.user, benchmark=benchmark),
            **filters,
        )
        return paginated_response(
            queryset=submissions,
            serializer_class=SubmissionOutputSerializer,
            request=request,
            view=self,
        )


class SubmissionCreateApi(ApiView):
    permission_classes = [IsAuthenticated]
    throttle_classes = SUBMIT_THROTTLES
    parser_classes = [NonFiniteJSONParser]

    class InputSerializer(StrictInput, serializers.Serializer):
        class ScoreSerializer(StrictInput, serializers.Serializer):
            dataset = serializers.CharField(max_length=200, allow_blank=True)
            value = ScoreValueField(help_text="a finite number (a rank >= 1 on ranking benchmarks)")
            metric = serializers.CharField(
                required=False, allow_null=True, default=None, help_text="default: primary"
            )
            fold = serializers.IntegerField(required=False, allow_null=True, default=None)

        algorithm = serializers.CharField(max_length=200)
        algorithm_url = serializers.URLField(
            required=False,
            default="",
            max_length=MAX_URL_LENGTH,
            # Not trimmed: the schema's format "uri" has no room for surrounding spaces.
            trim_whitespace=False,
            validators=[url_validator],
            help_text="paper or code: an absolute http(s) URL; leave it out when there is none",
        )
        algorithm_version = serializers.CharField(
            required=False, allow_blank=True, max_length=50, default=""
        )

        class AlgorithmMetadataSerializer(StrictInput, serializers.Serializer):
            family = serializers.CharField(
                required=False, max_length=100, help_text="e.g. transformer"
            )
            parameters = serializers.IntegerField(
                required=False, min_value=1, max_value=2**63 - 1, help_text="parameter count"
            )
            licence = serializers.CharField(required=False, max_length=100)
            revision = serializers.CharField(
                required=False, max_length=100, help_text="e.g. a commit or model sha"
            )
            precision = serializers.CharField(
                required=False, max_length=30, help_text="e.g. bfloat16, float16, 8bit, 4bit"
            )
            open_weights = serializers.BooleanField(
                required=False, help_text="whether the weights are published"
            )

            def to_internal_value(self, data):
                if isinstance(data, Mapping) and (unknown := sorted(set(data) - set(self.fields))):
                    raise serializers.ValidationError(
                        {
                            name: [
                                "unknown algorithm metadata; the fields are family, "
                                "parameters, licence, revision, precision, open_weights"
                            ]
                            for name in unknown
                        }
                    )
                return super().to_internal_value(data)

        algorithm_metadata = AlgorithmMetadataSerializer(
            required=False,
            default=dict,
            help_text="what the algorithm is; shown on its page once a submission is accepted",
        )
        note = serializers.CharField(required=False, allow_blank=True, default="")
        # DRF takes min_length with many=True (ListSerializer); its stubs do not say so.
        scores = ScoreSerializer(many=True, min_length=1)  # type: ignore[call-arg]
        allow_new_datasets = serializers.BooleanField(
            required=False,
            default=False,
            help_text="true to add datasets the benchmark does not have yet (a benchmark "
            "with no datasets takes new ones without it). Without it, an unknown dataset "
            "is refused, with a 'did you mean' when it is close to a known one.",
        )

        def validate_scores(self, scores):
            limit = settings.PODIUM_MAX_UPLOAD_ROWS
            if len(scores) > limit:
                raise serializers.ValidationError(f"at most {limit} scores per submission")
            return scores

    def max_body_bytes(self) -> int:
        return min(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.PODIUM_MAX_JSON_SUBMISSION_BYTES)

    def too_large_message(self, size: int, limit: int) -> str:
        return json_too_large_message(f"The request is {size} bytes; the limit is {limit} bytes")

    @extend_schema(
        summary="Submit an algorithm's scores",
        description="Any logged-in user may submit to an open or moderated benchmark (to a "
        "closed one, only its maintainers). Open benchmarks accept on arrival; moderated "
        "ones wait for a maintainer. All or nothing: every problem is reported, with the "
        "position of the score (`scores[i]`, 1-based). `incomplete_note` says what empty "
        "cells (datasets of the board without a score) do under the benchmark's "
        "`incomplete_submissions` policy.",
        request=InputSerializer,
        parameters=[idempotency_parameter],
        responses={
            201: SubmissionCreatedOutputSerializer,
            200: SubmissionCreatedOutputSerializer,
            413: ErrorSerializer,
            429: ErrorSerializer,
            **ERRORS,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        key = idempotency_key_from(request)
        scores = request.data.get("scores") if isinstance(request.data, dict) else None
        if isinstance(scores, list) and len(scores) > settings.PODIUM_MAX_JSON_SCORES:
            raise PayloadTooLarge(
                json_too_large_message(
                    f"The submission has {len(scores)} scores; the limit is "
                    f"{settings.PODIUM_MAX_JSON_SCORES}"
                )
            )
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        entry = SubmissionInput(
            algorithm=data["algorithm"],
            scores=[ScoreInput(**score) for score in data["scores"]],
            algorithm_url=data["algorithm_url"],
            algorithm_version=data["algorithm_version"],
            algorithm_metadata=dict(data["algorithm_metadata"]),
            note=data["note"],
        )
        # Said as it would be before storing: the board as it was (idempotent replays too).
        note = entries_incomplete_notes(benchmark=benchmark, entries=[entry]).get(entry.algorithm)
        started = timezone.now()
        submission = submission_create(
            benchmark=benchmark,
            submitter=request.user,
            entry=entry,
            source=Submission.Source.API,
            idempotency_key=key,
            new_datasets_confirmed=data["allow_new_datasets"],
        )
        code = status.HTTP_200_OK if _replayed([submission], key, started) else 201
        (stored,) = _stored_or_written([submission])
        out = SubmissionCreatedOutputSerializer(stored, context={"incomplete_note": note})
        return Response(out.data, status=code)


def json_too_large_message(what: str) -> str:
    """A 413 for a JSON submission: the limits (PODIUM_MAX_JSON_SUBMISSION_BYTES and
    PODIUM_MAX_JSON_SCORES) and the way to send more."""
    limit = settings.PODIUM_MAX_JSON_SUBMISSION_BYTES
    return (
        f"{what}. A JSON submission takes at most {limit} bytes ({limit / 2**20:.1f} MiB) "
        f"and {settings.PODIUM_MAX_JSON_SCORES} scores; send larger results as a file to "
        "submissions/upload/ (large files are processed in the background), or split them."
    )


class IncompleteNoteSerializer(serializers.Serializer):
    """What one algorithm's empty cells do under the benchmark's policy."""

    algorithm = serializers.CharField()
    note = serializers.CharField(
        help_text="what its empty cells (datasets of the board without a score) do under "
        "the benchmark's incomplete_submissions policy"
    )


def incomplete_notes_out(notes: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"algorithm": a, "note": n} for a, n in sorted(notes.items())]


class LeftOutSerializer(serializers.Serializer):
    """A result not stored (with ``on_error=skip`` or ``incomplete=drop``)."""

    field = serializers.CharField(
        help_text='where it was read: "<file>: <key>", or "line N, column "c"" in a CSV'
    )
    message = serializers.CharField(help_text="why it was left out")


class SubmissionUploadApi(ApiView):
    permission_classes = [IsAuthenticated]
    throttle_classes = SUBMIT_THROTTLES
    parser_classes = [MultiPartParser]

    class InputSerializer(StrictInput, serializers.Serializer):
        # An empty CSV is the parser's to word, as on the CLI and the web; validate()
        # refuses an empty import.
        file = serializers.FileField(
            help_text="results CSV, UTF-8; fields separated by commas, or by semicolons "
            "with decimal commas (0,95) as European spreadsheets save CSV",
            allow_empty_file=True,
        )
        # Not nullable: a form field is text, and "null" is no format.
        format = serializers.ChoiceField(
            choices=UPLOAD_FORMATS,
            required=False,
            default=None,
            help_text="long: dataset,algorithm,score[,fold][,metric]; wide: "
            "dataset,<algorithm>,...; ranking: dataset,algorithm,rank. Detected from the "
            "header when omitted. Another tool's results (one file, or a folder as a zip): "
            + ", ".join(IMPORT_FORMATS)
            + "; problems are named by file and key.",
        )
        note = serializers.CharField(required=False, allow_blank=True, default="")
        allow_new_datasets = serializers.BooleanField(
            required=False,
            default=False,
            help_text="true to add datasets the benchmark does not have yet (a benchmark "
            "with no datasets takes new ones without it). Without it, an unknown dataset "
            "is refused, with a 'did you mean' when it is close to a known one.",
        )

        on_error = serializers.ChoiceField(
            choices=ON_ERROR,
            required=False,
            default="refuse",
            help_text="refuse (the default: nothing is stored if anything cannot be read, "
            "every problem listed) or skip (the rest is stored and left_out lists what was "
            "not, by line for a CSV, by file and key for another tool's files, with the "
            "reason). A file processed in the background takes the same choice.",
        )
        incomplete = serializers.ChoiceField(
            choices=INCOMPLETE,
            required=False,
            default="refuse",
            help_text="an algorithm lacking, on a dataset, folds that others have there: "
            "refuse (the default) or drop its results on that dataset (listed in left_out), "
            "as manage.py analyze --incomplete drop",
        )

        columns = serializers.CharField(
            required=False,
            allow_blank=True,
            default="",
            help_text="a CSV's own column names by role, as manage.py import_benchmark "
            "--columns takes them: dataset=task,algorithm=framework,score=result (roles: "
            + ", ".join(MAPPABLE)
            + "); the columns not named are left out (listed in notes)",
        )

        models_as_rows = serializers.BooleanField(
            required=False,
            default=False,
            help_text="the CSV or workbook has one row per model (its first column) and one "
            "column per dataset, as manage.py import_benchmark --models-as-rows",
        )
        nan = serializers.ChoiceField(
            choices=("refuse", "missing"),
            required=False,
            default="refuse",
            help_text="a NaN score (pandas' NaN or <NA>, R's NA): refused as not a number "
            "(the default), or read as a missing result and listed, as manage.py "
            "import_benchmark --nan missing",
        )

        def validate_columns(self, value: str) -> dict[str, str] | None:
            if not value.strip():
                return None
            try:
                return parse_columns(value)
            except ValueError as exc:
                raise serializers.ValidationError(str(exc)) from None

        def validate(self, attrs: dict) -> dict:
            if not attrs["file"].size and attrs["format"] in IMPORT_FORMATS:
                raise serializers.ValidationError({"file": [EMPTY_IMPORT]})
            if attrs["format"] in IMPORT_FORMATS:
                for name, chosen in (
                    ("columns", attrs["columns"]),
                    ("models_as_rows", attrs["models_as_rows"]),
                    ("nan", attrs["nan"] == "missing"),
                ):
                    if chosen:
                        raise serializers.ValidationError(
                            {
                                name: [
                                    f"{name}: only for a CSV or a workbook, not another tool's file"
                                ]
                            }
                        )
            return attrs

    class OutputSerializer(serializers.Serializer):
        submissions = SubmissionOutputSerializer(many=True)
        n_scores = serializers.IntegerField()
        left_out = LeftOutSerializer(
            many=True,
            required=False,
            help_text="what was left out (with on_error=skip or incomplete=drop), where it "
            "was read, with the reason (the first ones, up to a bound)",
        )
        n_left_out = serializers.IntegerField(
            required=False, help_text="how many results the import left out in all"
        )
        notes = serializers.ListField(
            child=serializers.CharField(),
            required=False,
            help_text="what a column mapping left out of the file (its columns not mapped)",
        )
        incomplete_notes = IncompleteNoteSerializer(
            many=True,
            required=False,
            help_text="each algorithm of the file with empty cells, and what they do (empty "
            "list: none)",
        )

    def max_body_bytes(self) -> int:
        return settings.PODIUM_MAX_UPLOAD_BYTES

    @extend_schema(
        summary="Submit a results file",
        description="multipart/form-data with a CSV `file`: one submission per algorithm "
        "in the file, all or nothing. A refused file lists every bad row (line, column, "
        "reason); with `on_error=skip` (or `incomplete=drop` for fold gaps) the rest is "
        "stored and `left_out` lists what was not. Files over PODIUM_MAX_UPLOAD_BYTES are refused with 413, files over "
        "PODIUM_MAX_UPLOAD_ROWS rows or results (each fold one) with 400. A file over "
        "PODIUM_BACKGROUND_UPLOAD_BYTES (a zip of another tool's files: unpacked) is "
        "answered 202 and processed in the background, within "
        "PODIUM_MAX_BACKGROUND_UPLOAD_ROWS.",
        request=InputSerializer,
        parameters=[idempotency_parameter],
        responses={
            201: OutputSerializer,
            200: OutputSerializer,
            413: ErrorSerializer,
            429: ErrorSerializer,
            **ERRORS,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        outcome = submissions_upload(
            benchmark=benchmark,
            submitter=request.user,
            upload=UploadInput(
                content=data["file"].read(),
                filename=data["file"].name or "upload",
                format=data["format"],
                note=data["note"],
                on_error=data["on_error"],
                incomplete=data["incomplete"],
                columns=data["columns"],
                models_as_rows=data["models_as_rows"],
                nan_missing=data["nan"] == "missing",
                new_datasets_confirmed=data["allow_new_datasets"],
                idempotency_key=idempotency_key_from(request),
            ),
        )
        if outcome.job is not None:
            return _upload_job_response(request, slug, outcome.job, status.HTTP_202_ACCEPTED)
        stored = _stored_or_written(list(outcome.submissions))
        body = {
            "submissions": stored,
            "n_scores": sum(s.n_scores for s in stored),
            "left_out": [
                {"field": left_out_where(p), "message": p.message} for p in outcome.left_out
            ],
            "n_left_out": outcome.n_left_out,
            "notes": list(outcome.read.notes) if outcome.read is not None else [],
            "incomplete_notes": incomplete_notes_out(outcome.incomplete_notes),
        }
        code = status.HTTP_200_OK if outcome.replayed else status.HTTP_201_CREATED
        return Response(self.OutputSerializer(body).data, status=code)


class SubmissionDetailApi(ApiView):
    @extend_schema(
        summary="A submission with its scores",
        responses={200: SubmissionDetailOutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, submission_id: int) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        submission = submission_or_404(
            benchmark=benchmark, user=request.user, submission_id=submission_id
        )
        return Response(SubmissionDetailOutputSerializer(submission).data)


class SubmissionWithdrawApi(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Withdraw a submission",
        description="Its submitter or a maintainer; its scores stop counting. 409 when it "
        "is already withdrawn.",
        request=None,
        responses={200: SubmissionOutputSerializer, **ERRORS, 409: ErrorSerializer},
    )
    def post(self, request: Request, slug: str, submission_id: int) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        submission = submission_or_404(
            benchmark=benchmark, user=request.user, submission_id=submission_id
        )
        submission = submission_withdraw(submission=submission, user=request.user)
        (stored,) = _stored([submission])
        return Response(SubmissionOutputSerializer(stored).data)


class _DecisionInputSerializer(StrictInput, serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, default="")


class _DecisionApi(ApiView):
    """Accept or reject: a JSON object or no body at all. Every field is optional, so a
    form-encoded body (which cannot say "not an object": `true` read as {}) is refused."""

    permission_classes = [IsAuthenticated]
    parser_classes = [BoundedJSONParser]
    InputSerializer = _DecisionInputSerializer
    decide: Callable[..., Submission]  # the service that makes the decision

    def post(self, request: Request, slug: str, submission_id: int) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        submission = submission_or_404(
            benchmark=benchmark, user=request.user, submission_id=submission_id
        )
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        submission = type(self).decide(
            submission=submission, user=request.user, note=serializer.validated_data["note"]
        )
        (stored,) = _stored([submission])
        return Response(SubmissionOutputSerializer(stored).data)


_DECISION_RESPONSES = {200: SubmissionOutputSerializer, **ERRORS, 409: ErrorSerializer}


@extend_schema_view(
    post=extend_schema(
        summary="Accept a pending submission",
        description="Maintainers only. 409 when it is not pending (already accepted, "
        "rejected or withdrawn).",
        request=_DecisionInputSerializer,
        responses=_DECISION_RESPONSES,
    )
)
class SubmissionAcceptApi(_DecisionApi):
    decide = staticmethod(submission_accept)


@extend_schema_view(
    post=extend_schema(
        summary="Reject a submission",
        description="Maintainers only; rejecting an accepted submission removes its scores "
        "from the results. 409 when it is already rejected or withdrawn.",
        request=_DecisionInputSerializer,
        responses=_DECISION_RESPONSES,
    )
)
class SubmissionRejectApi(_DecisionApi):
    decide = staticmethod(submission_reject)


class UploadJobOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=UploadJob.Status.choices)
    stage = serializers.CharField(help_text="reading, validating or storing while running")
    progress = serializers.FloatField(help_text="0..1")
    size = serializers.IntegerField(help_text="bytes of the file")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    http_status = serializers.IntegerField(
        allow_null=True,
        help_text="once finished: the status the upload would have answered directly "
        "(201 stored, 400 refused, 403 not allowed)",
    )
    result = serializers.SerializerMethodField(
        help_text="once finished: the body the upload would have answered directly (the "
        "stored submissions, or the refusal with every bad row); null before"
    )

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_result(self, job: UploadJob) -> dict | None:
        if job.status != UploadJob.Status.DONE or job.result is None:
            return job.result
        stored = _stored_by_ids(job.result["submissions"])
        return SubmissionUploadApi.OutputSerializer(
            {
                "submissions": stored,
                "n_scores": job.result["n_scores"],
                "left_out": job.result.get("left_out", []),
                "n_left_out": job.result.get("n_left_out", 0),
                "notes": job.result.get("notes", []),
                # jobs finished before the notes were recorded have none
                "incomplete_notes": incomplete_notes_out(job.result.get("incomplete_notes", {})),
            }
        ).data


def _upload_job_response(request: Request, slug: str, job: UploadJob, code: int) -> Response:
    response = Response(UploadJobOutputSerializer(job).data, status=code)
    response["Location"] = reverse(
        "api-upload-job-detail", kwargs={"slug": slug, "job_id": job.pk}, request=request
    )
    return response


class UploadJobDetailApi(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="A results file being processed in the background",
        description="Large files (over PODIUM_BACKGROUND_UPLOAD_BYTES) are answered 202 "
        "with this job: poll it until `status` is `done` or `failed`; `result` is then "
        "what a direct upload would have answered. Only the uploader sees it.",
        responses={200: UploadJobOutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, job_id: int) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        try:
            job = upload_job_get_visible(benchmark=benchmark, user=request.user, job_id=job_id)
        except UploadJob.DoesNotExist:
            raise NotFound(f"No upload {job_id}.") from None
        return _upload_job_response(request, slug, job, status.HTTP_200_OK)
