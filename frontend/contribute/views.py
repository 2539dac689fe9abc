"""Contributors' and maintainers' pages: submit results, create and run a benchmark.

Views parse the input, call one service (or selector) and render. The services'
ValidationFailed problems go next to the field, cell or file line they name; their
PermissionDenied becomes a 403 page that says why.
"""

from __future__ import annotations

import math
import uuid
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from estimation.selectors import benchmark_recompute_failures, snapshot_history
from frontend.contribute.access import (
    NotMaintainer,
    benchmark_or_404,
    forbidden,
    maintained_benchmark,
)
from frontend.contribute.form_errors import SummaryError, add_problems, form_summary
from frontend.contribute.forms import (
    BenchmarkCreateForm,
    BenchmarkSettingsForm,
    DatasetsAddForm,
    DecisionForm,
    MetricAddForm,
    MetricFormSet,
    MetricRangeForm,
    MetricRopeForm,
    SubmissionDetailsForm,
    UploadForm,
    upload_limit_bytes,
)
from frontend.contribute.grid import ScoreGrid
from frontend.contribute.selectors import (
    benchmark_list_maintained,
    moderation_evidence,
    moderation_queue,
    moderation_recent_decisions,
)
from frontend.contribute.uploads import (
    FileProblem,
    file_problems,
    pending_upload_get,
    pending_upload_mark_stored,
    pending_upload_save,
    upload_entries,
    upload_import,
    upload_parse,
    upload_preview,
    upload_trial_problems,
)
from leaderboard.csv_template import csv_template
from leaderboard.ingest.imported import imported_relocated
from leaderboard.ingest.results_csv import ResultsCsvError
from leaderboard.metric_rope import metric_rope_set
from leaderboard.models import Benchmark, Submission, UploadJob
from leaderboard.selectors import (
    algorithm_names_public,
    benchmark_folds_by_dataset,
    benchmark_metric_list,
    catalogue_names_unused,
    dataset_names_public,
    upload_job_get_visible,
)
from leaderboard.services import (
    PermissionDenied,
    SubmissionInput,
    ValidationFailed,
    benchmark_create,
    benchmark_datasets_add,
    benchmark_update,
    catalogue_entry_delete,
    catalogue_entry_rename,
    metric_add,
    metric_range_set,
    submission_accept,
    submission_create,
    submission_reject,
    submissions_create,
    submissions_decide,
    user_is_maintainer,
)
from leaderboard.throttling import submission_throttle_wait
from leaderboard.uploads import upload_in_background, upload_job_create

SNAPSHOTS_PER_PAGE = 50
# Cards with their evidence; a longer queue is worked through from the oldest.
MODERATION_QUEUE_SHOWN = 50
IDEMPOTENCY_PREFIX = "web-form-"


def _closed_to(benchmark: Benchmark, user) -> bool:
    return benchmark.submission_policy == Benchmark.SubmissionPolicy.CLOSED and not (
        user_is_maintainer(user=user, benchmark=benchmark)
    )


def _closed_page(request: HttpRequest, benchmark: Benchmark) -> HttpResponse:
    return forbidden(
        request, f"{benchmark.title} is closed to submissions: only its maintainers add results."
    )


def _policy_note(benchmark: Benchmark, user) -> str:
    if user_is_maintainer(user=user, benchmark=benchmark):
        return "You maintain this benchmark: your results are accepted at once."
    if benchmark.submission_policy == Benchmark.SubmissionPolicy.OPEN:
        return "This benchmark is open: results are accepted on arrival."
    return "A maintainer reviews each submission before it counts."


def _stored_message(request: HttpRequest, submissions: list[Submission]) -> None:
    names = ", ".join(s.algorithm.name for s in submissions)
    pending = sum(s.status == Submission.Status.PENDING for s in submissions)
    if pending:
        messages.success(request, f"Stored {names}; waiting for a maintainer's review.")
    else:
        messages.success(request, f"Stored and accepted {names}; the leaderboard will update.")


# --- submit by web form -------------------------------------------------------------------


def _throttled(request: HttpRequest, benchmark: Benchmark) -> HttpResponse | None:
    """Count a submission attempt against the limits the API shares; a 429 page when over."""
    wait = submission_throttle_wait(request, slug=benchmark.slug)
    if wait is None:
        return None
    context = {"benchmark": benchmark, "wait_minutes": max(1, math.ceil(wait / 60))}
    response = render(request, "frontend/accounts/too_many.html", context, status=429)
    response["Retry-After"] = str(math.ceil(wait))
    return response


def _fresh_key() -> str:
    return IDEMPOTENCY_PREFIX + uuid.uuid4().hex


def _usable_key(key: str) -> str:
    """The page's idempotency key if it is one this page made, else a new one."""
    suffix = key.removeprefix(IDEMPOTENCY_PREFIX)
    is_ours = key.startswith(IDEMPOTENCY_PREFIX) and len(suffix) == 32 and suffix.isalnum()
    return key if is_ours and suffix.isascii() else _fresh_key()


def _requested_folds(data) -> int | None:
    try:
        folds = int(data.get("folds", ""))
    except ValueError:
        return None
    return folds if 1 <= folds <= SubmissionDetailsForm.MAX_FOLDS else None


@login_required
@require_http_methods(["GET", "POST"])
def submit_form(request: HttpRequest, slug: str) -> HttpResponse:
    """One algorithm's scores typed into a datasets × folds grid.

    "Add a dataset row" and "Update fold columns" re-render the grid with everything
    typed so far (so the page works without JavaScript); "Submit" validates the whole
    page at once and, on any problem, re-renders it with every typed value.
    """
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    if _closed_to(benchmark, request.user):
        return _closed_page(request, benchmark)
    metrics = list(benchmark_metric_list(benchmark=benchmark))
    datasets = dataset_names_public(benchmark=benchmark)
    value_label = "rank" if benchmark.ranking_only else "score"
    details: dict[str, Any] = {
        "metrics": metrics,
        "allow_new_algorithms": benchmark.allow_new_algorithms,
    }
    page_errors: list[SummaryError] = []
    if request.method == "GET":
        form = SubmissionDetailsForm(initial={"idempotency_key": _fresh_key()}, **details)
        grid = ScoreGrid.initial(
            datasets=datasets,
            folds=1,
            allow_new=benchmark.allow_new_datasets,
            value_label=value_label,
            metrics=[m.name for m in metrics],
        )
    else:
        grid = ScoreGrid.from_post(
            request.POST,
            known=set(datasets),
            value_label=value_label,
            metrics=[m.name for m in metrics],
        )
        action = request.POST.get("action", "submit")
        folds = _requested_folds(request.POST)
        if folds is not None and folds != grid.folds:
            if grid.fits(folds=folds):
                grid.resize(folds)
                if action == "submit":
                    page_errors.append(
                        SummaryError(
                            f"The grid now has {folds} fold columns: fill them in and "
                            "submit again.",
                            "#score-grid",
                        )
                    )
            else:
                page_errors.append(
                    SummaryError(
                        f"{len(grid.rows)} datasets × {folds} folds is more than this form "
                        "takes: upload a CSV file instead.",
                        "#id_folds",
                    )
                )
        if action == "add_row" and benchmark.allow_new_datasets:
            if grid.fits(extra_rows=1):
                grid.add_row()
            else:
                page_errors.append(
                    SummaryError("The grid is full: upload a CSV file instead.", "#score-grid")
                )
        if action == "submit" and not page_errors:
            if (throttled := _throttled(request, benchmark)) is not None:
                return throttled
            form = SubmissionDetailsForm(request.POST, **details)
            response = _submit_grid(request, benchmark, form, grid)
            if response is not None:
                return response
            page_errors = [*form_summary(form), *grid.summary()]
        else:
            # Not submitted yet: show what was typed, without judging it.
            initial = {**request.POST.dict(), "folds": grid.folds}
            form = SubmissionDetailsForm(initial=initial, **details)
    context = {
        "benchmark": benchmark,
        "form": form,
        "grid": grid,
        "errors": page_errors,
        "known_algorithms": algorithm_names_public(benchmark=benchmark),
        "policy_note": _policy_note(benchmark, request.user),
        "too_large": not grid.fits(),
    }
    return render(request, "frontend/contribute/submit_form.html", context)


def _submit_grid(
    request: HttpRequest, benchmark: Benchmark, form: SubmissionDetailsForm, grid: ScoreGrid
) -> HttpResponse | None:
    """Store the page's submission; or put every problem on the page and return None."""
    form_ok = form.is_valid()
    scores, cell_of_line = grid.scores()
    if not form_ok or grid.has_errors:
        return None
    data = form.cleaned_data
    key = _usable_key(data["idempotency_key"])
    try:
        submission = submission_create(
            benchmark=benchmark,
            submitter=request.user,
            entry=SubmissionInput(
                algorithm=data["algorithm"].strip(),
                scores=scores,
                algorithm_url=data["algorithm_url"],
                algorithm_version=data["algorithm_version"],
                algorithm_metadata=form.algorithm_metadata(),
                note=data["note"],
            ),
            source=Submission.Source.FORM,
            idempotency_key=key,
            # The grid's only new datasets are rows the researcher added and named.
            new_datasets_confirmed=True,
        )
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    except ValidationFailed as exc:
        rest = grid.add_problems(exc.problems, cell_of_line)
        if any(problem.field == "idempotency_key" for problem in rest):
            rest = [problem for problem in rest if problem.field != "idempotency_key"]
            data = cast(QueryDict, form.data).copy()  # the form is bound to request.POST
            data["idempotency_key"] = _fresh_key()
            form.data = data
            grid.errors.append(
                "This page was already submitted once with other values; submit again to "
                "store these values as a new submission."
            )
        add_problems(form, rest)
        return None
    _stored_message(request, [submission])
    return redirect("account-submissions")


# --- submit a CSV file: upload, preview, confirm -----------------------------------------


def submit_csv_template(request: HttpRequest, slug: str) -> HttpResponse:
    """A results file to fill in: the benchmark's public datasets, metrics and folds."""
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    content = csv_template(
        datasets=sorted(dataset_names_public(benchmark=benchmark)),
        metrics=[m.name for m in benchmark_metric_list(benchmark=benchmark)],
        folds=benchmark_folds_by_dataset(benchmark=benchmark),
    )
    response = HttpResponse(content, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{benchmark.slug}-template.csv"'
    return response


def _upload_page(request, benchmark, form, *, file_errors=(), n_more=0) -> HttpResponse:
    line_errors = [
        SummaryError(_located(problem.line, problem.column, problem.message), f"#file-error-{i}")
        for i, problem in enumerate(file_errors)
    ]
    context = {
        "benchmark": benchmark,
        "form": form,
        "errors": [*form_summary(form), *line_errors],
        "file_errors": file_errors,
        "n_more": n_more,
        "policy_note": _policy_note(benchmark, request.user),
    }
    return render(request, "frontend/contribute/upload.html", context)


def _located(line: int | None, column: str | None, message: str) -> str:
    where = ", ".join(
        part
        for part in (f"line {line}" if line else "", f"column {column}" if column else "")
        if part
    )
    return f"{where}: {message}" if where else message


def _preview_page(request, benchmark, upload, parsed, problems) -> HttpResponse:
    context = {
        "benchmark": benchmark,
        "upload": upload,
        "preview": upload_preview(benchmark=benchmark, parsed=parsed),
        "problems": file_problems(upload.content, problems),
        "policy_note": _policy_note(benchmark, request.user),
        "background": upload_in_background(len(upload.content)),
        "errors": [
            SummaryError(_located(p.line, p.field, p.message), f"#problem-{i}")
            for i, p in enumerate(problems)
        ],
    }
    return render(request, "frontend/contribute/upload_preview.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def submit_upload(request: HttpRequest, slug: str) -> HttpResponse:
    """Step 1: upload and parse; the file's problems by line, or a preview to confirm."""
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    if _closed_to(benchmark, request.user):
        return _closed_page(request, benchmark)
    if request.method == "POST" and (throttled := _throttled(request, benchmark)) is not None:
        return throttled
    form = UploadForm(request.POST or None, request.FILES or None, max_bytes=upload_limit_bytes())
    if request.method == "GET" or not form.is_valid():
        return _upload_page(request, benchmark, form)
    content = form.cleaned_data["file"].read()
    fmt = form.cleaned_data["format"]
    try:
        imported = upload_import(
            content, fmt=fmt, benchmark=benchmark, filename=form.cleaned_data["file"].name
        )
        parsed = (
            imported.parsed if imported else upload_parse(content, fmt=fmt, benchmark=benchmark)
        )
    except ResultsCsvError as exc:
        plural = "" if exc.total == 1 else "s"
        form.add_error(
            "file", f"The file has {exc.total} problem{plural} (listed below); nothing was stored."
        )
        return _upload_page(
            request,
            benchmark,
            form,
            file_errors=file_problems(content, exc.errors),
            n_more=exc.n_more,
        )
    try:
        entries = upload_entries(
            benchmark=benchmark, parsed=parsed, note=form.cleaned_data["note"], imported=imported
        )
        # A large file is checked in full by the background job that stores it: a trial
        # store here would cost the request as much as the store itself.
        problems = (
            ()
            if upload_in_background(len(content))
            else upload_trial_problems(benchmark=benchmark, user=request.user, entries=entries)
        )
    except ValidationFailed as exc:
        problems = exc.problems
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    if imported is not None:  # at the file and key each came from
        problems = imported_relocated(ValidationFailed(problems), imported).problems
    upload = pending_upload_save(
        request.session,
        benchmark=benchmark,
        filename=form.cleaned_data["file"].name,
        fmt=fmt if imported is not None else parsed.format,
        note=form.cleaned_data["note"],
        content=content,
    )
    return _preview_page(request, benchmark, upload, parsed, problems)


@login_required
@require_POST
def submit_upload_confirm(request: HttpRequest, slug: str) -> HttpResponse:
    """Step 2: store the previewed file (once, however often this is posted)."""
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    upload = pending_upload_get(
        request.session, token=request.POST.get("token", ""), benchmark=benchmark
    )
    if upload is None:
        messages.error(request, "That upload has expired or was replaced: upload the file again.")
        return redirect("contribute-upload", slug=benchmark.slug)
    if upload.job_id is not None:
        return redirect("contribute-upload-job", slug=benchmark.slug, job_id=upload.job_id)
    if upload.stored_ids:
        messages.info(request, "This file was already stored; here are your submissions.")
        return redirect("account-submissions")
    if (throttled := _throttled(request, benchmark)) is not None:
        return throttled
    if upload_in_background(len(upload.content)):
        if _closed_to(benchmark, request.user):
            return _closed_page(request, benchmark)
        try:
            job = upload_job_create(
                benchmark=benchmark,
                submitter=request.user,
                content=upload.content,
                format=upload.format,
                note=upload.note,
                idempotency_key=upload.idempotency_key,
                new_datasets_confirmed=request.POST.get("confirm_new_datasets") == "1",
            )
        except PermissionDenied as exc:  # the account's quota of pending uploads
            return forbidden(request, str(exc))
        pending_upload_mark_stored(request.session, upload=upload, ids=[], job_id=job.pk)
        return redirect("contribute-upload-job", slug=benchmark.slug, job_id=job.pk)
    imported = None
    try:
        imported = upload_import(upload.content, fmt=upload.format, benchmark=benchmark)
        parsed = (
            imported.parsed
            if imported
            else upload_parse(upload.content, fmt=upload.format, benchmark=benchmark)
        )
        submissions = submissions_create(
            benchmark=benchmark,
            submitter=request.user,
            entries=upload_entries(
                benchmark=benchmark, parsed=parsed, note=upload.note, imported=imported
            ),
            source=Submission.Source.CSV,
            idempotency_key=upload.idempotency_key,
            new_datasets_confirmed=request.POST.get("confirm_new_datasets") == "1",
        )
    except ResultsCsvError:  # the same bytes parsed at the preview: not expected
        messages.error(request, "The file could not be read again: upload it again.")
        return redirect("contribute-upload", slug=benchmark.slug)
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    except ValidationFailed as exc:
        if imported is not None:
            exc = imported_relocated(exc, imported)
        return _preview_page(request, benchmark, upload, parsed, exc.problems)
    pending_upload_mark_stored(request.session, upload=upload, ids=[s.pk for s in submissions])
    _stored_message(request, submissions)
    return redirect("account-submissions")


@login_required
@require_http_methods(["GET"])
def submit_upload_job(request: HttpRequest, slug: str, job_id: int) -> HttpResponse:
    """A large file being stored in the background: its progress, then its outcome.

    The page reloads itself every few seconds while the job waits or runs (a meta
    refresh: no script needed), and stops once it is done or failed.
    """
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    try:
        job = upload_job_get_visible(benchmark=benchmark, user=request.user, job_id=job_id)
    except UploadJob.DoesNotExist:
        raise Http404("no such upload") from None
    result = job.result or {}
    finished = job.status in (UploadJob.Status.DONE, UploadJob.Status.FAILED)
    context = {
        "benchmark": benchmark,
        "job": job,
        "finished": finished,
        "n_submissions": len(result.get("submissions", ())),
        "n_scores": result.get("n_scores"),
        "detail": result.get("detail", ""),
        "problems": [
            FileProblem(p.get("line"), p.get("field"), p.get("message", ""), "")
            for p in result.get("problems", ())
        ],
        "problems_total": result.get("problems_total", 0),
        "percent": round(100 * job.progress),
    }
    return render(request, "frontend/contribute/upload_job.html", context)


# --- maintainers ------------------------------------------------------------------------------


@login_required
def maintained(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/contribute/maintained.html",
        {
            "section": "maintained",
            "benchmarks": [
                (benchmark, benchmark_recompute_failures(benchmark=benchmark))
                for benchmark in benchmark_list_maintained(user=request.user)
            ],
        },
    )


METRICS_PREFIX = "metrics"


def _metric_rows_posted(data) -> list[dict]:
    """The metric rows as typed, whatever their state (for re-rendering them)."""
    try:
        total = int(data.get(f"{METRICS_PREFIX}-TOTAL_FORMS", 0))
    except ValueError:
        total = 0
    return [
        {
            "name": data.get(f"{METRICS_PREFIX}-{i}-name", ""),
            "direction": data.get(f"{METRICS_PREFIX}-{i}-direction", "higher"),
        }
        for i in range(min(max(total, 0), MetricFormSet.max_num))
    ]


def _formset_summary(formset, metric_errors: list[str]) -> list[SummaryError]:
    items = [SummaryError(f"Metrics: {message}", "#metrics") for message in metric_errors]
    items += [SummaryError(f"Metrics: {m}", "#metrics") for m in formset.non_form_errors()]
    for index, form in enumerate(formset.forms):
        for name, field_messages in form.errors.items():
            items += [
                SummaryError(
                    f"Metric {index + 1}, {form[name].label.lower()}: {message}",
                    f"#{form[name].id_for_label}",
                )
                for message in field_messages
            ]
    return items


@login_required
@require_http_methods(["GET", "POST"])
def benchmark_new(request: HttpRequest) -> HttpResponse:
    """Any logged-in researcher may create a benchmark, and becomes its maintainer.

    "Add a metric" re-renders the page with one more metric row (no JavaScript needed).
    """
    metric_errors: list[str] = []
    errors: list[SummaryError] = []
    if request.method == "GET":
        form = BenchmarkCreateForm()
        formset = MetricFormSet(prefix=METRICS_PREFIX, initial=[{"direction": "higher"}])
    elif request.POST.get("action") == "add_metric":
        form = BenchmarkCreateForm(initial=request.POST.dict())
        rows = _metric_rows_posted(request.POST)
        if len(rows) < MetricFormSet.max_num:
            rows.append({"direction": "higher"})
        formset = MetricFormSet(prefix=METRICS_PREFIX, initial=rows)
    else:
        form = BenchmarkCreateForm(request.POST)
        formset = MetricFormSet(request.POST, prefix=METRICS_PREFIX)
        form_ok, formset_ok = form.is_valid(), formset.is_valid()
        if form_ok and formset_ok:
            data = dict(form.cleaned_data)
            metrics = [
                (
                    f.cleaned_data["name"].strip(),
                    f.cleaned_data["direction"],
                    {
                        "min_value": f.cleaned_data.get("min_value"),
                        "max_value": f.cleaned_data.get("max_value"),
                        "unit": f.cleaned_data.get("unit", ""),
                        "rope": f.cleaned_data.get("rope"),
                    },
                )
                for f in formset.forms
                if f.cleaned_data.get("name")
            ]
            try:
                benchmark = benchmark_create(
                    slug=data.pop("slug"),
                    title=data.pop("title"),
                    metrics=metrics,
                    creator=request.user,
                    **data,
                )
            except ValidationFailed as exc:
                metric_fields = ("metrics", "min_value", "max_value", "unit")
                metric_errors = [p.message for p in exc.problems if p.field in metric_fields]
                add_problems(form, [p for p in exc.problems if p.field not in metric_fields])
            else:
                messages.success(request, f"Created {benchmark.title}; you maintain it.")
                return redirect("contribute-benchmark-edit", slug=benchmark.slug)
        errors = [*form_summary(form), *_formset_summary(formset, metric_errors)]
    context = {
        "form": form,
        "formset": formset,
        "metric_errors": metric_errors,
        "errors": errors,
        "creating": True,
    }
    return render(request, "frontend/contribute/benchmark_form.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def benchmark_edit(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        benchmark = maintained_benchmark(slug=slug, user=request.user)
    except NotMaintainer as exc:
        return forbidden(request, str(exc))
    # The form validates a copy, so that the service sees what changed.
    form = BenchmarkSettingsForm(
        request.POST or None, instance=Benchmark.objects.get(pk=benchmark.pk)
    )
    if request.method == "POST" and form.is_valid():
        try:
            benchmark_update(benchmark=benchmark, user=request.user, **form.cleaned_data)
        except PermissionDenied as exc:
            return forbidden(request, str(exc))
        except ValidationFailed as exc:
            add_problems(form, exc.problems)
        else:
            messages.success(request, "Saved. Changed analysis settings trigger a recompute.")
            return redirect("contribute-benchmark-edit", slug=benchmark.slug)
    context = {
        "benchmark": benchmark,
        "form": form,
        "errors": form_summary(form),
        "metrics": benchmark_metric_list(benchmark=benchmark),
        "creating": False,
    }
    return render(request, "frontend/contribute/benchmark_form.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def benchmark_catalogue(request: HttpRequest, slug: str) -> HttpResponse:
    """The benchmark's datasets and metrics; maintainers add to them here."""
    try:
        benchmark = maintained_benchmark(slug=slug, user=request.user)
    except NotMaintainer as exc:
        return forbidden(request, str(exc))
    action = request.POST.get("action")
    datasets_form = DatasetsAddForm(request.POST if action == "datasets" else None)
    metric_form = MetricAddForm(request.POST if action == "metric" else None)
    metrics = list(benchmark_metric_list(benchmark=benchmark))
    range_form = MetricRangeForm(
        request.POST if action == "metric_range" else None, metrics=metrics
    )
    rope_form = MetricRopeForm(request.POST if action == "rope" else None)
    try:
        if action == "metric_range" and range_form.is_valid():
            data = range_form.cleaned_data
            metric = next(m for m in metrics if m.name == data["metric"])
            metric_range_set(
                benchmark=benchmark,
                user=request.user,
                metric=metric,
                min_value=data["min_value"],
                max_value=data["max_value"],
                unit=data["unit"],
            )
            messages.success(request, f"Set the valid range of {metric.name}.")
            return redirect("contribute-benchmark-catalogue", slug=benchmark.slug)
        if action == "rope" and rope_form.is_valid():
            chosen = benchmark.metrics.filter(name=rope_form.cleaned_data["metric"]).first()
            if chosen is None:
                rope_form.add_error("metric", "no metric of that name in this benchmark")
            else:
                metric_rope_set(
                    metric=chosen, user=request.user, rope=rope_form.cleaned_data["rope"]
                )
                messages.success(
                    request, f"Saved the region of practical equivalence of {chosen.name}."
                )
                return redirect("contribute-benchmark-catalogue", slug=benchmark.slug)
        if action == "datasets" and datasets_form.is_valid():
            added = benchmark_datasets_add(
                benchmark=benchmark,
                user=request.user,
                names=datasets_form.cleaned_data["names"].splitlines(),
            )
            messages.success(request, f"Added {len(added)} datasets.")
            return redirect("contribute-benchmark-catalogue", slug=benchmark.slug)
        if action == "metric" and metric_form.is_valid():
            metric = metric_add(benchmark=benchmark, user=request.user, **metric_form.cleaned_data)
            messages.success(request, f"Added the metric {metric.name}.")
            return redirect("contribute-benchmark-catalogue", slug=benchmark.slug)
        if action in ("rename", "delete"):
            return _catalogue_name_change(request, benchmark, action)
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    except ValidationFailed as exc:
        form = {"datasets": datasets_form, "rope": rope_form, "metric_range": range_form}.get(
            action or "", metric_form
        )
        add_problems(form, exc.problems)
    context = {
        "benchmark": benchmark,
        "datasets": benchmark.datasets.order_by("name"),
        "metrics": metrics,
        "datasets_form": datasets_form,
        "metric_form": metric_form,
        "rope_form": rope_form,
        "range_form": range_form,
        "unused": catalogue_names_unused(benchmark=benchmark),
        "errors": [
            *form_summary(datasets_form),
            *form_summary(metric_form),
            *form_summary(rope_form),
            *form_summary(range_form),
        ],
    }
    return render(request, "frontend/contribute/catalogue.html", context)


def _catalogue_name_change(request: HttpRequest, benchmark: Benchmark, action: str) -> HttpResponse:
    """Rename or delete a dataset or algorithm no accepted result uses (the services decide)."""
    kind = request.POST.get("kind", "")
    name = request.POST.get("name", "")
    if kind not in ("dataset", "algorithm"):
        messages.error(request, "Choose a dataset or an algorithm.")
        return redirect("contribute-benchmark-catalogue", slug=benchmark.slug)
    try:
        if action == "rename":
            entry = catalogue_entry_rename(
                benchmark=benchmark,
                user=request.user,
                kind=kind,
                name=name,
                new_name=request.POST.get("new_name", ""),
            )
            messages.success(request, f"The {kind} {name} is now {entry.name}.")
        else:
            catalogue_entry_delete(benchmark=benchmark, user=request.user, kind=kind, name=name)
            messages.success(request, f"The {kind} {name} is deleted.")
    except ValidationFailed as exc:
        messages.error(request, "; ".join(problem.message for problem in exc.problems))
    return redirect("contribute-benchmark-catalogue", slug=benchmark.slug)


@login_required
def moderation(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        benchmark = maintained_benchmark(slug=slug, user=request.user)
    except NotMaintainer as exc:
        return forbidden(request, str(exc))
    queue = list(moderation_queue(benchmark=benchmark)[:MODERATION_QUEUE_SHOWN])
    evidence = moderation_evidence(benchmark=benchmark, submissions=queue)
    context = {
        "benchmark": benchmark,
        "queue": [(submission, evidence.get(submission.pk, [])) for submission in queue],
        "n_pending": moderation_queue(benchmark=benchmark).count(),
        "recent": moderation_recent_decisions(benchmark=benchmark),
        "n_datasets": benchmark.datasets.count(),
    }
    return render(request, "frontend/contribute/moderation.html", context)


@login_required
@require_POST
def moderation_bulk(request: HttpRequest, slug: str) -> HttpResponse:
    """Accept or reject the ticked submissions, with one note for all of them."""
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    form = DecisionForm(request.POST)
    # "All shown": the submissions the page listed, not any that arrived since.
    chosen = "shown" if request.POST.get("all_shown") == "1" else "submission"
    ids = [int(pk) for pk in request.POST.getlist(chosen) if pk.isdigit()]
    if not form.is_valid():
        messages.error(request, "Choose accept or reject.")
        return redirect("contribute-moderation", slug=benchmark.slug)
    accept = form.cleaned_data["decision"] == "accept"
    try:
        decided = submissions_decide(
            benchmark=benchmark,
            user=request.user,
            ids=ids,
            accept=accept,
            note=form.cleaned_data["note"],
        )
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    except ValidationFailed as exc:
        messages.error(request, "; ".join(problem.message for problem in exc.problems))
    else:
        names = ", ".join(s.algorithm.name for s in decided)
        messages.success(
            request, f"{'Accepted' if accept else 'Rejected'} {len(decided)}: {names}."
        )
    return redirect("contribute-moderation", slug=benchmark.slug)


@login_required
@require_POST
def moderation_decide(request: HttpRequest, slug: str, submission_id: int) -> HttpResponse:
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    try:
        submission = benchmark.submissions.select_related("algorithm").get(pk=submission_id)
    except Submission.DoesNotExist:
        raise Http404("No such submission") from None
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose accept or reject.")
        return redirect("contribute-moderation", slug=benchmark.slug)
    decide = submission_accept if form.cleaned_data["decision"] == "accept" else submission_reject
    try:
        decide(submission=submission, user=request.user, note=form.cleaned_data["note"])
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    except ValidationFailed as exc:
        messages.error(request, "; ".join(problem.message for problem in exc.problems))
    else:
        done = "accepted" if decide is submission_accept else "rejected"
        messages.success(request, f"{submission.algorithm.name} is {done}.")
    return redirect(reverse("contribute-moderation", kwargs={"slug": benchmark.slug}))


@login_required
def snapshots(request: HttpRequest, slug: str) -> HttpResponse:
    """Every computed version of a metric's results: status, errors, timings."""
    try:
        benchmark = maintained_benchmark(slug=slug, user=request.user)
    except NotMaintainer as exc:
        return forbidden(request, str(exc))
    metrics = list(benchmark_metric_list(benchmark=benchmark))
    metric = next((m for m in metrics if m.name == request.GET.get("metric")), None)
    metric = metric or (metrics[0] if metrics else None)
    page = None
    if metric is not None:
        page = Paginator(
            snapshot_history(benchmark=benchmark, metric=metric), SNAPSHOTS_PER_PAGE
        ).get_page(request.GET.get("page"))
    context = {
        "benchmark": benchmark,
        "metrics": metrics,
        "metric": metric,
        "page": page,
        "failures": benchmark_recompute_failures(benchmark=benchmark),
    }
    return render(request, "frontend/contribute/snapshots.html", context)
