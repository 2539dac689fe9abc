"""Input forms of the contributor and maintainer pages (parsing only; services write)."""

from __future__ import annotations

from typing import cast

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat

from estimation.core.registry import ESTIMATORS
from frontend.contribute.choice_labels import estimator_help, shorten_choices
from frontend.contribute.form_errors import AccessibleErrorsMixin
from leaderboard.ingest.imported import EMPTY_IMPORT, IMPORT_FORMAT_LABELS, IMPORT_FORMATS
from leaderboard.ingest.results_csv.sheets import columns_checked
from leaderboard.models import Algorithm, Benchmark, Metric
from leaderboard.services import ANALYSIS_FIELDS, RESERVED_SLUGS

ABOUT_FIELDS = ("title", "description", "citation", "licence")
POLICY_FIELDS = ("visibility", "submission_policy", "allow_new_datasets", "allow_new_algorithms")

ANALYSIS_HELP = {
    "missing_policy": "What a dataset without a result of some algorithm counts as.",
    "incomplete_submissions": "What an algorithm with empty cells does: not ranked until it "
    "has a result on every dataset of the board (the default, the board stays as it is), "
    "ranked last on the datasets it lacks, or those datasets left out for every algorithm.",
    "min_coverage": "Share of datasets (0 to 1) an algorithm needs to be ranked at all.",
    "tie_tolerance": "Scores closer than this count as a tie (0 = exact ties only).",
    "top_k": "K of the top-K probabilities.",
    "alpha": "Significance level of the tests (0.001 to 0.5).",
    "correction": "Multiple-comparison correction of the pairwise tests.",
    "default_estimator": "The estimator the leaderboard ranks by; readers may switch to another.",
    "control_algorithm": "The baseline the comparison with a control uses by default "
    "(Holm and Bonferroni–Dunn, Demšar 2006); blank: the best mean rank.",
    "bootstrap_size": "Bootstrap replicates behind the spread bands (0 turns them off; else at least 100).",
    "seed": "Random seed of the bootstrap, so that results are reproducible.",
}


class BenchmarkSettingsForm(AccessibleErrorsMixin, forms.ModelForm):
    """What a maintainer may change after creation (the services' EDITABLE_FIELDS)."""

    class Meta:
        model = Benchmark
        fields: tuple[str, ...] = (*ABOUT_FIELDS, *POLICY_FIELDS, *ANALYSIS_FIELDS)
        widgets = {
            "description": forms.Textarea(attrs={"rows": 4}),
            "citation": forms.Textarea(attrs={"rows": 3}),
        }
        help_texts = ANALYSIS_HELP

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        shorten_choices(self.fields)
        if "default_estimator" in self.fields:
            field = cast("forms.ChoiceField", self.fields["default_estimator"])
            field.choices = [(e.key, e.short_label) for e in ESTIMATORS]
            field.help_text = estimator_help(ANALYSIS_HELP["default_estimator"])
        if "control_algorithm" in self.fields and self.instance.pk:
            names = Algorithm.objects.filter(benchmark=self.instance).values_list("name", flat=True)
            self.fields["control_algorithm"].widget = forms.Select(
                choices=[("", "— the best mean rank —"), *((n, n) for n in sorted(names))]
            )

    def about_fields(self):
        return [self[name] for name in ABOUT_FIELDS]

    def policy_fields(self):
        return [self[name] for name in POLICY_FIELDS]

    def analysis_fields(self):
        return [self[name] for name in ANALYSIS_FIELDS]


class BenchmarkCreateForm(BenchmarkSettingsForm):
    class Meta(BenchmarkSettingsForm.Meta):
        fields = ("slug", *BenchmarkSettingsForm.Meta.fields)
        help_texts = {
            **ANALYSIS_HELP,
            "slug": "The benchmark's address: /b/your-slug/. Letters, digits, - and _; "
            "it cannot be changed later.",
        }
        error_messages = {
            "slug": {
                "unique": "Another benchmark already has this address; choose another slug.",
                "invalid": "Use only letters, digits, - and _ in the slug.",
            }
        }

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if slug in RESERVED_SLUGS:
            raise forms.ValidationError(f"“{slug}” is reserved; choose another slug.")
        return slug

    def about_fields(self):
        return [self["slug"], *super().about_fields()]


class MetricForm(forms.Form):
    # Optional: a row left empty is dropped; the services insist on at least one metric.
    name = forms.CharField(max_length=Metric._meta.get_field("name").max_length, required=False)
    direction = forms.ChoiceField(choices=Metric.Direction.choices, initial=Metric.Direction.HIGHER)
    # The valid range: a value outside it is refused wherever it arrives.
    min_value = forms.FloatField(required=False, label="Lowest valid value")
    max_value = forms.FloatField(required=False, label="Highest valid value")
    unit = forms.CharField(max_length=20, required=False, label="Unit", help_text="e.g. %")
    # Checked by the service's one rule (leaderboard/services/rope.py), as over the API.
    rope = forms.FloatField(
        required=False,
        label="Region of practical equivalence (±, metric units)",
        help_text="Differences within it do not matter in practice. Empty: none.",
    )


MetricFormSet = forms.formset_factory(MetricForm, extra=0, max_num=20, validate_max=True)


class SubmissionDetailsForm(AccessibleErrorsMixin, forms.Form):
    """Everything of a web-form submission except the grid of scores."""

    MAX_FOLDS = 100

    algorithm = forms.CharField(
        max_length=Algorithm._meta.get_field("name").max_length,
        label="Algorithm name",
        widget=forms.TextInput(attrs={"list": "known-algorithms", "autocomplete": "off"}),
    )
    algorithm_url = forms.URLField(required=False, label="Paper or code URL", assume_scheme="https")
    algorithm_version = forms.CharField(
        required=False,
        max_length=Algorithm._meta.get_field("version").max_length,
        label="Version",
    )
    family = forms.CharField(
        required=False, max_length=100, label="Family or type", help_text="e.g. gradient boosting"
    )
    parameters = forms.IntegerField(
        required=False, min_value=1, max_value=2**63 - 1, label="Parameter count"
    )
    licence = forms.CharField(required=False, max_length=100, label="Licence")
    revision = forms.CharField(
        required=False, max_length=100, label="Revision", help_text="e.g. a commit or model sha"
    )
    note = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="How the results were obtained (settings, hardware, seeds).",
    )

    def algorithm_metadata(self) -> dict:
        """The metadata fields that were filled in (the services' ALGORITHM_METADATA)."""
        data = self.cleaned_data
        return {
            name: data[name]
            for name in ("family", "parameters", "licence", "revision")
            if data.get(name) not in (None, "")
        }

    folds = forms.IntegerField(
        min_value=1,
        max_value=MAX_FOLDS,
        initial=1,
        label="Folds per dataset",
        help_text="1 = one result per dataset; more = one column per cross-validation fold.",
    )
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False, max_length=100)

    def __init__(self, *args, metrics, allow_new_algorithms: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        # Every metric has its own columns in the grid (frontend/contribute/grid.py).
        self.metrics = list(metrics)
        if not allow_new_algorithms:
            self.fields["algorithm"].help_text = "This benchmark takes only the listed algorithms."


class RefuseOrLeaveOut(forms.ChoiceField):
    """An upload's choice for what is wrong: refuse the file (the default, also when the
    field is not sent), or leave out what is wrong (``leave_out``: the upload service's
    value and its words), listed before anything is stored."""

    def __init__(self, *, label: str, listed: str, leave_out: tuple[str, str], help_text: str):
        super().__init__(
            label=label,
            choices=[("refuse", f"refuse the file (every {listed} listed)"), leave_out],
            initial="refuse",
            required=False,
            help_text=help_text,
        )

    def clean(self, value) -> str:
        return super().clean(value) or "refuse"


class UploadForm(AccessibleErrorsMixin, forms.Form):
    FORMAT_CHOICES = [
        ("", "detect from the header"),
        ("long", "long: dataset,algorithm,score[,fold][,metric]"),
        ("wide", "wide: dataset,<algorithm>,<algorithm>,…"),
        ("ranking", "ranking: dataset,algorithm,rank"),
        *IMPORT_FORMAT_LABELS.items(),
    ]

    # An empty CSV is the parser's to word ("the file is empty: it needs a header row;
    # expected ..."), as on the CLI and the API; clean() refuses an empty import.
    file = forms.FileField(
        label="Results file (CSV, JSON or zip)",
        help_text="A results CSV in UTF-8 or an Excel workbook (.xlsx: its first sheet), or "
        "another tool's results: its JSON file, or a folder as a zip (choose its format below).",
        allow_empty_file=True,
    )
    format = forms.ChoiceField(choices=FORMAT_CHOICES, required=False)
    note = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Stored with every algorithm of the file: how the results were obtained.",
    )
    incomplete = RefuseOrLeaveOut(
        label="Algorithms lacking folds",
        listed="gap",
        leave_out=("drop", "leave out an algorithm's results on a dataset where it lacks folds"),
        help_text="When an algorithm lacks, on a dataset, folds that others have there. "
        "What is left out is listed in the preview before anything is stored.",
    )

    on_error = RefuseOrLeaveOut(
        label="Results that cannot be read",
        listed="problem",
        leave_out=("skip", "leave them out and store the rest"),
        help_text="A bad value or row in a CSV, a file or key another tool's results "
        "cannot give. What is left out is listed in the preview, with the reason, and "
        "nothing is stored until you confirm it.",
    )

    def __init__(self, *args, max_bytes: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_bytes = max_bytes
        self.fields["file"].help_text = (
            f"Up to {filesizeformat(max_bytes)} here; larger files go through the API "
            "(POST /api/benchmarks/<slug>/submissions/upload/)."
        )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > self.max_bytes:
            raise forms.ValidationError(
                f"The file has {filesizeformat(upload.size)}; the web form takes up to "
                f"{filesizeformat(self.max_bytes)}. Upload larger files through the API."
            )
        return upload

    def clean(self) -> dict:
        cleaned = self.cleaned_data
        upload = cleaned.get("file")
        if upload is not None and not upload.size and cleaned.get("format") in IMPORT_FORMATS:
            self.add_error("file", EMPTY_IMPORT)
        return cleaned


class ColumnMappingForm(AccessibleErrorsMixin, forms.Form):
    """Which of a CSV's own columns holds each role the reader needs, chosen from its
    header (the upload service's ``columns``, checked by the one rule of mappings), or
    a table with one row per model; and whether a NaN score is a missing result (the
    service's ``models_as_rows`` and ``nan_missing``, as ``import_benchmark`` has them)."""

    token = forms.CharField(widget=forms.HiddenInput)
    models_as_rows = forms.BooleanField(
        required=False,
        label="One row per model: the first column names the model, every other column is a dataset",
        help_text="Then leave the columns below unchosen.",
    )
    # Required unless the file has one row per model (clean() says which is missing).
    dataset = forms.ChoiceField(required=False, label="Dataset column")
    algorithm = forms.ChoiceField(required=False, label="Algorithm column")
    score = forms.ChoiceField(required=False, label="Score column")
    fold = forms.ChoiceField(required=False, label="Fold column (optional)")
    metric = forms.ChoiceField(required=False, label="Metric column (optional)")
    nan_missing = forms.BooleanField(
        required=False,
        label="Read a NaN score (NaN, NA, <NA>), or an empty one in a long file, as a missing result",
        help_text="Without this such a score is refused as not a number. The preview lists "
        "what was read as missing.",
    )

    def __init__(self, *args, header: tuple[str, ...], ranking_only: bool, **kwargs):
        kwargs.setdefault("auto_id", "id_map_%s")
        super().__init__(*args, **kwargs)
        # A ranking benchmark reads ranks: the value's role is "rank".
        self.value_role = "rank" if ranking_only else "score"
        if ranking_only:
            self.fields["score"].label = "Rank column"
        names = [(name, name) for name in header]
        for name in self.ROLES:
            field = cast("forms.ChoiceField", self.fields[name])
            blank = "— choose —" if name in self.NEEDED else "— none —"
            field.choices = [("", blank), *names]
        if ranking_only:  # a ranking file's table of positions has no models-as-rows reading
            del self.fields["models_as_rows"]

    ROLES = ("dataset", "algorithm", "score", "fold", "metric")
    NEEDED = ("dataset", "algorithm", "score")

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        chosen = [name for name in self.ROLES if cleaned.get(name)]
        if cleaned.get("models_as_rows"):
            if chosen:
                raise forms.ValidationError(
                    "With one row per model the first column is the model and every other "
                    "column a dataset: leave the columns unchosen ("
                    + ", ".join(str(self.fields[name].label) for name in chosen)
                    + " chosen), or untick one row per model."
                )
            cleaned["columns"] = {}
            return cleaned
        for name in self.NEEDED:
            if not cleaned.get(name):
                self.add_error(name, f"Choose the column that holds the {self._role_word(name)}.")
        if self.errors:
            return cleaned
        pairs = [
            (self.value_role if name == "score" else name, cleaned[name])
            for name in self.ROLES
            if cleaned.get(name)
        ]
        try:
            cleaned["columns"] = columns_checked(pairs)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        return cleaned

    def _role_word(self, name: str) -> str:
        return {"dataset": "dataset names", "algorithm": "algorithm names"}.get(
            name, "ranks" if self.value_role == "rank" else "scores"
        )


class DecisionForm(AccessibleErrorsMixin, forms.Form):
    DECISIONS = [("accept", "Accept"), ("reject", "Reject")]

    decision = forms.ChoiceField(choices=DECISIONS)
    note = forms.CharField(
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Note to the submitter",
    )


def upload_limit_bytes() -> int:
    """The web form keeps a file between preview and confirm, so it takes smaller ones."""
    return min(settings.PODIUM_MAX_UPLOAD_BYTES, 5 * 1024 * 1024)


class DatasetsAddForm(AccessibleErrorsMixin, forms.Form):
    names = forms.CharField(
        label="New datasets, one name per line",
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="Names already in the benchmark are skipped.",
    )


def _metric_choices(field: forms.Field, metrics) -> None:
    cast("forms.ChoiceField", field).choices = [(m.name, m.name) for m in metrics]


class MetricRangeForm(AccessibleErrorsMixin, forms.Form):
    """A metric's valid range and unit, changed by a maintainer (scores already stored
    stay; what arrives next is checked)."""

    metric = forms.ChoiceField(label="Metric whose valid range to set")
    min_value = forms.FloatField(required=False, label="Lowest valid value")
    max_value = forms.FloatField(required=False, label="Highest valid value")
    unit = forms.CharField(max_length=20, required=False, label="Unit", help_text="e.g. %")

    def __init__(self, *args, metrics, **kwargs):
        # The catalogue page holds several forms: ids of their own, so labels stay theirs.
        kwargs.setdefault("auto_id", "id_range_%s")
        super().__init__(*args, **kwargs)
        _metric_choices(self.fields["metric"], metrics)


class MetricAddForm(AccessibleErrorsMixin, forms.Form):
    name = forms.CharField(
        max_length=Metric._meta.get_field("name").max_length, label="Name of the new metric"
    )
    direction = forms.ChoiceField(choices=Metric.Direction.choices, label="Direction")
    min_value = forms.FloatField(required=False, label="Lowest valid value")
    max_value = forms.FloatField(required=False, label="Highest valid value")
    unit = forms.CharField(max_length=20, required=False, label="Unit", help_text="e.g. %")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "id_new_metric_%s")
        super().__init__(*args, **kwargs)


class MetricRopeForm(AccessibleErrorsMixin, forms.Form):
    """A metric's region of practical equivalence (leaderboard/metric_rope.py)."""

    metric = forms.ChoiceField(
        label="Metric",
        error_messages={"invalid_choice": "Choose one of this benchmark's metrics."},
    )
    rope = forms.FloatField(
        required=False,
        min_value=0.0,
        label="Differences that do not matter (±, in the metric's units)",
        help_text="Two algorithms closer than this on the metric count as equally good in "
        "practice, e.g. 0.01 when accuracy is a fraction. Leave empty for none.",
    )

    def __init__(self, *args, metrics, **kwargs):
        kwargs.setdefault("auto_id", "id_rope_%s")
        super().__init__(*args, **kwargs)
        _metric_choices(self.fields["metric"], metrics)


class DatasetDescribeForm(AccessibleErrorsMixin, forms.Form):
    """What readers are told about a dataset (the service checks the scheme and lengths)."""

    name = forms.ChoiceField(label="Dataset")
    description = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One paragraph readers see beside the dataset's name.",
    )
    url = forms.CharField(
        required=False,
        label="Link (http or https)",
        help_text="Where the data or its paper can be found.",
    )
    domain = forms.CharField(
        required=False, label="Domain", help_text="e.g. medicine, finance, vision"
    )

    def __init__(self, *args, datasets, **kwargs):
        kwargs.setdefault("auto_id", "id_dataset_%s")
        super().__init__(*args, **kwargs)
        cast("forms.ChoiceField", self.fields["name"]).choices = [(n, n) for n in datasets]
