"""The CRC-32 of a signed-in reader's gzip member is carried over the spans every reader
shares (config/compression.py: ``crc32_shift``), not computed again: it must be the CRC
of the whole body, whatever the spans and the reader's text."""

from __future__ import annotations

import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from config.compression import crc32_shift, crc32_shifted


@settings(max_examples=300, derandomize=True)
@given(st.lists(st.binary(max_size=3000), min_size=1, max_size=6), st.integers(0, 2**32 - 1))
def test_a_crc_carried_over_spans_is_the_crc_of_their_join(spans, start):
    carried = start
    for span in spans:
        carried = crc32_shifted(carried, crc32_shift(len(span))) ^ zlib.crc32(span)
    assert carried == zlib.crc32(b"".join(spans), start)


def test_nothing_leaves_a_crc_as_it_is():
    assert crc32_shifted(0xDEADBEEF, crc32_shift(0)) ^ zlib.crc32(b"") == 0xDEADBEEF
