"""The quick start at the top of /api/docs/: a token, a submission, your algorithm ranked.

Every snippet is meant to be copied and run as it is, against the demo data of
`make dev`: Demšar's benchmark is open, so a submission counts at once, and the
snippets give a score for each of its 14 datasets, so the algorithms are ranked (one with
results on fewer than half of them is not ranked). The Python snippets use
the standard library only, so they run in any Python, the venv of `make dev` included.
``tests/api/test_quickstart.py`` runs each against a live server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

SLUG = "demsar-2006"
# AUC on each dataset of the Demšar demo: one algorithm sent as JSON, one in a CSV file.
MY_CLASSIFIER = (
    ("adult (sample)", 0.804),
    ("breast cancer", 0.605),
    ("breast cancer wisconsin", 0.977),
    ("cmc", 0.667),
    ("ionosphere", 0.904),
    ("iris", 0.942),
    ("liver disorders", 0.691),
    ("lung cancer", 0.631),
    ("lymphography", 0.881),
    ("mushroom", 1.0),
    ("primary tumor", 0.971),
    ("rheum", 0.675),
    ("voting", 0.987),
    ("wine", 0.984),
)
MY_FOREST = (
    ("adult (sample)", 0.773),
    ("breast cancer", 0.585),
    ("breast cancer wisconsin", 0.963),
    ("cmc", 0.648),
    ("ionosphere", 0.887),
    ("iris", 0.926),
    ("liver disorders", 0.654),
    ("lung cancer", 0.587),
    ("lymphography", 0.837),
    ("mushroom", 0.998),
    ("primary tumor", 0.955),
    ("rheum", 0.64),
    ("voting", 0.974),
    ("wine", 0.961),
)
ALGORITHMS = ("my-classifier", "my-forest")


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


# Templates: _filled replaces {base}, {slug}, {submission}, {csv} and {mine}.
SUBMIT_JSON_CURL = r"""curl -sS -X POST "$PODIUM_URL/api/benchmarks/{slug}/submissions/create/" \
     -H "Authorization: Token $PODIUM_TOKEN" \
     -H "Idempotency-Key: my-classifier-run-1" \
     -H "Content-Type: application/json" \
     -d @- <<'EOF'
{
{submission}
}
EOF
"""

UPLOAD_CSV_CURL = r"""cat > results.csv <<'EOF'
{csv}EOF
curl -sS -X POST "$PODIUM_URL/api/benchmarks/{slug}/submissions/upload/" \
     -H "Authorization: Token $PODIUM_TOKEN" \
     -H "Idempotency-Key: my-forest-file-1" \
     -F file=@results.csv
"""

SUBMIT_PYTHON = r'''import json
import os
import urllib.error
import urllib.request

BASE = os.environ.get("PODIUM_URL", "{base}")
TOKEN = "Token " + os.environ["PODIUM_TOKEN"]


def post(action, body, content_type, key):
    """POST and return (status, answer); a refusal's answer lists every problem."""
    request = urllib.request.Request(
        BASE + "/api/benchmarks/{slug}/submissions/" + action,
        data=body,
        method="POST",
        headers={"Authorization": TOKEN, "Idempotency-Key": key, "Content-Type": content_type},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


# JSON: one algorithm's scores.
submission = {
{submission},
}
body = json.dumps(submission).encode()
print(*post("create/", body, "application/json", "my-classifier-run-1"))

# A CSV file: any number of algorithms.
csv_text = """{csv}"""
body = (
    "--podium-boundary\r\n"
    'Content-Disposition: form-data; name="file"; filename="results.csv"\r\n'
    "Content-Type: text/csv\r\n\r\n" + csv_text + "\r\n--podium-boundary--\r\n"
).encode()
form = "multipart/form-data; boundary=podium-boundary"
print(*post("upload/", body, form, "my-forest-file-1"))
'''

SNAPSHOT_CURL = 'curl -sS "$PODIUM_URL/api/benchmarks/{slug}/snapshots/latest/"\n'

SNAPSHOT_PYTHON = """import json
import os
import time
import urllib.request

BASE = os.environ.get("PODIUM_URL", "{base}")
MINE = {mine}  # the algorithms you submitted

# The recompute takes a few seconds: wait for the version that includes them.
for attempt in range(120):
    url = BASE + "/api/benchmarks/{slug}/snapshots/latest/"
    with urllib.request.urlopen(url, timeout=60) as response:
        snapshot = json.load(response)
    board = snapshot["board"]  # the other sections are at the URLs in snapshot["sections"]
    if MINE <= set(board["input"]["algorithms"]):
        break
    time.sleep(1)
else:
    raise SystemExit("not ranked yet: " + " ".join(board["notes"]))
best = board["recommended"]
estimate = next(e for e in board["estimators"] if e["key"] == best)
print("version", snapshot["version"], "ranked by", best)
# The leaderboard's order: P(win), then the better mean rank, then the name.
names, mean_rank = board["input"]["algorithms"], board["mean_rank"]
order = sorted(
    range(len(names)), key=lambda i: (-round(estimate["p"][i], 12), mean_rank[i], names[i])
)
for i in order:
    print(f"{names[i]:20} {estimate['p'][i]:.3f}")
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
                'export PODIUM_URL="{base}"\nexport PODIUM_TOKEN=pod_...   # the token you copied\n',
            ),
        ),
    ),
    Step(
        title="2. Submit scores: as JSON, or as a CSV file",
        text="One algorithm's scores as JSON, or a results file with any number of "
        "algorithms; here, an AUC on each of the benchmark's 14 datasets (an algorithm "
        "with results on fewer than half of them is not ranked). Scripts "
        "should always send an Idempotency-Key (any name unique to this submission): "
        "when the connection drops or the server answers 503 (the database is briefly "
        "away; wait the Retry-After seconds), send the same request with the same key "
        "again. It stores nothing twice and answers 200 with the stored submission. "
        "Dataset names must be the benchmark's (a near miss such as 'irs' is refused "
        "with \"did you mean 'iris'?\"); add `allow_new_datasets` to add new ones on "
        "purpose. The Python snippets need nothing but the standard library.",
        snippets=(
            Snippet("submit-json-curl", "shell", SUBMIT_JSON_CURL),
            Snippet("upload-csv-curl", "shell", UPLOAD_CSV_CURL),
            Snippet("submit-python", "python", SUBMIT_PYTHON),
        ),
    ),
    Step(
        title="3. Read the results",
        text="Every accepted change is recomputed in the background (a few seconds here); "
        "the latest ready snapshot is always served, and `computing` says whether a newer "
        "one is on its way. Its board holds every estimator's probabilities and the "
        "rankings; the tests and pairwise tables are further sections (every field: "
        "{base}/api/contract/). The Python snippet waits until your algorithms are in "
        "the board and prints it in the leaderboard's order; the leaderboard is at {base}/b/{slug}/.",
        snippets=(
            Snippet("snapshot-curl", "shell", SNAPSHOT_CURL),
            Snippet("snapshot-python", "python", SNAPSHOT_PYTHON),
        ),
    ),
)


def _submission_fields() -> str:
    """The JSON submission's fields, indented alike in the curl and the Python snippet."""
    scores = ",\n".join(
        f"        {json.dumps({'dataset': dataset, 'value': value})}"
        for dataset, value in MY_CLASSIFIER
    )
    return (
        '    "algorithm": "my-classifier",\n'
        '    "note": "default settings",\n'
        f'    "scores": [\n{scores}\n    ]'
    )


def _filled(text: str, base: str) -> str:
    """Plain replacement, not str.format: the snippets are full of braces."""
    values = {
        "{base}": base,
        "{slug}": SLUG,
        "{submission}": _submission_fields(),
        "{csv}": "dataset,algorithm,score\n"
        + "".join(f"{dataset},my-forest,{value}\n" for dataset, value in MY_FOREST),
        "{mine}": "{" + ", ".join(json.dumps(name) for name in ALGORITHMS) + "}",
    }
    for token, value in values.items():
        text = text.replace(token, value)
    return text


def quickstart(base: str) -> list[dict]:
    """The steps filled in for the server at ``base``, ready for the docs template."""
    return [
        {
            "title": step.title,
            "text": _filled(step.text, base),
            "snippets": [
                {"key": s.key, "language": s.language, "code": _filled(s.code, base)}
                for s in step.snippets
            ],
        }
        for step in STEPS
    ]
