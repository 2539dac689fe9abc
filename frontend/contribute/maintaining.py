"""The maintainer's pages: the benchmarks one maintains, creating and editing a benchmark,
and its catalogue of datasets and algorithms."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from estimation.core.wording import counted
from estimation.selectors import benchmark_recompute_failures
from frontend.contribute.access import (
    forbidden,
    maintainer_page,
)
from frontend.contribute.form_errors import SummaryError, add_problems, form_summary
from frontend.contribute.forms import (
    BenchmarkCreateForm,
    BenchmarkSettingsForm,
    DatasetDescribeForm,
    DatasetsAddForm,
    MetricAddForm,
    MetricFormSet,
    MetricRangeForm,
    MetricRopeForm,
)
from frontend.contribute.selectors import (
    benchmark_list_maintained,
)
from leaderboard.metric_rope import metric_rope_set
from leaderboard.models import Benchmark
from leaderboard.selectors import (
    benchmark_metric_list,
    catalogue_names_unused,
)
from leaderboard.services import (
    NEEDS_A_METRIC,
    PermissionDenied,
    ValidationFailed,
    benchmark_create,
    benchmark_create_problems,
    benchmark_datasets_add,
    benchmark_update,
    catalogue_entry_delete,
    catalogue_entry_rename,
    dataset_describe,
    metric_add,
    metric_range_set,
)
from operations.status import operations_status


@login_required
def maintained(request: HttpRequest) -> HttpResponse:
    benchmarks = list(benchmark_list_maintained(user=request.user))
    ids = [benchmark.pk for benchmark in benchmarks]
    # Issue 41: a recompute nobody runs, and failed or abandoned runs that were never
    # the newest version, reach the maintainer too.
    # Read once for the rows and the stall notice above them.
    status = operations_status(benchmark_ids=ids, queue=False) if ids else None
    stalled = {row.slug: row for row in status.stalled} if status else {}
    problems: dict[int, int] = {}
    for problem in status.problems if status else ():
        problems[problem.benchmark_id] = problems.get(problem.benchmark_id, 0) + 1
    return render(
        request,
        "frontend/contribute/maintained.html",
        {
            "section": "maintained",
            "status": status,
            "benchmarks": [
                (
                    benchmark,
                    benchmark_recompute_failures(benchmark=benchmark),
                    stalled.get(benchmark.slug),
                    problems.get(benchmark.pk, 0),
                )
                for benchmark in benchmarks
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


_METRIC_FIELDS = ("metrics", "min_value", "max_value", "unit", "rope")


def _metrics_posted(formset) -> list[tuple]:
    """The named metric rows the formset read without error, as benchmark_create takes them."""
    return [
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
        if not f.errors and f.cleaned_data.get("name")
    ]


def _problems_placed(form, problems) -> list[str]:
    """The services' problems on the form's fields; those of the metrics returned."""
    add_problems(form, [p for p in problems if p.field not in _METRIC_FIELDS])
    return [p.message for p in problems if p.field in _METRIC_FIELDS]


def _create_problems_besides(form, formset) -> list[str]:
    """The services' rules on what the form and formset did read, when either refused
    something: one submit names every problem (the metrics' rope and ranges too, when
    only the slug was wrong). A field the form already refused is not checked again."""
    fields = {k: v for k, v in form.cleaned_data.items() if k not in form.errors}
    metrics = _metrics_posted(formset)
    problems = benchmark_create_problems(
        slug=fields.pop("slug", None), title=fields.pop("title", None), metrics=metrics, **fields
    )
    if any(f.errors for f in formset.forms) and not metrics:
        problems = [p for p in problems if p.message != NEEDS_A_METRIC]
    return _problems_placed(form, problems)


@login_required
@require_http_methods(["GET", "POST"])
def benchmark_new(request: HttpRequest) -> HttpResponse:
    """Any logged-in researcher may create a benchmark, and becomes its maintainer.

    "Add a metric" re-renders the page with one more metric row (no JavaScript needed).
    """
    metric_errors: list[str] = []
    errors: list[SummaryError] = []
    status = 200
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
        if not (form_ok and formset_ok):
            metric_errors = _create_problems_besides(form, formset)
        else:
            data = dict(form.cleaned_data)
            metrics = _metrics_posted(formset)
            try:
                benchmark = benchmark_create(
                    slug=data.pop("slug"),
                    title=data.pop("title"),
                    metrics=metrics,
                    creator=request.user,
                    **data,
                )
            except ValidationFailed as exc:
                metric_errors = _problems_placed(form, exc.problems)
            except PermissionDenied as exc:  # the account's quota of benchmarks
                form.add_error(None, str(exc))
                status = 403
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
    return render(request, "frontend/contribute/benchmark_form.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
@maintainer_page
def benchmark_edit(request: HttpRequest, benchmark: Benchmark) -> HttpResponse:
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


@dataclass(frozen=True)
class _CatalogueForms:
    """The catalogue page's forms, the one named by the POST's action bound to it."""

    datasets_add: DatasetsAddForm
    metric: MetricAddForm
    metric_range: MetricRangeForm
    rope: MetricRopeForm
    describe: DatasetDescribeForm
    metrics: list
    datasets: list

    @classmethod
    def of(cls, request: HttpRequest, benchmark: Benchmark, action: str | None) -> _CatalogueForms:
        def posted(name: str):
            return request.POST if action == name else None

        metrics = list(benchmark_metric_list(benchmark=benchmark))
        datasets = list(benchmark.datasets.order_by("name"))
        return cls(
            datasets_add=DatasetsAddForm(posted("datasets")),
            metric=MetricAddForm(posted("metric")),
            metric_range=MetricRangeForm(posted("metric_range"), metrics=metrics),
            rope=MetricRopeForm(posted("rope"), metrics=metrics),
            describe=DatasetDescribeForm(posted("describe"), datasets=[d.name for d in datasets]),
            metrics=metrics,
            datasets=datasets,
        )

    def named(self, action: str):
        """The form an action posts (the metric form for any other)."""
        return {
            "datasets": self.datasets_add,
            "describe": self.describe,
            "rope": self.rope,
            "metric_range": self.metric_range,
        }.get(action, self.metric)


@login_required
@require_http_methods(["GET", "POST"])
@maintainer_page
def benchmark_catalogue(request: HttpRequest, benchmark: Benchmark) -> HttpResponse:
    """The benchmark's datasets and metrics; maintainers add to them here."""
    action = request.POST.get("action")
    forms = _CatalogueForms.of(request, benchmark, action)
    try:
        if action in ("rename", "delete"):
            return _catalogue_name_change(request, benchmark, action)
        save = _CATALOGUE_SAVES.get(action or "")
        if save is not None and forms.named(action or "").is_valid():
            done = save(request, benchmark, forms)
            if done is not None:
                messages.success(request, done)
                return redirect("contribute-benchmark-catalogue", slug=benchmark.slug)
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    except ValidationFailed as exc:
        add_problems(forms.named(action or ""), exc.problems)
    context = {
        "benchmark": benchmark,
        "datasets": forms.datasets,
        "metrics": forms.metrics,
        "datasets_form": forms.datasets_add,
        "describe_form": forms.describe,
        "metric_form": forms.metric,
        "rope_form": forms.rope,
        "range_form": forms.metric_range,
        "unused": catalogue_names_unused(benchmark=benchmark),
        "errors": [
            *form_summary(forms.datasets_add),
            *form_summary(forms.describe),
            *form_summary(forms.metric),
            *form_summary(forms.rope),
            *form_summary(forms.metric_range),
        ],
    }
    return render(request, "frontend/contribute/catalogue.html", context)


def _range_save(request: HttpRequest, benchmark: Benchmark, forms: _CatalogueForms) -> str:
    data = forms.metric_range.cleaned_data
    metric = next(m for m in forms.metrics if m.name == data["metric"])
    metric_range_set(
        benchmark=benchmark,
        user=request.user,
        metric=metric,
        min_value=data["min_value"],
        max_value=data["max_value"],
        unit=data["unit"],
    )
    return f"Set the valid range of {metric.name}."


def _rope_save(request: HttpRequest, benchmark: Benchmark, forms: _CatalogueForms) -> str:
    # The select offers the benchmark's metrics only; the form refused any other name.
    chosen = next(m for m in forms.metrics if m.name == forms.rope.cleaned_data["metric"])
    metric_rope_set(metric=chosen, user=request.user, rope=forms.rope.cleaned_data["rope"])
    return f"Saved the region of practical equivalence of {chosen.name}."


def _dataset_describe(request: HttpRequest, benchmark: Benchmark, forms: _CatalogueForms) -> str:
    data = forms.describe.cleaned_data
    dataset = dataset_describe(
        benchmark=benchmark,
        user=request.user,
        name=data["name"],
        description=data["description"],
        url=data["url"],
        domain=data["domain"],
    )
    return f"Saved the description of {dataset.name}."


def _datasets_add(request: HttpRequest, benchmark: Benchmark, forms: _CatalogueForms) -> str:
    added = benchmark_datasets_add(
        benchmark=benchmark,
        user=request.user,
        names=forms.datasets_add.cleaned_data["names"].splitlines(),
    )
    return f"Added {counted(len(added), 'dataset')}."


def _metric_add(request: HttpRequest, benchmark: Benchmark, forms: _CatalogueForms) -> str:
    metric = metric_add(benchmark=benchmark, user=request.user, **forms.metric.cleaned_data)
    return f"Added the metric {metric.name}."


# What each catalogue action saves; each returns the message shown after it, or None
# when it added an error to its form instead.
_CATALOGUE_SAVES = {
    "metric_range": _range_save,
    "rope": _rope_save,
    "datasets": _datasets_add,
    "describe": _dataset_describe,
    "metric": _metric_add,
}


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
