"""Performance benchmarks of Podium against peer libraries and against its own targets.

Run ``python -m bench <suite>`` (``python -m bench --help`` lists the suites). These are
measurements, not tests: nothing here asserts; every suite prints a markdown table.
"""
