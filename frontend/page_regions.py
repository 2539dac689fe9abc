"""Where a page's reader regions are: ``<!--podium:NAME-->...<!--/podium:NAME-->``.

The one reading of the markers, for both answers a signed-in reader can get from the
page cache (frontend/page_cache.py): the identity page with their regions drawn in
(:func:`regions_replaced`), and the gzip one joined from pieces compressed apart (the
spans of :func:`page_spans`). Page text cannot forge a marker (templates escape ``<``),
nor could a forged one show a reader anything but their own regions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

_OPENING = b"<!--podium:"
_END = b"-->"


@dataclass(frozen=True)
class Region:
    """A region's inside, ``body[start:end]``, between its two markers."""

    name: str
    start: int
    end: int


def regions_of(body: bytes) -> tuple[Region, ...]:
    """Every region of ``body``, in page order; an opening marker with no closing one
    after it is not a region."""
    regions = []
    position = 0
    while (opening := body.find(_OPENING, position)) >= 0:
        name_end = body.find(_END, opening)
        if name_end < 0:
            break
        name = body[opening + len(_OPENING) : name_end]
        start = name_end + len(_END)
        closing = b"<!--/podium:" + name + _END
        end = body.find(closing, start)
        if end < 0:
            break
        regions.append(Region(name.decode("ascii", "replace"), start, end))
        position = end + len(closing)
    return tuple(regions)


def page_spans(body: bytes, regions: tuple[Region, ...]) -> tuple[tuple[int, int], ...]:
    """``body`` cut at every region marker: the text before the first region's inside
    (its opening marker included), that inside, the text up to the next inside, and so
    on; region ``i``'s inside is span ``2 * i + 1``."""
    spans = []
    position = 0
    for region in regions:
        spans += [(position, region.start), (region.start, region.end)]
        position = region.end
    spans.append((position, len(body)))
    return tuple(spans)


def drawn_insides(
    regions: tuple[Region, ...], drawings: Mapping[str, str]
) -> dict[int, bytes] | None:
    """The reader's drawing of each region they replace, by its span in
    :func:`page_spans`; None when ``drawings`` names a region the page does not have (a
    template changed)."""
    if not drawings.keys() <= {region.name for region in regions}:
        return None
    return {
        2 * index + 1: drawings[region.name].encode()
        for index, region in enumerate(regions)
        if region.name in drawings
    }


def regions_replaced(body: bytes, drawings: Mapping[str, str]) -> bytes | None:
    """``body`` with the inside of each region named in ``drawings`` replaced; None if
    one is missing."""
    regions = regions_of(body)
    insides = drawn_insides(regions, drawings)
    if insides is None:
        return None
    return spans_replaced(body, page_spans(body, regions), insides)


def spans_replaced(
    body: bytes, spans: tuple[tuple[int, int], ...], insides: Mapping[int, bytes]
) -> bytes:
    """``body`` joined from its ``spans``, those in ``insides`` replaced."""
    view = memoryview(body)  # slices join without a copy of their own
    return b"".join(
        insides[index] if index in insides else view[start:end]
        for index, (start, end) in enumerate(spans)
    )
