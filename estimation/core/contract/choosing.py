"""One section restricted to chosen algorithms (the API's ``algorithms=`` parameter)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from estimation.core.contract.basics import NotApplicable, pair_index
from estimation.core.contract.sections import (
    AdvisorSection,
    DatasetScoresSection,
    DatasetTests,
    NemenyiSection,
    PairNote,
    PairwiseScope,
    PracticalSection,
    RankMatrixSection,
    StandardErrorTable,
    TukeyTable,
    WilcoxonSection,
    WinsSection,
    WithinDatasetSection,
)

# --- one section for chosen algorithms ---------------------------------------------------


def _take(values: Sequence[Any], keep: Sequence[int]) -> tuple[Any, ...]:
    return tuple(values[i] for i in keep)


def _pair_positions(keep: Sequence[int], m: int) -> list[int]:
    """Old pair positions of the kept pairs, in the new pair order (``keep`` ascending)."""
    return [pair_index(a, b, m) for x, a in enumerate(keep) for b in keep[x + 1 :]]


def _groups(
    groups: tuple[tuple[int, ...], ...] | NotApplicable, keep: Sequence[int]
) -> tuple[tuple[int, ...], ...] | NotApplicable:
    if isinstance(groups, NotApplicable):  # not computed at full size: still not shown
        return groups
    new = {old: k for k, old in enumerate(keep)}
    out: list[tuple[int, ...]] = []
    for group in groups:
        kept = tuple(new[i] for i in group if i in new)
        if kept and kept not in out:
            out.append(kept)
    return tuple(out)


def restrict(section: Any, keep: Sequence[int]) -> Any:
    """``section`` for the algorithms at indices ``keep`` only (in the section's order).

    Every value is the stored one: a pair's p-value, a group's members, a dataset's ranks.
    A :class:`NotApplicable` section stays as it is.
    """
    if isinstance(section, NotApplicable):
        return section
    keep = sorted(set(keep))
    m = len(section.algorithms)
    names = _take(section.algorithms, keep)
    if isinstance(section, WinsSection):
        return WinsSection(algorithms=names, wins=section.wins.restricted(keep, m))
    if isinstance(section, NemenyiSection):
        return NemenyiSection(
            algorithms=names,
            pvalues=section.pvalues.restricted(keep, m),
            groups=_groups(section.groups, keep),
        )
    if isinstance(section, WilcoxonSection):
        new = {old: k for k, old in enumerate(keep)}
        return WilcoxonSection(
            algorithms=names,
            pvalues=section.pvalues.restricted(keep, m),
            pvalues_raw=section.pvalues_raw.restricted(keep, m),
            rank_biserial=section.rank_biserial.restricted(keep, m),
            groups=_groups(section.groups, keep),
            not_applicable_pairs=tuple(
                PairNote(a=new[p.a], b=new[p.b], reason=p.reason)
                for p in section.not_applicable_pairs
                if p.a in new and p.b in new
            ),
        )
    if isinstance(section, RankMatrixSection):
        return RankMatrixSection(
            algorithms=names,
            datasets=section.datasets,
            ranks=tuple(_take(row, keep) for row in section.ranks),
        )
    if isinstance(section, DatasetScoresSection):
        return DatasetScoresSection(
            algorithms=names,
            datasets=section.datasets,
            values=tuple(_take(row, keep) for row in section.values),
        )
    if isinstance(section, WithinDatasetSection):
        positions = _pair_positions(keep, m)

        def table(tukey: TukeyTable | NotApplicable | None) -> TukeyTable | NotApplicable | None:
            if not isinstance(tukey, TukeyTable):
                return tukey
            return TukeyTable(
                **{
                    f.name: _take(values, positions) if values else values
                    for f in fields(TukeyTable)
                    for values in [getattr(tukey, f.name)]
                }
            )

        def by_errors(errors: StandardErrorTable | None) -> StandardErrorTable | None:
            if errors is None:
                return None
            return StandardErrorTable(
                diff=_take(errors.diff, positions),
                se=_take(errors.se, positions),
                z=_take(errors.z, positions),
                pvalue=_take(errors.pvalue, positions),
                significant=_take(errors.significant, positions),
                correction=errors.correction,
            )

        return WithinDatasetSection(
            algorithms=names,
            datasets=tuple(
                DatasetTests(
                    dataset=d.dataset,
                    n_folds=d.n_folds,
                    significance_rank=_take(d.significance_rank, keep),
                    tukey=table(d.tukey),
                    anova=d.anova,
                    standard_errors=by_errors(d.standard_errors),
                )
                for d in section.datasets
            ),
            note=section.note,
        )
    if isinstance(section, AdvisorSection | PairwiseScope):
        return section  # about the estimators, or the board's scope, O(m): served whole
    if isinstance(section, PracticalSection):
        return PracticalSection(
            algorithms=names,
            rope=section.rope,
            better=section.better.restricted(keep, m),
            equivalent=section.equivalent.restricted(keep, m),
            n_datasets=section.n_datasets.restricted(keep, m),
            n_samples=section.n_samples,
            seed=section.seed,
            decision_level=section.decision_level,
            notes=section.notes,
        )
    raise TypeError(f"cannot restrict a {type(section).__name__}")


MAX_CHOSEN_ALGORITHMS = 1000


class UnknownAlgorithmsError(ValueError):
    """Names chosen by :func:`choose_algorithms` that the snapshot does not have."""


def choose_algorithms(
    algorithms: Sequence[str],
    *,
    names: Sequence[str] | None = None,
    top: Sequence[str] | None = None,
) -> list[int]:
    """Indices into ``algorithms`` of the chosen ``names`` (every one must exist, at most
    :data:`MAX_CHOSEN_ALGORITHMS`), or of ``top`` (already the chosen names, e.g.
    :meth:`Board.top`). A ``ValueError`` names the parameter and the unknown names."""
    if names is not None and top is not None:
        raise ValueError("algorithms and top: give one or the other")
    chosen = list(names if names is not None else top or [])
    if names is not None:
        if not chosen:
            raise ValueError("algorithms: name at least one algorithm")
        if len(chosen) > MAX_CHOSEN_ALGORITHMS:
            raise ValueError(f"algorithms: at most {MAX_CHOSEN_ALGORITHMS} names")
    position = {name: i for i, name in enumerate(algorithms)}
    unknown = [name for name in chosen if name not in position]
    if unknown:
        shown = ", ".join(repr(n[:100]) for n in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise UnknownAlgorithmsError(f"algorithms: not in this snapshot: {shown}{more}")
    return sorted({position[name] for name in chosen})
