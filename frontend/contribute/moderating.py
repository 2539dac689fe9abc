"""The moderation pages: the queue of pending submissions, one decision or many at once,
and the benchmark's published snapshots."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from estimation.activity import recompute_activity, version_problems
from estimation.selectors import benchmark_recompute_failures, snapshot_history
from frontend.contribute.access import (
    benchmark_or_404,
    forbidden,
    maintainer_page,
)
from frontend.contribute.forms import (
    DecisionForm,
)
from frontend.contribute.selectors import (
    moderation_evidence,
    moderation_queue,
    moderation_recent_decisions,
)
from leaderboard.models import Benchmark, Submission
from leaderboard.selectors import (
    benchmark_metric_list,
)
from leaderboard.services import (
    PermissionDenied,
    ValidationFailed,
    submission_accept,
    submission_reject,
    submissions_decide,
)
from operations.failures import task_failures_recent

SNAPSHOTS_PER_PAGE = 50


# Cards with their evidence; a longer queue is worked through from the oldest.
MODERATION_QUEUE_SHOWN = 50


@login_required
@maintainer_page
def moderation(request: HttpRequest, benchmark: Benchmark) -> HttpResponse:
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
@maintainer_page
def snapshots(request: HttpRequest, benchmark: Benchmark) -> HttpResponse:
    """Every computed version of a metric's results: status, errors, timings."""
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
        # Issue 41: what runs now, and every failed or abandoned run of the last day
        # (not only the newest version's), task failures of a database outage included.
        "activity": recompute_activity(benchmark_id=benchmark.pk),
        "problems": version_problems(benchmark_ids=[benchmark.pk]),
        "task_failures": task_failures_recent(benchmark_ids=[benchmark.pk]),
    }
    return render(request, "frontend/contribute/snapshots.html", context)
