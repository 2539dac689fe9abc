"""What the soak records and what it measures from it (bench/suite_soak.py): the samples
its threads take, and pure functions from samples to numbers (tests/bench/test_soak.py)."""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

VISIBLE_WITHIN = 120.0  # seconds: the target for a fault to show


# --- what the load and the monitors record ---------------------------------------------


@dataclass(frozen=True)
class Accepted:
    key: str
    slug: str
    submission_id: int
    at: float  # monotonic time of the 2xx answer


@dataclass(frozen=True)
class Served:
    """One monitor sample of a benchmark's status API."""

    at: float
    slug: str
    version: int | None  # the version served
    newest_version: int | None
    newest_status: str | None
    failure: bool  # `failure` set or the newest version failed


@dataclass(frozen=True)
class PageSample:
    at: float
    status: int  # 0: no answer
    alarms: frozenset[str]


@dataclass(frozen=True)
class OrphanSample:
    at: float
    slug: str
    version: int
    progress: float | None


@dataclass
class Fault:
    kind: str
    started: float
    ended: float = 0.0
    detail: str = ""


@dataclass
class Recorder:
    """Everything the threads record, behind one lock."""

    accepted: list[Accepted] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)  # retried for 10 minutes in vain
    refused: list[str] = field(default_factory=list)  # a 4xx other than 429
    answers: Counter = field(default_factory=Counter)  # (kind, status) -> count
    served: list[Served] = field(default_factory=list)
    pages: list[PageSample] = field(default_factory=list)
    orphans: list[OrphanSample] = field(default_factory=list)
    orphan_checks: int = 0  # times the workers were asked while a version computed
    faults: list[Fault] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, kind: str, status: int) -> None:
        with self.lock:
            self.answers[(kind, status)] += 1


# --- the measures (pure: samples in, numbers out) ---------------------------------------


def served_times(
    accepted: Sequence[Accepted],
    served: Sequence[Served],
    inputs: dict[tuple[str, int], frozenset[int]],
) -> dict[str, float | None]:
    """Each accepted key's first sample time at which the version served contained its
    submission (None: never); ``inputs`` maps (slug, version) to its submission ids."""
    waiting: dict[str, dict[int, Accepted]] = defaultdict(dict)
    for a in accepted:
        waiting[a.slug][a.submission_id] = a
    first: dict[str, float | None] = {a.key: None for a in accepted}
    for sample in sorted(served, key=lambda s: s.at):
        if sample.version is None:
            continue
        ids = inputs.get((sample.slug, sample.version))
        if not ids:
            continue
        pending = waiting[sample.slug]
        for submission_id in ids & pending.keys():
            a = pending.pop(submission_id)
            if a.at <= sample.at:
                first[a.key] = sample.at
            else:  # answered after the sample (the commit came first): served at once
                first[a.key] = a.at
    return first


def recovery_after(
    ended: float,
    accepted: Sequence[Accepted],
    first_served: dict[str, float | None],
    since: float | None = None,
) -> float | None:
    """Seconds from ``ended`` until every input accepted before it (and after ``since``,
    when given) was served (0 when all were already served; None when one never was)."""
    latest = ended
    for a in accepted:
        if a.at > ended or (since is not None and a.at <= since):
            continue
        at = first_served.get(a.key)
        if at is None:
            return None
        latest = max(latest, at)
    return latest - ended


def version_changes(served: Sequence[Served], slug: str) -> list[float]:
    """Times at which a benchmark's served version was first seen to change."""
    changes, last = [], None
    for sample in sorted((s for s in served if s.slug == slug), key=lambda s: s.at):
        if sample.version is not None and sample.version != last:
            if last is not None:
                changes.append(sample.at)
            last = sample.version
    return changes


def staleness(
    slug: str,
    accepted: Sequence[Accepted],
    served: Sequence[Served],
    first_served: dict[str, float | None],
    end: float,
) -> dict[str, float]:
    """The longest wait of an accepted input of ``slug`` until served (``end`` for one
    never served), and the longest stretch with no new served version while an accepted
    input waited (from its acceptance, or the previous new version if later)."""
    changes = version_changes(served, slug)
    longest_wait = longest_stale = 0.0
    for a in accepted:
        if a.slug != slug:
            continue
        at = first_served.get(a.key)
        at = end if at is None else at
        longest_wait = max(longest_wait, at - a.at)
        previous = max((c for c in changes if c < at), default=a.at)
        longest_stale = max(longest_stale, at - max(a.at, previous))
    return {"longest_wait_s": round(longest_wait, 1), "longest_stale_s": round(longest_stale, 1)}


def visibility(
    fault: Fault,
    pages: Sequence[PageSample],
    served: Sequence[Served],
    within: float = VISIBLE_WITHIN,
    until: float | None = None,
) -> dict[str, Any]:
    """Did the fault show within ``within`` s of its start (and before ``until``, the next
    fault's start, so that it is not credited with the next one's alarm)? On the status
    page: an alarm (a ``status-failed`` element's text) absent from the last answer
    before the fault; on the status API: ``failure`` or a failed newest version of a
    benchmark that had neither just before."""
    end = fault.started + within if until is None else min(fault.started + within, until)
    before = [p for p in pages if p.at < fault.started and p.status == 200]
    baseline = before[-1].alarms if before else frozenset()
    window = [p for p in pages if fault.started <= p.at < end]
    page_at = next((p.at for p in window if p.status == 200 and p.alarms - baseline), None)
    shown = next(
        (p.alarms - baseline for p in window if p.status == 200 and p.alarms - baseline), None
    )
    failing_before = {
        slug
        for slug in {s.slug for s in served}
        if (last := [s for s in served if s.slug == slug and s.at < fault.started])
        and last[-1].failure
    }
    api_at = next(
        (
            s.at
            for s in sorted(served, key=lambda s: s.at)
            if fault.started <= s.at < end and s.failure and s.slug not in failing_before
        ),
        None,
    )
    return {
        "window_s": round(end - fault.started, 1),
        "status_page_s": None if page_at is None else round(page_at - fault.started, 1),
        "status_page_shows": sorted(shown or ()),
        "status_page_answers": dict(Counter(str(p.status) for p in window)),
        "status_api_s": None if api_at is None else round(api_at - fault.started, 1),
    }


def orphan_episodes(samples: Sequence[OrphanSample]) -> list[dict[str, Any]]:
    """Runs of samples showing the same computing version with no task alive, one run per
    (slug, version); a run of one sample is a race with a finishing task, not counted."""
    runs: dict[tuple[str, int], list[OrphanSample]] = defaultdict(list)
    for sample in sorted(samples, key=lambda s: s.at):
        runs[(sample.slug, sample.version)].append(sample)
    return [
        {
            "slug": slug,
            "version": version,
            "samples": len(run),
            "seconds": round(run[-1].at - run[0].at, 1),
            "progress": run[-1].progress,
        }
        for (slug, version), run in runs.items()
        if len(run) >= 2
    ]


STATUS_FAILED = re.compile(r'class="status-failed"[^>]*>(.*?)</', re.S)
TABLE_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S)
ROW_NAME = re.compile(r'<th scope="row">(?:<a [^>]*>)?([^<]*)<', re.S)


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text)).strip()


def page_alarms(html: str) -> frozenset[str]:
    """The texts the staff status page marks ``status-failed`` (warnings, failing checks,
    silent workers), digits blanked so that a growing age is the same alarm; one in a
    table row is named by the row (the check, the worker)."""
    alarms = set()
    for row in TABLE_ROW.findall(html):
        name = ROW_NAME.search(row)
        for text in STATUS_FAILED.findall(row):
            alarms.add(f"{name.group(1).strip() if name else '?'}: {_plain(text)}")
    outside = TABLE_ROW.sub("", html)
    alarms.update(_plain(t) for t in STATUS_FAILED.findall(outside))
    return frozenset(a for a in alarms if a)


TRACEBACK = "Traceback (most recent call last):"
# What opens a further traceback of the same record: a chained exception, or the
# traceback billiard embeds in a pool process's exception (between triple quotes).
CHAINED = (
    "The above exception was the direct cause",
    "During handling of the above exception",
    '"""',
)


def tracebacks_logged(log: str) -> int:
    """Log records that carry a traceback; a chained exception's further tracebacks
    belong to the same record (the count of issue 41 took each for one)."""
    count, previous = 0, ""
    for line in log.splitlines():
        if line.startswith(TRACEBACK) and not previous.startswith(CHAINED):
            count += 1
        if line.strip():
            previous = line
    return count
