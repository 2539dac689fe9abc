"""What every importer shares: locating problems, and turning another tool's results
into the records the CSV parser yields (reading a folder or zip: :mod:`.files`).

Pure Python (no Django): ``manage.py analyze`` runs it on a laptop. Each format module
reads ``files`` (relative path -> bytes) into :class:`Entry` objects through a
:class:`Collector`, which hands them as records to
:func:`leaderboard.ingest.results_csv.parse_results_records`, the validator a CSV
upload's rows pass (names, finite numbers, duplicates, folds): every problem is reported
at the file and key it was read from.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

import numpy as np

from leaderboard.ingest.results_csv import (
    ParsedResults,
    ResultsCsvError,
    RowError,
    control_character_problem,
    parameter_count,
    parse_results_records,
)
from leaderboard.ingest.results_csv.long_layout import GivenRecord

MAX_PROBLEMS = 100
MAX_LEFT_OUT = 1000  # listed one by one; beyond, counted
# What a reader does with a result it cannot take: leave it out and list it ("skip"), or
# refuse the whole upload naming every problem ("refuse").
ON_ERROR: tuple[str, ...] = ("skip", "refuse")


@dataclass(frozen=True)
class UploadLimits:
    """The most one upload may hold where it is read: results (each fold one, as a row of
    a results CSV) and, for a zip of another tool's files, bytes unpacked
    (``leaderboard.uploads.upload_limits`` decides them)."""

    max_rows: int
    max_unpacked_bytes: int


@dataclass(frozen=True)
class ImportRowError(RowError):
    """A problem located by file and key (``column`` holds ``"<file>: <key>"``; no line)."""

    def __str__(self) -> str:
        return f"{self.column}: {self.message}" if self.column else self.message


def import_problem(file: str, key: str, message: str) -> ImportRowError:
    """A problem at ``key`` of ``file``; with neither, a problem of the whole input."""
    where = ": ".join(part for part in (file, key) if part)
    return ImportRowError(0, where, message)


class ResultsImportError(ResultsCsvError):
    """Files in another tool's format were refused; ``errors`` name the file and key."""

    def _describe(self) -> str:
        if self.total == 1 and self.errors:
            return str(self.errors[0])
        lines = [f"{self.total} errors in the imported files:"]
        lines += [f"  {error}" for error in self.errors]
        if self.n_more:
            lines.append(f"  ... and {self.n_more} more")
        return "\n".join(lines)


@dataclass(frozen=True)
class MetricInfo:
    """A metric as the file describes it; ``None`` where the file does not say."""

    name: str
    higher_is_better: bool | None = None
    min_value: float | None = None
    max_value: float | None = None
    unit: str = ""


@dataclass(frozen=True)
class AlgorithmInfo:
    """An algorithm's metadata as the file gives it (blank / ``None`` where it does not)."""

    name: str
    family: str = ""
    parameters: int | None = None
    licence: str = ""
    url: str = ""
    revision: str = ""
    precision: str = ""  # as model_precision() writes it: "bfloat16", "8bit"
    open_weights: bool | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One result: ``value`` over all folds, and the folds' values when the file has them."""

    dataset: str
    algorithm: str
    metric: str
    value: float
    folds: tuple[float, ...] | None
    origin: str  # "<file>: <key>"
    # The file's standard error of ``value`` ("x ± s", an uncertainty field), if any.
    standard_error: float | None = None
    # What tells two runs of one model apart when the file names both alike (a
    # precision such as "bfloat16"); it names the algorithm only when they collide.
    variant: str = ""


@dataclass(frozen=True, eq=False)
class ImportedResults:
    """Results read from another tool's files.

    ``parsed`` is what the CSV parser yields for the same results (long layout, with a
    metric column, and folds where the files have them); its line ``n`` came from
    ``origins[n - 2]``. ``provenance`` holds, per algorithm, what the files say about
    how the numbers were made (model revision, harness version, dataset revisions).
    ``notes`` summarise; ``left_out`` lists each result (or file) that was not imported,
    at its file and key, with the reason.
    """

    format: str
    parsed: ParsedResults
    origins: tuple[str, ...]
    metrics: tuple[MetricInfo, ...]
    algorithms: tuple[AlgorithmInfo, ...]
    provenance: Mapping[str, Mapping[str, Any]]
    notes: tuple[str, ...] = ()
    left_out: tuple[ImportRowError, ...] = ()
    n_left_out: int = 0
    # The source's own aggregates of these results (e.g. HELM's "Mean win rate"), each
    # algorithm's value: the order the source publishes, never imported as a dataset.
    published: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def where(self, line: int | None) -> str | None:
        """The file and key a line of ``parsed`` came from."""
        if line is None:
            return None
        if 2 <= line < len(self.origins) + 2:
            return self.origins[line - 2]
        return None

    def metric(self, name: str) -> MetricInfo | None:
        return next((m for m in self.metrics if m.name == name), None)

    def algorithm(self, name: str) -> AlgorithmInfo | None:
        return next((a for a in self.algorithms if a.name == name), None)


# --- reading values -----------------------------------------------------------------------

# Longer integers are beyond a float anyway; Python refuses to read ones past 4,300 digits
# (a ValueError json.loads does not turn into a JSONDecodeError: a 500 before).
_MAX_INT_DIGITS = 310


def _int_or_inf(text: str) -> int | float:
    return int(text) if len(text) <= _MAX_INT_DIGITS else float(text)


def json_loads(text: str) -> Any:
    """``json.loads``, an integer too long for a float read as infinity, so the key that
    holds it is refused as not finite (by :meth:`Collector.number`) rather than crashing."""
    return json.loads(text, parse_int=_int_or_inf)


_MISSING = object()


class Collector:
    """Entries, metadata and problems gathered while reading the files of one format.

    ``max_results`` bounds the results (each fold one, as a row of a results CSV) an
    upload may hold: reading stops at the first result past it, so a file of millions
    costs no more than the bound (None: no bound, for a researcher's own files).
    """

    def __init__(
        self, format: str, *, max_results: int | None = None, on_error: str = "refuse"
    ) -> None:
        if max_results is not None and (isinstance(max_results, bool) or max_results < 1):
            raise ValueError(f"max_results must be a positive integer or None, got {max_results!r}")
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
        self.format = format
        self.on_error = on_error
        # Left out by the format's own rules (an aggregate row, a placeholder), whatever
        # on_error says: listed, never refused.
        self.left_out: list[ImportRowError] = []
        self.max_results = max_results
        self.n_results = 0
        self.entries: list[Entry] = []
        self.problems: list[ImportRowError] = []
        self.metrics: dict[str, MetricInfo] = {}
        self.algorithms: dict[str, AlgorithmInfo] = {}
        self.provenance: dict[str, dict[str, Any]] = {}
        self.notes: list[str] = []
        # The source's own aggregates (name -> algorithm -> value): its published order.
        self.published: dict[str, dict[str, float]] = {}

    def problem(self, file: str, key: str, message: str) -> None:
        self.problems.append(import_problem(file, key, message))

    def leave_out(self, file: str, key: str, reason: str) -> None:
        """A result the format's rules leave out (listed with ``reason``, not a problem)."""
        self.left_out.append(import_problem(file, key, reason))

    def json(self, file: str, data: bytes) -> Any:
        """The file's JSON, or ``_MISSING`` after recording why it cannot be read."""
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            self.problem(file, "", f"is not UTF-8 text (byte {exc.start})")
            return _MISSING
        try:
            return json_loads(text)
        except RecursionError:
            self.problem(file, "", "is nested too deeply")
            return _MISSING
        except json.JSONDecodeError as exc:
            hint = (
                " (the file ends before its brackets close: truncated?)" if _unclosed(text) else ""
            )
            self.problem(
                file,
                "",
                f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}{hint}",
            )
            return _MISSING

    def get(self, file: str, obj: Any, key: str, *, path: str, kind: type | tuple = object) -> Any:
        """``obj[key]``, or ``_MISSING`` after recording a missing key or a wrong type."""
        full = f"{path}.{key}" if path else key
        if not isinstance(obj, dict):
            self.problem(file, path or "(document)", f"expected an object, got {_kind(obj)}")
            return _MISSING
        if key not in obj:
            self.problem(file, full, "missing key")
            return _MISSING
        value = obj[key]
        wrong_bool = isinstance(value, bool) and kind is not object and bool not in _as_tuple(kind)
        if not isinstance(value, kind) or wrong_bool:
            self.problem(file, full, f"expected {_kind_name(kind)}, got {_kind(value)}")
            return _MISSING
        return value

    def number(self, file: str, value: Any, *, key: str) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.problem(file, key, f"expected a number, got {_kind(value)}")
            return None
        number = float(value)
        if not math.isfinite(number):
            self.problem(file, key, f"expected a finite number, got {value!r}")
            return None
        return number

    def metric(self, info: MetricInfo, *, file: str, key: str) -> None:
        known = self.metrics.get(info.name)
        if known is None:
            self.metrics[info.name] = info
            return
        if known == info:  # a file says it of every result: nothing to merge
            return
        if (
            known.higher_is_better is not None
            and info.higher_is_better is not None
            and known.higher_is_better != info.higher_is_better
        ):
            self.problem(
                file,
                key,
                f"metric {info.name!r} is higher-is-better in one file and lower-is-better "
                "in another",
            )
        else:  # what one file leaves unsaid, another may say
            self.metrics[info.name] = MetricInfo(
                info.name,
                higher_is_better=_first(known.higher_is_better, info.higher_is_better),
                min_value=_first(known.min_value, info.min_value),
                max_value=_first(known.max_value, info.max_value),
                unit=known.unit or info.unit,
            )

    def algorithm(self, info: AlgorithmInfo, provenance: Mapping[str, Any] | None = None) -> None:
        """Record a model and what the file says of it; its metadata texts neutralised
        (:func:`metadata_text`), since a file's words reach the reader's table."""
        info = replace(
            info,
            family=metadata_text(info.family),
            licence=metadata_text(info.licence),
            revision=metadata_text(info.revision),
            parameters=parameter_count(info.parameters),
            precision=model_precision(info.precision),
            open_weights=open_weights_flag(info.open_weights),
        )
        self.algorithms.setdefault(info.name, info)
        if provenance:
            self.provenance.setdefault(info.name, {}).update(
                {k: v for k, v in provenance.items() if v not in (None, "", [], {})}
            )

    def add(
        self,
        *,
        dataset: str,
        algorithm: str,
        metric: str,
        value: float,
        folds: Iterable[float] | None = None,
        origin: str,
        standard_error: float | None = None,
        variant: str = "",
    ) -> None:
        folds = None if folds is None else tuple(folds)
        self.n_results += 1 if not folds else len(folds)
        if self.max_results is not None and self.n_results > self.max_results:
            file, _, key = origin.partition(": ")
            raise ResultsImportError(
                [
                    import_problem(
                        file,
                        key,
                        f"too many results: at most {self.max_results} per upload (each "
                        "fold counts as one); split the files into several uploads",
                    )
                ]
            )
        self.metrics.setdefault(metric, MetricInfo(metric))
        self.entries.append(
            Entry(dataset, algorithm, metric, value, folds, origin, standard_error, variant)
        )

    def _refuse_or_list(self, problems: list[ImportRowError]) -> None:
        """Refuse (``on_error="refuse"``) naming every problem so far, or list them."""
        if not problems:
            return
        if self.on_error == "refuse":
            found = self.problems + problems
            raise ResultsImportError(found[:MAX_PROBLEMS], total=len(found))
        self.left_out.extend(problems)

    def _checked(self, entries: list[Entry]) -> list[Entry]:
        """The entries the CSV parser will take: names it accepts, values in the range the
        files state, one result per dataset, algorithm and metric (the first kept)."""
        kept: list[Entry] = []
        problems: list[ImportRowError] = []
        first: dict[tuple[str, str, str], str] = {}
        # A good name is checked once, however many results name it (a million results
        # have some thousands of names); the rule does not depend on what it names.
        good_names: set[str] = set()
        for e in entries:
            if e.dataset in good_names and e.algorithm in good_names and e.metric in good_names:
                problem = None
            elif (problem := _names_problem(e)) is None:
                good_names.update((e.dataset, e.algorithm, e.metric))
            problem = problem or self._range_problem(e)
            if problem is None:
                record = (e.dataset.strip(), e.algorithm.strip(), e.metric.strip())
                earlier = first.get(record)
                if earlier is None:
                    first[record] = e.origin
                else:
                    problem = (
                        f"a second result of {record[1]!r} on {record[0]!r} ({record[2]}); "
                        f"the first, at {earlier}, is kept"
                    )
            if problem is None:
                kept.append(e)
            else:
                file, _, key = e.origin.partition(": ")
                problems.append(import_problem(file, key, problem))
        self._refuse_or_list(problems)
        return kept

    def _range_problem(self, e: Entry) -> str | None:
        info = self.metrics[e.metric]
        if info.min_value is None and info.max_value is None:
            return None
        for value in (e.value, *(e.folds or ())):
            if problem := _range_problem(info, value):
                return problem
        return None

    def _variants_named(self, entries: list[Entry]) -> list[Entry]:
        """Runs of one model told apart only by their variant (two precisions) become
        algorithms of their own, ``model (variant)``, with the model's metadata."""
        variants: dict[str, set[str]] = {}
        for e in entries:
            variants.setdefault(e.algorithm, set()).add(e.variant)
        split = {name for name, seen in variants.items() if len(seen) > 1}
        if not split:
            return entries
        for name in split:
            info = self.algorithms.get(name, AlgorithmInfo(name))
            for variant in sorted(variants[name] - {""}):
                named = f"{name} ({variant})"
                self.algorithms.setdefault(
                    named, replace(info, name=named, precision=model_precision(variant))
                )
                self.provenance.setdefault(named, dict(self.provenance.get(name, {})))
        return [
            replace(e, algorithm=f"{e.algorithm} ({e.variant})")
            if e.algorithm in split and e.variant
            else e
            for e in entries
        ]

    def _standard_errors(self, entries: list[Entry]) -> None:
        """Each result's standard error, kept in its algorithm's provenance."""
        for e in entries:
            if e.standard_error is not None:
                errors = self.provenance.setdefault(e.algorithm, {}).setdefault(
                    "standard_errors", {}
                )
                errors[f"{e.dataset} | {e.metric}"] = e.standard_error

    def finish(self) -> ImportedResults:
        if self.problems and self.on_error == "refuse":
            raise ResultsImportError(self.problems[:MAX_PROBLEMS], total=len(self.problems))
        self.left_out.extend(self.problems)
        self.problems = []
        checked = self._checked(self._variants_named(self.entries))
        if not checked:
            found = self.left_out or [
                import_problem("", "", f"no {self.format} results found in the files")
            ]
            if len(found) == 1 and found[0].column == "":
                raise ResultsImportError(found)
            raise ResultsImportError(
                [
                    import_problem("", "", f"no {self.format} result could be imported"),
                    *found[: MAX_PROBLEMS - 1],
                ],
                total=len(found) + 1,
            )
        self._standard_errors(checked)
        entries = _harmonise_folds(checked)
        with_folds = any(e.folds is not None for e in entries)
        records, origins = _records(entries, with_folds=with_folds)
        try:
            # The validator of a results CSV's records (record i is "line" i + 2).
            parsed = parse_results_records(records, with_folds=with_folds, max_errors=MAX_PROBLEMS)
        except ResultsCsvError as exc:
            raise ResultsImportError(
                [_relocated(error, origins) for error in exc.errors], total=exc.total
            ) from None
        used = set(parsed.metrics)
        return ImportedResults(
            format=self.format,
            parsed=parsed,
            origins=tuple(origins),
            metrics=tuple(m for m in self.metrics.values() if m.name in used),
            algorithms=tuple(
                self.algorithms.get(name, AlgorithmInfo(name)) for name in parsed.algorithms
            ),
            provenance={k: dict(v) for k, v in self.provenance.items()},
            notes=tuple(self.notes),
            left_out=tuple(self.left_out[:MAX_LEFT_OUT]),
            n_left_out=len(self.left_out),
            published={k: dict(v) for k, v in self.published.items()},
        )


def _records(entries: list[Entry], *, with_folds: bool) -> tuple[list[GivenRecord], list[str]]:
    """The entries as the validator's records (a fold each, where any entry has folds),
    and where each was read."""
    records: list[GivenRecord] = []
    origins: list[str] = []
    for e in entries:
        if not with_folds or e.folds is None:
            records.append((e.dataset, e.algorithm, e.metric, 0 if with_folds else None, e.value))
            origins.append(e.origin)
            continue
        for fold, value in enumerate(e.folds):
            records.append((e.dataset, e.algorithm, e.metric, fold, value))
            origins.append(f"{e.origin} (fold {fold})")
    return records, origins


def _names_problem(e: Entry) -> str | None:
    for what, name in (("dataset", e.dataset), ("algorithm", e.algorithm), ("metric", e.metric)):
        if not name.strip():
            return f"the {what} has no name"
        if problem := control_character_problem(name):
            return f"the {what} name {name[:60]!r} {problem}"
    return None


def _unclosed(text: str) -> bool:
    """Whether a string or bracket is still open at the end of ``text`` (a cut-off file)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return in_string or depth > 0


def _first(*values):
    return next((v for v in values if v is not None), None)


def _range_problem(info: MetricInfo, value: float) -> str | None:
    low, high = info.min_value, info.max_value
    if (low is None or value >= low) and (high is None or value <= high):
        return None
    shown = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
    return f"{value:g} is outside the valid range of metric {info.name!r}, {shown}, the files state"


def _harmonise_folds(entries: list[Entry]) -> list[Entry]:
    """Keep folds on a dataset and metric only where every algorithm has the same number
    of them; elsewhere each result is its overall value (one per algorithm)."""
    counts: dict[tuple[str, str], set[int | None]] = {}
    for e in entries:
        counts.setdefault((e.dataset, e.metric), set()).add(
            None if e.folds is None else len(e.folds)
        )
    mixed = {key for key, seen in counts.items() if len(seen) > 1 or 0 in seen}
    if not mixed:
        return entries
    return [
        Entry(e.dataset, e.algorithm, e.metric, e.value, None, e.origin)
        if (e.dataset, e.metric) in mixed
        else e
        for e in entries
    ]


_LINE_MENTION = re.compile(r"\bline (\d+)")


def _relocated(error: RowError, origins: list[str]) -> ImportRowError:
    def origin(line: int) -> str:
        return origins[line - 2] if 2 <= line < len(origins) + 2 else f"line {line}"

    message = _LINE_MENTION.sub(lambda m: origin(int(m.group(1))), error.message)
    return ImportRowError(0, origin(error.line), message, error.kind)


def _as_tuple(kind: type | tuple) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple) -> str:
    names = {
        dict: "an object",
        list: "a list",
        str: "a string",
        int: "an integer",
        float: "a number",
    }
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return repr(value)


# --- what a file says about its models -------------------------------------------------

# The longest metadata text kept (the services' ALGORITHM_METADATA allows 100).
MAX_METADATA_LENGTH = 100
# A Hugging Face Hub organisation (the part of a model id before "/").
_HUB_ORGANISATION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def metadata_text(value: Any) -> str:
    """A file's metadata text as a reader sees it: one line, no control or invisible
    characters (dropped, never refused: metadata does not decide an import), at most
    ``MAX_METADATA_LENGTH`` characters; "" for what is not text."""
    if not isinstance(value, str):
        return ""
    text = " ".join(
        "".join(c if _shown(c) else " " for c in value[: MAX_METADATA_LENGTH * 4]).split()
    )
    return text[:MAX_METADATA_LENGTH].rstrip()


# How files write a model's numeric precision -> the one name the reader's table shows.
_PRECISIONS = {
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "float32": "float32",
    "fp32": "float32",
    "float": "float32",
    "8bit": "8bit",
    "int8": "8bit",
    "4bit": "4bit",
    "int4": "4bit",
}
MAX_PRECISION_LENGTH = 30  # the services' ALGORITHM_METADATA allows 30
# What tools write where they know no precision ("auto": the loader chose it).
_NO_PRECISION = frozenset({"", "auto", "unknown", "none", "null", "default"})


def model_precision(value: Any) -> str:
    """A model's precision as the reader's filter offers it: ``torch.bfloat16`` and
    ``bf16`` are ``bfloat16``, ``int8`` and ``8-bit`` are ``8bit``; a precision of
    another name is kept as written (as :func:`metadata_text`, at most
    ``MAX_PRECISION_LENGTH`` characters); "" for what is not text or names none
    (``auto``)."""
    text = metadata_text(value).removeprefix("torch.")
    key = text.lower().replace("-", "").replace("_", "").replace(" ", "")
    if key in _NO_PRECISION:
        return ""
    return _PRECISIONS.get(key, text[:MAX_PRECISION_LENGTH].rstrip())


_YES = frozenset({"yes", "true", "open", "1"})
_NO = frozenset({"no", "false", "closed", "0"})


def open_weights_flag(value: Any) -> bool | None:
    """Whether a file says a model's weights are published: true or false, or "yes" /
    "no" as text (any case); None where it says neither."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        return True if text in _YES else False if text in _NO else None
    return None


def _shown(character: str) -> bool:
    return control_character_problem(character) is None


def model_organisation(model_id: str) -> str:
    """The organisation of a model id as the Hub and HELM write them (``meta-llama`` of
    ``meta-llama/Llama-2-7b-hf``): who published the model, its family on a board, as
    Every Eval Ever's ``developer`` is; "" when the id names none."""
    owner, slash, _ = model_id.strip().partition("/")
    return owner if slash and _HUB_ORGANISATION.fullmatch(owner) else ""


def missing(value: Any) -> bool:
    return value is _MISSING


def stem(path: str) -> str:
    return PurePosixPath(path).stem


def restrict_metrics(imported: ImportedResults, names: Iterable[str]) -> ImportedResults:
    """Only the results of the metrics ``names`` (a benchmark's); the others are listed in
    the notes. Refused when none of the file's metrics is among them."""
    wanted = set(names)
    parsed = imported.parsed
    keep = [i for i, name in enumerate(parsed.metrics) if name in wanted]
    if len(keep) == len(parsed.metrics):
        return imported
    if not keep:
        raise ResultsImportError(
            [
                import_problem(
                    "",
                    "",
                    f"none of the files' metrics ({', '.join(map(repr, parsed.metrics))}) is "
                    f"one of this benchmark's ({', '.join(map(repr, sorted(wanted)))})",
                )
            ]
        )
    left_out = [name for name in parsed.metrics if name not in wanted]
    mask = np.isin(parsed.metric_codes, keep)
    recode = np.full(len(parsed.metrics), -1, dtype=np.int64)
    recode[keep] = np.arange(len(keep))
    columns = {
        name: _read_only(np.asarray(getattr(parsed, name))[mask])
        for name in ("lines", "dataset_codes", "algorithm_codes", "values", "folds")
    }
    narrowed = replace(
        parsed,
        metrics=tuple(parsed.metrics[i] for i in keep),
        metric_codes=_read_only(recode[np.asarray(parsed.metric_codes)[mask]]),
        **columns,
    )
    # Datasets and algorithms without a kept result go too (no empty submissions).
    narrowed = _compacted(narrowed)
    return replace(
        imported,
        parsed=narrowed,
        metrics=tuple(m for m in imported.metrics if m.name in wanted),
        algorithms=tuple(a for a in imported.algorithms if a.name in narrowed.algorithms),
        notes=(
            *imported.notes,
            f"left out the metrics this benchmark lacks: {', '.join(left_out)}",
        ),
    )


def _compacted(parsed: ParsedResults) -> ParsedResults:
    out = {}
    for codes_name, labels_name in (
        ("dataset_codes", "datasets"),
        ("algorithm_codes", "algorithms"),
    ):
        codes = np.asarray(getattr(parsed, codes_name))
        labels = getattr(parsed, labels_name)
        used = np.unique(codes)
        recode = np.full(len(labels), -1, dtype=np.int64)
        recode[used] = np.arange(len(used))
        out[codes_name] = _read_only(recode[codes])
        out[labels_name] = tuple(labels[i] for i in used.tolist())
    return replace(parsed, **out)


def _read_only(column):
    column = column.copy()
    column.setflags(write=False)
    return column
