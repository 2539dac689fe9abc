"""The advisor bench (``python -m bench advisor``) runs against today's engine and reports
each part it names as a multiple of the bootstrap."""

from bench import suite_advisor as advisor
from bench.common import Options


def test_quick_run_reports_every_part_against_the_bootstrap():
    report = advisor.run(Options(quick=True))
    rows = [line.strip("|").split(" | ") for line in report.splitlines() if line.startswith("| ")]
    ratio = {cells[0].strip(): cells[2].strip() for cells in rows[1:]}  # after the header
    assert next(iter(ratio)) == "bootstrap stage (B = 1000)"
    assert ratio["bootstrap stage (B = 1000)"] == "1.00x"
    timed = [f"`advise`, S = {s}" for s in advisor.QUICK_SIMULATIONS]
    timed += [label for label in ratio if label.startswith("`analyze_advisor`")]
    assert len(timed) == len(advisor.QUICK_SIMULATIONS) + 1
    # measured parts are positive multiples; the line's intercept may be noise-signed
    assert all(float(ratio[label].removesuffix("x")) > 0 for label in timed)
    assert any("intercept" in label for label in ratio)
