"""The admin, held to the services' rules: its forms run the same checks, and what only a
service may do (create submissions and scores, moderate, rename or delete what results
name) is read-only here, done on the site or through the API instead."""

from django import forms
from django.contrib import admin
from django.db.models.functions import Length

from leaderboard.models import Algorithm, Benchmark, Dataset, Metric, ScorePack, Submission
from leaderboard.score_packs import VALUE
from leaderboard.services import (
    EDITABLE_FIELDS,
    Problem,
    benchmark_problems,
    benchmark_update,
    metric_add,
    metric_problems,
    metric_range_problems,
    text_field_problems,
    url_problem,
)


class ServiceRulesForm(forms.ModelForm):
    """A model form that refuses what the services would refuse."""

    def service_problems(self) -> list[Problem]:
        return []

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            for problem in self.service_problems():
                field = problem.field if problem.field in self.fields else None
                self.add_error(field, problem.message)
        return cleaned


class BenchmarkForm(ServiceRulesForm):
    def changes(self) -> dict:
        """The editable fields this form changes, with their new values."""
        return {n: self.cleaned_data[n] for n in self.changed_data if n in EDITABLE_FIELDS}

    def service_problems(self) -> list[Problem]:
        return benchmark_problems(self.changes(), benchmark=self.instance)


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    """Benchmarks are created with their metrics (site, API, import_benchmark)."""

    form = BenchmarkForm
    list_display = ["slug", "title", "visibility", "submission_policy"]
    readonly_fields = ["slug"]

    def has_add_permission(self, request) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        # Through the service, from the stored row, so an analysis change is recomputed.
        benchmark_update(
            benchmark=Benchmark.objects.get(pk=obj.pk), user=request.user, **form.changes()
        )
        obj.refresh_from_db()

    def get_deleted_objects(self, objs, request):
        # A benchmark goes with everything in it, though its parts cannot be deleted alone.
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected


class MetricForm(ServiceRulesForm):
    def service_problems(self) -> list[Problem]:
        data = self.cleaned_data
        benchmark = data.get("benchmark") or self.instance.benchmark
        metric = self.instance if self.instance.pk else None
        direction = data.get("direction") or self.instance.direction
        problems = metric_problems(
            benchmark=benchmark, name=data["name"], direction=direction, metric=metric
        )
        problems += metric_range_problems(
            min_value=data.get("min_value"),
            max_value=data.get("max_value"),
            unit=data.get("unit", ""),
        )
        return problems + text_field_problems(
            {"description": data.get("description", "")}, prose=("description",)
        )


@admin.register(Metric)
class MetricAdmin(admin.ModelAdmin):
    """A metric's direction and primacy decide published rankings: fixed once made."""

    form = MetricForm
    list_display = [
        "benchmark",
        "name",
        "direction",
        "is_primary",
        "min_value",
        "max_value",
        "unit",
    ]

    def get_readonly_fields(self, request, obj=None):
        return ["benchmark", "direction", "is_primary"] if obj is not None else ["is_primary"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created = metric_add(
            benchmark=obj.benchmark,
            user=request.user,
            name=obj.name,
            direction=obj.direction,
            min_value=obj.min_value,
            max_value=obj.max_value,
            unit=obj.unit,
        )
        created.description = obj.description
        created.save(update_fields=["description"])
        obj.pk = created.pk


class CatalogueEntryForm(ServiceRulesForm):
    """Descriptions and links of datasets and algorithms (their names are the catalogue
    page's: a rename must not change published results)."""

    def service_problems(self) -> list[Problem]:
        data = self.cleaned_data
        problems = text_field_problems(
            {"description": data.get("description", ""), "version": data.get("version")},
            prose=("description",),
        )
        if data.get("url") and (problem := url_problem(data["url"])):
            problems.append(Problem(f"url {problem}", "url"))
        return problems


class CatalogueEntryAdmin(admin.ModelAdmin):
    form = CatalogueEntryForm
    list_display = ["benchmark", "name"]
    readonly_fields = ["benchmark", "name"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


admin.site.register(Algorithm, CatalogueEntryAdmin)
admin.site.register(Dataset, CatalogueEntryAdmin)


class SubmissionForm(ServiceRulesForm):
    def service_problems(self) -> list[Problem]:
        data = self.cleaned_data
        problems = text_field_problems(
            {
                "note": data.get("note", ""),
                "decision_note": data.get("decision_note", ""),
                "algorithm_version": data.get("algorithm_version"),
            },
            prose=("note", "decision_note"),
        )
        if data.get("algorithm_url") and (problem := url_problem(data["algorithm_url"])):
            problems.append(Problem(f"algorithm_url {problem}", "algorithm_url"))
        return problems


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    """Submissions are made and moderated through the services (the site's moderation
    page, the API), which check transitions and recompute; here only texts change."""

    form = SubmissionForm
    list_display = ["benchmark", "algorithm", "status", "created_at"]
    list_filter = ["status", "benchmark"]
    readonly_fields = [
        "benchmark",
        "algorithm",
        "submitter",
        "status",
        "source",
        "decided_by",
        "decided_at",
        "idempotency_key",
        "content_hash",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ScorePack)
class ScorePackAdmin(admin.ModelAdmin):
    """Scores are written only with their submission; a hand-edited value would skip
    the checks on numbers and the recompute."""

    list_display = ["submission", "metric", "n_datasets", "n_scores"]
    fields = ("submission", "metric", "n_datasets", "n_scores")
    readonly_fields = fields

    def get_queryset(self, request):
        # A pack of a million scores is 12 MB: the list reads its length, not its bytes.
        return (
            super()
            .get_queryset(request)
            .defer("counts", "folds", "scores")
            .select_related("submission__algorithm", "metric")
            .annotate(score_bytes=Length("scores"))
        )

    @admin.display(description="datasets")
    def n_datasets(self, pack: ScorePack) -> int:
        return len(pack.datasets)

    @admin.display(description="scores")
    def n_scores(self, pack: ScorePack) -> int:
        return pack.score_bytes // VALUE.itemsize  # type: ignore[attr-defined]  # annotated

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
