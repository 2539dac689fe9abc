#!/usr/bin/env bash
# The core tests again as other CPUs would run them: numpy's AVX-512/AVX2/FMA3 loops
# switched off (the SSE/AVX paths an older CPU takes), then another OpenBLAS kernel.
# Floats differ in their last bits between these; the references must hold on all
# (tests/core/references.py). Used by `make test-cpu-variants` and CI.
# Every variant runs even when one fails (a failure in one says nothing of the other);
# a summary line per variant follows, and the exit status is non-zero if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}

simd=$("$BIN/python" - <<'PY'
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

wide = ("AVX2", "FMA3", "AVX512")
print(" ".join(f for f in __cpu_dispatch__ if f.startswith(wide) and __cpu_features__.get(f)))
PY
)

summary=()
failed=0
run() {  # description, then env assignments
  local label=$1 status=0
  echo "cpu_variants: tests/core with $label" >&2
  shift
  env "$@" "$BIN/pytest" tests/core -q -p no:cacheprovider || status=$?
  if [ "$status" -eq 0 ]; then
    summary+=("cpu_variants: passed: $label")
  else
    summary+=("cpu_variants: FAILED (pytest exit $status): $label")
    failed=1
  fi
}

if [ -n "$simd" ]; then
  run "NPY_DISABLE_CPU_FEATURES=\"$simd\"" NPY_DISABLE_CPU_FEATURES="$simd"
else
  echo "cpu_variants: this CPU has none of AVX2, FMA3, AVX-512: numpy runs its narrow loops already" >&2
fi
run "OPENBLAS_CORETYPE=Prescott" OPENBLAS_CORETYPE=Prescott

printf '%s\n' "${summary[@]}" >&2
exit "$failed"
