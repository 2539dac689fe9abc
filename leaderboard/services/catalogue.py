"""Renaming and deleting a benchmark's datasets and algorithms; describing a dataset."""

from __future__ import annotations

from django.db import transaction

from leaderboard.confusables import lookalike_message, lookalikes_new
from leaderboard.ingest.results_csv import control_character_problem
from leaderboard.models import (
    Algorithm,
    Benchmark,
    Dataset,
    ScorePack,
    Submission,
)
from leaderboard.selectors import (
    algorithm_names_public,
    dataset_names_public,
)
from leaderboard.services.access import require_maintainer
from leaderboard.services.entries import MAX_NAME_LENGTH
from leaderboard.services.errors import NameConflict, NameNotFound, Problem, ValidationFailed
from leaderboard.services.scores import dataset_scores_delete
from leaderboard.services.text import text_problem, url_problem

# --- renaming and deleting datasets and algorithms -------------------------------------
# Published results name their datasets and algorithms, so only names that no accepted
# result uses may change: a typo in a pending submission, or a name a rejected one left.

_CATALOGUE: dict[str, type[Dataset] | type[Algorithm]] = {
    "dataset": Dataset,
    "algorithm": Algorithm,
}


def _catalogue_entry_for_change(*, benchmark: Benchmark, user, kind: str, name: str):
    require_maintainer(user=user, benchmark=benchmark)
    model = _CATALOGUE[kind]
    entry = model.objects.select_for_update().filter(benchmark=benchmark, name=name).first()
    if entry is None:
        raise NameNotFound([Problem(f"no {kind} named {name!r} in this benchmark", "name")])
    if isinstance(entry, Dataset):
        accepted = ScorePack.objects.filter(
            datasets__has=entry.pk, submission__status=Submission.Status.ACCEPTED
        ).exists()
    else:
        accepted = entry.submissions.filter(status=Submission.Status.ACCEPTED).exists()
    if accepted:
        raise NameConflict(
            [
                Problem(
                    f"{kind} {name!r} is used by accepted results, which are public: "
                    "reject or withdraw them first",
                    "name",
                )
            ]
        )
    return entry


def _name_problems(kind: str, name: str) -> list[Problem]:
    """The rules on a dataset's or algorithm's name (``kind``), as a new name."""
    if not name:
        return [Problem(f"the {kind} needs a name", "new_name")]
    if len(name) > MAX_NAME_LENGTH:
        return [Problem(f"{kind} name is longer than {MAX_NAME_LENGTH} characters", "new_name")]
    if problem := control_character_problem(name):
        return [Problem(f"{kind} name {problem}", "new_name")]
    return []


@transaction.atomic
def catalogue_entry_rename(
    *, benchmark: Benchmark, user, kind: str, name: str, new_name: str
) -> Dataset | Algorithm:
    """Rename a dataset or algorithm (``kind``) that no accepted result uses (maintainers)."""
    entry = _catalogue_entry_for_change(benchmark=benchmark, user=user, kind=kind, name=name)
    new_name = new_name.strip()
    problems = _name_problems(kind, new_name)
    public = (dataset_names_public if kind == "dataset" else algorithm_names_public)(
        benchmark=benchmark
    )
    problems += [
        Problem(lookalike_message(kind, new_name, original), "new_name")
        for _, original in lookalikes_new(
            kind=kind, names=[new_name], listed=set(public) - {entry.name}
        )
    ]
    if problems:
        raise ValidationFailed(problems)
    if type(entry).objects.filter(benchmark=benchmark, name=new_name).exists():
        raise NameConflict([Problem(f"a {kind} named {new_name!r} already exists", "new_name")])
    entry.name = new_name
    entry.save(update_fields=["name"])
    return entry


@transaction.atomic
def catalogue_entry_delete(*, benchmark: Benchmark, user, kind: str, name: str) -> None:
    """Delete a dataset or algorithm that no accepted or pending result uses (maintainers).

    What rejected or withdrawn submissions stored for it goes with it.
    """
    entry = _catalogue_entry_for_change(benchmark=benchmark, user=user, kind=kind, name=name)
    if kind == "dataset":
        pending = ScorePack.objects.filter(
            datasets__has=entry.pk, submission__status=Submission.Status.PENDING
        )
    else:
        pending = entry.submissions.filter(status=Submission.Status.PENDING)
    n_pending = pending.values("submission_id" if kind == "dataset" else "pk").distinct().count()
    if n_pending:
        raise NameConflict(
            [
                Problem(
                    f"{n_pending} pending submission{'s' if n_pending > 1 else ''} use "
                    f"{kind} {name!r}: accept or reject {'them' if n_pending > 1 else 'it'} first",
                    "name",
                )
            ]
        )
    if kind == "dataset":
        dataset_scores_delete(dataset=entry)
    else:
        entry.submissions.all().delete()  # rejected or withdrawn only, checked above
    entry.delete()


# --- describing a dataset -----------------------------------------------------------------

MAX_DATASET_DESCRIPTION = 2_000  # a paragraph for readers, shown in tables
MAX_DATASET_URL = int(Dataset._meta.get_field("url").max_length or 0)
MAX_DATASET_DOMAIN = int(Dataset._meta.get_field("domain").max_length or 0)


def dataset_describe_problems(*, description: str, url: str, domain: str) -> list[Problem]:
    """Every problem of a dataset's description, URL and domain at once."""
    problems = []
    if problem := text_problem(description, prose=True, max_length=MAX_DATASET_DESCRIPTION):
        problems.append(Problem(f"description {problem}", "description"))
    if url and len(url) > MAX_DATASET_URL:
        problems.append(Problem(f"URL is longer than {MAX_DATASET_URL} characters", "url"))
    elif url and (problem := url_problem(url)):
        problems.append(Problem(f"URL {problem}", "url"))
    if problem := text_problem(domain, max_length=MAX_DATASET_DOMAIN):
        problems.append(Problem(f"domain {problem}", "domain"))
    return problems


@transaction.atomic
def dataset_describe(
    *, benchmark: Benchmark, user, name: str, description: str, url: str, domain: str
) -> Dataset:
    """Set what readers are told about a dataset: a description, a link (http or https
    only) and its domain (maintainers). Empty texts clear them."""
    require_maintainer(user=user, benchmark=benchmark)
    dataset = Dataset.objects.select_for_update().filter(benchmark=benchmark, name=name).first()
    if dataset is None:
        raise NameNotFound([Problem(f"no dataset named {name!r} in this benchmark", "name")])
    description, url, domain = description.strip(), url.strip(), domain.strip()
    if problems := dataset_describe_problems(description=description, url=url, domain=domain):
        raise ValidationFailed(problems)
    dataset.description, dataset.url, dataset.domain = description, url, domain
    dataset.save(update_fields=["description", "url", "domain"])
    return dataset
