"""The quick start at the top of /api/docs/: a token, a submission, the results.

Every snippet is meant to be copied and run as it is, against the demo data of
`make dev` (Demšar's benchmark is open, so a submission counts at once);
``tests/api/test_quickstart.py`` runs each against a live server. ``{base}`` is the
server's own address.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Snippet:
    key: str  # the data-example attribute the test finds it by
    language: str  # "shell" or "python"
    code: str


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    snippets: tuple[Snippet, ...]


PYTHON_SETUP = """import os
import requests

BASE = os.environ.get("PODIUM_URL", "{base}")
TOKEN = {{"Authorization": "Token " + os.environ["PODIUM_TOKEN"]}}
"""

STEPS = (
    Step(
        title="1. Get a token",
        text="Sign up at {base}/account/signup/, then create a personal token at "
        "{base}/account/tokens/ (it is shown once). Scripts send it in the "
        "Authorization header; reading needs no token.",
        snippets=(
            Snippet(
                "token",
                "shell",
                'export PODIUM_URL="{base}"\n'
                "export PODIUM_TOKEN=pod_...   # the token you copied\n",
            ),
        ),
    ),
    Step(
        title="2. Submit scores: as JSON, or as a CSV file",
        text="One algorithm's scores as JSON, or a results file with any number of "
        "algorithms. Scripts should always send an Idempotency-Key (any name unique to "
        "this submission): when the connection drops or the server answers 503 (the "
        "database is briefly away; wait the Retry-After seconds), send the same request "
        "with the same key again. It stores nothing twice and answers 200 with the "
        "stored submission. Dataset names "
        "must be the benchmark's (a near miss such as 'irs' is refused with \"did you "
        "mean 'iris'?\"); add `allow_new_datasets` to add new ones on purpose.",
        snippets=(
            Snippet(
                "submit-json-curl",
                "shell",
                'curl -sS -X POST "$PODIUM_URL/api/benchmarks/demsar-2006/submissions/create/" \\\n'
                '     -H "Authorization: Token $PODIUM_TOKEN" \\\n'
                '     -H "Idempotency-Key: my-classifier-run-1" \\\n'
                '     -H "Content-Type: application/json" \\\n'
                """     -d '{{"algorithm": "my-classifier", "note": "default settings",
          "scores": [{{"dataset": "iris", "value": 0.97}},
                     {{"dataset": "wine", "value": 0.95}}]}}'
""",
            ),
            Snippet(
                "upload-csv-curl",
                "shell",
                "cat > results.csv <<'EOF'\n"
                "dataset,algorithm,score\n"
                "iris,my-forest,0.96\n"
                "wine,my-forest,0.94\n"
                "EOF\n"
                'curl -sS -X POST "$PODIUM_URL/api/benchmarks/demsar-2006/submissions/upload/" \\\n'
                '     -H "Authorization: Token $PODIUM_TOKEN" \\\n'
                '     -H "Idempotency-Key: my-forest-file-1" \\\n'
                "     -F file=@results.csv\n",
            ),
            Snippet(
                "submit-python",
                "python",
                PYTHON_SETUP
                + """
# JSON: one algorithm's scores.
response = requests.post(
    BASE + "/api/benchmarks/demsar-2006/submissions/create/",
    headers={{**TOKEN, "Idempotency-Key": "my-classifier-run-1"}},
    json={{
        "algorithm": "my-classifier",
        "note": "default settings",
        "scores": [{{"dataset": "iris", "value": 0.97}}, {{"dataset": "wine", "value": 0.95}}],
    }},
    timeout=60,
)
print(response.status_code, response.json())

# A CSV file: any number of algorithms.
csv_text = "dataset,algorithm,score\\niris,my-forest,0.96\\nwine,my-forest,0.94\\n"
response = requests.post(
    BASE + "/api/benchmarks/demsar-2006/submissions/upload/",
    headers={{**TOKEN, "Idempotency-Key": "my-forest-file-1"}},
    files={{"file": ("results.csv", csv_text, "text/csv")}},
    timeout=60,
)
print(response.status_code, response.json())
""",
            ),
        ),
    ),
    Step(
        title="3. Read the results",
        text="Every accepted change is recomputed in the background; the latest ready "
        "snapshot is always served, and `computing` says whether a newer one is on its "
        "way. Its board holds every estimator's probabilities and the rankings; the tests "
        "and pairwise tables are further sections (every field: {base}/api/contract/).",
        snippets=(
            Snippet(
                "snapshot-curl",
                "shell",
                'curl -sS "$PODIUM_URL/api/benchmarks/demsar-2006/snapshots/latest/"\n',
            ),
            Snippet(
                "snapshot-python",
                "python",
                """import os
import requests

BASE = os.environ.get("PODIUM_URL", "{base}")
snapshot = requests.get(BASE + "/api/benchmarks/demsar-2006/snapshots/latest/", timeout=60).json()
board = snapshot["board"]  # the other sections are at the URLs in snapshot["sections"]
best = board["recommended"]
estimate = next(e for e in board["estimators"] if e["key"] == best)
print("version", snapshot["version"], "ranked by", best)
ranked = sorted(zip(board["input"]["algorithms"], estimate["p"]), key=lambda pair: -pair[1])
for algorithm, p in ranked:
    print(f"{{algorithm:20}} {{p:.3f}}")
""",
            ),
        ),
    ),
)


def quickstart(base: str) -> list[dict]:
    """The steps with ``{base}`` filled in, ready for the docs template."""
    return [
        {
            "title": step.title,
            "text": step.text.format(base=base),
            "snippets": [
                {"key": s.key, "language": s.language, "code": s.code.format(base=base)}
                for s in step.snippets
            ],
        }
        for step in STEPS
    ]
