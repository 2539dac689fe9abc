"""Contributors' pages: submit results by form or file (the maintainer's pages are in
maintaining.py, moderation in moderating.py).

Views parse the input, call one service (or selector) and render. The services'
ValidationFailed problems go next to the field, cell or file line they name; their
PermissionDenied becomes a 403 page that says why.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from estimation.core.wording import counted
from frontend.contribute.access import (
    benchmark_or_404,
    forbidden,
)
from frontend.contribute.form_errors import SummaryError, add_problems, form_summary
from frontend.contribute.forms import (
    ColumnMappingForm,
    SubmissionDetailsForm,
    UploadForm,
    upload_limit_bytes,
)
from frontend.contribute.grid import ScoreGrid
from frontend.contribute.uploads import (
    FileProblem,
    file_problems,
    max_errors,
    pending_upload_get,
    pending_upload_mark_stored,
    pending_upload_save,
    too_large_to_preview,
    upload_incomplete_notes,
    upload_preview,
)
from leaderboard.csv_template import csv_template
from leaderboard.ingest.imported import IMPORT_FORMATS
from leaderboard.ingest.results_csv import UNRECOGNISED_COLUMNS, ResultsCsvError
from leaderboard.ingest.results_csv.sheets import header_names
from leaderboard.models import Benchmark, Submission, UploadJob
from leaderboard.selectors import (
    algorithm_names_public,
    benchmark_folds_by_dataset,
    benchmark_metric_list,
    dataset_names_public,
    upload_job_get_visible,
)
from leaderboard.services import (
    PermissionDenied,
    SubmissionInput,
    ValidationFailed,
    submission_create,
    submission_incomplete_notes,
    submissions_check,
    user_is_maintainer,
)
from leaderboard.services.uploads import (
    UploadInput,
    UploadRead,
    UploadRefused,
    left_out_where,
    submissions_upload,
)
from leaderboard.throttling import submission_throttle_wait
from leaderboard.uploads import upload_in_background

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


def _stored_message(
    request: HttpRequest, submissions: list[Submission], notes: Mapping[str, str] | None = None
) -> None:
    """What happened to what was just stored, shown on the board it went to: accepted,
    waiting for a maintainer, and each algorithm whose empty cells leave it out (or
    datasets out) under the board's policy (``notes``, from submission_incomplete_notes)."""
    accepted = [s.algorithm.name for s in submissions if s.status == Submission.Status.ACCEPTED]
    pending = [s.algorithm.name for s in submissions if s.status == Submission.Status.PENDING]
    if accepted:
        messages.success(
            request,
            f"Stored and accepted {', '.join(accepted)}; the leaderboard below updates "
            "once the results are recomputed.",
        )
    if pending:
        messages.success(
            request,
            f"Stored {', '.join(pending)}; waiting for a maintainer's review: readers see "
            "it once it is accepted.",
        )
    for algorithm, note in sorted((notes or {}).items()):
        messages.warning(request, f"{algorithm}: {note}")


def _to_board(benchmark: Benchmark) -> HttpResponse:
    return redirect("benchmark-leaderboard", slug=benchmark.slug)


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
    incomplete_note: str | None = None
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
            if isinstance(response, str):
                incomplete_note = response
            elif response is not None:
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
        "incomplete_note": incomplete_note,
        "too_large": not grid.fits(),
    }
    return render(request, "frontend/contribute/submit_form.html", context)


def _problems_besides(benchmark, form, grid: ScoreGrid, scores, cell_of_line) -> None:
    """The benchmark's rules on the cells the page could read, when the page found
    problems of its own: every problem of one submit at once. A problem of a field the
    form already refused is not told twice."""
    if not scores:
        return
    algorithm = (form.cleaned_data.get("algorithm") or "").strip()
    problems = submissions_check(
        benchmark=benchmark,
        entries=[SubmissionInput(algorithm=algorithm or "-", scores=scores)],
        new_datasets_confirmed=True,
    )
    rest = grid.add_problems([p for p in problems if p.line is not None], cell_of_line)
    rest += [p for p in problems if p.line is None]
    # Without a name, the placeholder's problems are no one's.
    wanted = [
        p for p in rest if p.field not in form.errors and (algorithm or p.field != "algorithm")
    ]
    add_problems(form, wanted)


def _submit_grid(
    request: HttpRequest, benchmark: Benchmark, form: SubmissionDetailsForm, grid: ScoreGrid
) -> HttpResponse | str | None:
    """Store the page's submission; or put every problem on the page and return None; or,
    when empty cells would leave the algorithm out of the board (or the board short of
    datasets) and the researcher has not yet said to go on, what they will do (nothing
    is stored)."""
    form_ok = form.is_valid()
    scores, cell_of_line = grid.scores()
    if not form_ok or grid.has_errors:
        _problems_besides(benchmark, form, grid, scores, cell_of_line)
        return None
    data = form.cleaned_data
    algorithm = data["algorithm"].strip()
    # Said as it would be before storing, and again on the board once stored.
    stored_notes = submission_incomplete_notes(
        benchmark=benchmark, covered={algorithm: [(s.dataset, s.metric) for s in scores]}
    )
    if request.POST.get("incomplete_confirmed") != "1" and algorithm in stored_notes:
        return stored_notes[algorithm]
    key = _usable_key(data["idempotency_key"])
    try:
        submission = submission_create(
            benchmark=benchmark,
            submitter=request.user,
            entry=SubmissionInput(
                algorithm=algorithm,
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
    _stored_message(request, [submission], stored_notes)
    return _to_board(benchmark)


# --- submit a CSV file: upload, preview, confirm -----------------------------------------


def submit_csv_template(request: HttpRequest, slug: str) -> HttpResponse:
    """A results file to fill in: the benchmark's public datasets, metrics and folds."""
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    content = csv_template(
        datasets=sorted(dataset_names_public(benchmark=benchmark)),
        metrics=[m.name for m in benchmark_metric_list(benchmark=benchmark)],
        folds=benchmark_folds_by_dataset(benchmark=benchmark),
        ranking_only=benchmark.ranking_only,
    )
    response = HttpResponse(content, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{benchmark.slug}-template.csv"'
    return response


def _upload_page(
    request, benchmark, form, *, file_errors=(), n_more=0, mapping=None
) -> HttpResponse:
    line_errors = [
        SummaryError(_located(problem.line, problem.column, problem.message), f"#file-error-{i}")
        for i, problem in enumerate(file_errors)
    ]
    summary = [*form_summary(form), *(form_summary(mapping) if mapping is not None else ())]
    # With problems in the file, the file field's "The file has N problems (listed
    # below)" is their headline, not one more: the heading counts the file's problems.
    pointer = 1 if file_errors else 0
    context = {
        "benchmark": benchmark,
        "form": form,
        "errors": [*summary, *line_errors],
        "error_count": len(summary) - pointer + len(line_errors) + n_more,
        "file_errors": file_errors,
        "n_more": n_more,
        "policy_note": _policy_note(benchmark, request.user),
        "mapping": mapping,
    }
    return render(request, "frontend/contribute/upload.html", context)


def _located(line: int | None, column: str | None, message: str) -> str:
    """As the CLI prints a problem (``RowError``): ``line 3, column "score": ...``."""
    where = ", ".join(
        part
        for part in (f"line {line}" if line else "", f'column "{column}"' if column else "")
        if part
    )
    return f"{where}: {message}" if where else message


def _preview_page(request, benchmark, upload, read: UploadRead, problems) -> HttpResponse:
    parsed = read.parsed
    context = {
        "left_out": [{"column": left_out_where(p), "message": p.message} for p in read.left_out],
        "n_left_out": read.n_left_out,
        "benchmark": benchmark,
        "upload": upload,
        "preview": upload_preview(benchmark=benchmark, parsed=parsed),
        "incomplete_notes": sorted(
            upload_incomplete_notes(benchmark=benchmark, parsed=parsed).items()
        ),
        "problems": file_problems(upload.content, problems),
        "notes": read.notes,
        "policy_note": _policy_note(benchmark, request.user),
        "background": upload_in_background(upload.content, format=upload.format),
        "errors": [
            SummaryError(_located(p.line, p.field, p.message), f"#problem-{i}")
            for i, p in enumerate(problems)
        ],
    }
    return render(request, "frontend/contribute/upload_preview.html", context)


def _mapping_header(
    content: bytes, filename: str, fmt: str | None, exc: ResultsCsvError
) -> tuple[str, ...]:
    """The header names a mapping may choose from, when the reader refused a CSV for not
    knowing its columns (empty: no mapping is offered)."""
    if fmt in IMPORT_FORMATS or not any(e.kind == UNRECOGNISED_COLUMNS for e in exc.errors):
        return ()
    header = header_names(content, filename=filename)
    return header if len(header) >= 3 else ()  # dataset, algorithm, score: three columns


def _refused_file_page(
    request, benchmark, form, content: bytes, exc: ResultsCsvError, mapping=None
) -> HttpResponse:
    plural = "" if exc.total == 1 else "s"
    if form.is_bound:
        form.add_error(
            "file", f"The file has {exc.total} problem{plural} (listed below); nothing was stored."
        )
    else:  # read again with a mapping: the headline is the mapping's
        assert mapping is not None
        mapping.add_error(
            None,
            f"With these columns the file has {exc.total} problem{plural} (listed above); "
            "nothing was stored.",
        )
    return _upload_page(
        request,
        benchmark,
        form,
        file_errors=file_problems(content, exc.errors),
        n_more=exc.n_more,
        mapping=mapping,
    )


def _upload_trial(request, benchmark, upload: UploadInput):
    return submissions_upload(
        benchmark=benchmark,
        submitter=request.user,
        upload=upload,
        trial=True,
        max_errors=max_errors(),
    )


def _trial_preview(
    request,
    benchmark,
    upload: UploadInput,
    *,
    refused: Callable[[ResultsCsvError], HttpResponse],
) -> HttpResponse:
    """The file tried against the services' rules (nothing stored), kept in the session
    with the submitter's choices as the format it was read in, and its preview page;
    ``refused`` answers a file the reader refuses."""
    try:
        trial = _upload_trial(request, benchmark, upload)
    except ResultsCsvError as exc:
        return refused(exc)
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    assert trial.read is not None  # a trial reads the file
    pending = pending_upload_save(
        request.session,
        benchmark=benchmark,
        filename=upload.filename,
        fmt=trial.read.format,
        note=upload.note,
        content=upload.content,
        incomplete=upload.incomplete,
        on_error=upload.on_error,
        columns=upload.columns,
        nan_missing=upload.nan_missing,
        models_as_rows=upload.models_as_rows,
    )
    return _preview_page(request, benchmark, pending, trial.read, trial.problems)


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
    data = form.cleaned_data
    content = data["file"].read()
    fmt = data["format"]
    if fmt in IMPORT_FORMATS and upload_in_background(content, format=fmt):
        # The preview reads the files while the page waits: no more than a request may.
        form.add_error("file", too_large_to_preview(content))
        return _upload_page(request, benchmark, form)
    choices = {"note": data["note"], "incomplete": data["incomplete"], "on_error": data["on_error"]}

    def refused(exc: ResultsCsvError) -> HttpResponse:
        mapping = None
        if header := _mapping_header(content, data["file"].name, fmt, exc):
            # Kept for the mapping step: a plain form cannot send the file again.
            pending = pending_upload_save(
                request.session,
                benchmark=benchmark,
                filename=data["file"].name,
                fmt=fmt,
                content=content,
                **choices,
            )
            mapping = ColumnMappingForm(
                initial={"token": pending.token},
                header=header,
                ranking_only=benchmark.ranking_only,
            )
        return _refused_file_page(request, benchmark, form, content, exc, mapping)

    upload = UploadInput(
        content=content,
        filename=data["file"].name,
        format=fmt or None,
        **choices,
        # The preview lists new datasets and asks for the confirmation itself.
        new_datasets_confirmed=True,
    )
    return _trial_preview(request, benchmark, upload, refused=refused)


@login_required
@require_POST
def submit_upload_map(request: HttpRequest, slug: str) -> HttpResponse:
    """Step 1b: the refused file read again with its columns mapped to the roles."""
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    if _closed_to(benchmark, request.user):
        return _closed_page(request, benchmark)
    if (throttled := _throttled(request, benchmark)) is not None:
        return throttled
    pending = pending_upload_get(
        request.session, token=request.POST.get("token", ""), benchmark=benchmark
    )
    if pending is None or pending.stored_ids or pending.job_id is not None:
        messages.error(request, "That upload has expired or was replaced: upload the file again.")
        return redirect("contribute-upload", slug=benchmark.slug)
    form = UploadForm(max_bytes=upload_limit_bytes())
    mapping = ColumnMappingForm(
        request.POST,
        header=header_names(pending.content, filename=pending.filename),
        ranking_only=benchmark.ranking_only,
    )
    if not mapping.is_valid():
        return _upload_page(request, benchmark, form, mapping=mapping)
    mapped = replace(
        pending,
        columns=mapping.cleaned_data["columns"],
        nan_missing=mapping.cleaned_data["nan_missing"],
        models_as_rows=mapping.cleaned_data.get("models_as_rows", False),
    )
    return _trial_preview(
        request,
        benchmark,
        mapped.as_input(new_datasets_confirmed=True),
        refused=lambda exc: _refused_file_page(
            request, benchmark, form, pending.content, exc, mapping
        ),
    )


def _left_out_confirmed(request: HttpRequest) -> bool:
    return request.POST.get("confirm_left_out") == "1"


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
        messages.info(request, "This file was already stored; nothing was stored again.")
        return _to_board(benchmark)
    if (throttled := _throttled(request, benchmark)) is not None:
        return throttled
    if _closed_to(benchmark, request.user):
        return _closed_page(request, benchmark)
    read = None
    try:
        outcome = submissions_upload(
            benchmark=benchmark,
            submitter=request.user,
            upload=upload.as_input(
                new_datasets_confirmed=request.POST.get("confirm_new_datasets") == "1",
            ),
            left_out_confirmed=_left_out_confirmed(request),
            max_errors=max_errors(),
        )
        read = outcome.read
    except ResultsCsvError:  # the same bytes parsed at the preview: not expected
        messages.error(request, "The file could not be read again: upload it again.")
        return redirect("contribute-upload", slug=benchmark.slug)
    except PermissionDenied as exc:  # the services' rules, or the quota of pending uploads
        return forbidden(request, str(exc))
    except UploadRefused as exc:
        return _preview_page(request, benchmark, upload, exc.read, exc.problems)
    if outcome.job is not None:
        pending_upload_mark_stored(request.session, upload=upload, ids=[], job_id=outcome.job.pk)
        return redirect("contribute-upload-job", slug=benchmark.slug, job_id=outcome.job.pk)
    if outcome.held:
        messages.error(request, "Confirm that the results listed as left out stay out.")
        assert read is not None
        return _preview_page(request, benchmark, upload, read, ())
    submissions = list(outcome.submissions)
    pending_upload_mark_stored(request.session, upload=upload, ids=[s.pk for s in submissions])
    _stored_message(request, submissions, outcome.incomplete_notes)
    if outcome.n_left_out:
        messages.warning(
            request,
            f"{counted(outcome.n_left_out, 'result')} of the files left out, as listed "
            "before you confirmed.",
        )
    return _to_board(benchmark)


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
        "incomplete_notes": sorted(result.get("incomplete_notes", {}).items()),
        "notes": result.get("notes", ()),  # what a column mapping left out, as the API says
        "detail": result.get("detail", ""),
        "problems": [
            FileProblem(p.get("line"), p.get("field"), p.get("message", ""), "")
            for p in result.get("problems", ())
        ],
        "problems_total": result.get("problems_total", 0),
        "left_out": result.get("left_out", ()),
        "n_left_out": result.get("n_left_out", 0),
        "percent": round(100 * job.progress),
    }
    return render(request, "frontend/contribute/upload_job.html", context)


# --- maintainers ------------------------------------------------------------------------------
