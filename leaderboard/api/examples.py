"""A request and a response example for every API operation, by operation id.

``leaderboard.api.schema.AutoSchema.get_examples`` hands them to drf-spectacular, so they
appear in /api/schema/ and on /api/docs/; ``tests/api/test_quickstart.py`` checks that
every operation has them. The values are trimmed copies of real responses of the demo
benchmarks (lists cut to one or two items); ``tests/api/test_docs_examples.py`` compares
their shape with real responses. A paginated list's example is one item: drf-spectacular
wraps it in the page (``LimitOffsetPagination.get_paginated_response_schema``).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from estimation.core.analysis import ENGINE_VERSION
from estimation.core.contract import SECTION_NAMES

TIME = "2026-01-15T10:30:00Z"
SLUG = "demsar-2006"

BENCHMARK_SUMMARY = {
    "slug": SLUG,
    "title": "Demšar 2006: C4.5 variants (AUC)",
    "description": "AUC of four variants of C4.5 on 14 UCI datasets.",
    "visibility": "public",
    "submission_policy": "open",
    "ranking_only": False,
    "n_algorithms": 4,
    "n_datasets": 14,
    "n_metrics": 1,
    "n_accepted": 4,
    "updated_at": TIME,
}
BENCHMARK_DETAIL = {
    "slug": SLUG,
    "title": "Demšar 2006: C4.5 variants (AUC)",
    "description": "AUC of four variants of C4.5 on 14 UCI datasets.",
    "citation": "J. Demšar. Statistical Comparisons of Classifiers over Multiple Data Sets. "
    "JMLR 7:1-30, 2006.",
    "licence": "JMLR, free access",
    "visibility": "public",
    "submission_policy": "open",
    "allow_new_datasets": True,
    "allow_new_algorithms": True,
    "missing_policy": "complete",
    "incomplete_submissions": "exclude",
    "min_coverage": 0.5,
    "tie_tolerance": 0.0,
    "top_k": 3,
    "alpha": 0.05,
    "correction": "holm",
    "default_estimator": "loo_kl",
    "bootstrap_size": 1000,
    "seed": 0,
    "ranking_only": False,
    "control_algorithm": "",
    "metrics": [
        {
            "name": "AUC",
            "direction": "higher",
            "is_primary": True,
            "description": "",
            "min_value": 0.0,
            "max_value": 1.0,
            "unit": "",
            "rope": None,
        }
    ],
    "maintainers": ["demo-maintainer"],
    "is_maintainer": False,
    "n_algorithms": 4,
    "n_datasets": 14,
    "n_accepted": 4,
    "n_pending": 0,
    "created_at": TIME,
    "updated_at": TIME,
}
SUBMISSION = {
    "id": 42,
    "benchmark": SLUG,
    "algorithm": "my-classifier",
    "status": "accepted",
    "source": "api",
    "note": "5x2 CV, default settings",
    "submitter": "alice",
    "created_at": TIME,
    "decided_at": TIME,
    "decided_by": "alice",
    "decision_note": "",
    "n_scores": 2,
}
# The create answer also says what empty cells do (null: none empty).
SUBMISSION_CREATED = {**SUBMISSION, "incomplete_note": None}
SUBMISSION_DETAIL = {
    **SUBMISSION,
    "scores": [
        {"dataset": "iris", "metric": "AUC", "fold": None, "value": 0.97},
        {"dataset": "wine", "metric": "AUC", "fold": None, "value": 0.95},
    ],
}
SNAPSHOT_SUMMARY = {
    "version": 7,
    "status": "ready",
    "stage": "",
    "progress": 1.0,
    "error": "",
    "fingerprint": "be8dc55133b23a553904ccbdc3c212a207c9efdf9f7a8d4ed6c5f0df46f13093",
    "engine_version": ENGINE_VERSION,
    "schema_version": 1,
    "created_at": TIME,
    "finished_at": TIME,
}
ALGORITHMS = ["C4.5", "C4.5+cf", "C4.5+m", "C4.5+m+cf"]
SECTION_URL = "https://podium.example.org/api/benchmarks/demsar-2006/snapshots/7/sections/"
SNAPSHOT = {
    "benchmark": SLUG,
    "metric": "AUC",
    **SNAPSHOT_SUMMARY,
    "timings": {
        "load_s": 0.05,
        "analyse_s": 0.12,
        "uncertainty_s": 0.47,
        "advisor_s": 0.88,
        "stages": {
            "ranking": 0.003,
            "tests": 0.016,
            "estimators": 0.047,
            "within_dataset": 0.008,
            "bootstrap": 0.324,
            "evaluation": 0.14,
        },
    },
    # Trimmed: every field of the board is in /api/contract/.
    "board": {
        "schema_version": 1,
        "input": {"kind": "score", "direction": "higher", "algorithms": ALGORITHMS},
        "recommended": "loo_kl",
        "estimators": [{"key": "loo_kl", "p": [0.161, 0.208, 0.327, 0.304]}],
        "mean_rank": [3.143, 2.393, 2.179, 2.286],
    },
    "sections": {name: f"{SECTION_URL}{name}/?metric=AUC" for name in SECTION_NAMES},
}
NEMENYI_SECTION = {
    "algorithms": ALGORITHMS,
    "pvalues": {"upper": [0.972, 0.089, 0.062, 0.227, 0.170, 0.999], "lower": None},
    "groups": [[3, 2, 1, 0]],
}
PROBLEMS = {
    "detail": "The submission was refused; nothing was stored.",
    "problems": [
        {
            "line": None,
            "field": "dataset",
            "message": "scores[1]: dataset 'irs' is not in this benchmark; did you mean 'iris'?",
        }
    ],
}


def _request(value, name: str = "Request") -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


def _response(value, status: str = "200", name: str = "Response") -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[status])


EXAMPLES: dict[str, list[OpenApiExample]] = {
    "benchmark_list": [_response(BENCHMARK_SUMMARY)],
    "benchmark_detail": [_response(BENCHMARK_DETAIL)],
    "benchmark_create": [
        _request(
            {
                "slug": "my-study",
                "title": "My study",
                "metrics": [
                    {"name": "accuracy", "direction": "higher", "min_value": 0, "max_value": 1},
                    {"name": "time", "direction": "lower", "min_value": 0, "unit": "s"},
                ],
                "submission_policy": "moderated",
            }
        ),
        _response({**BENCHMARK_DETAIL, "slug": "my-study", "title": "My study"}, "201"),
    ],
    "benchmark_update": [
        _request({"submission_policy": "moderated", "bootstrap_size": 2000}),
        _response({**BENCHMARK_DETAIL, "submission_policy": "moderated"}),
    ],
    "metric_list": [
        _response(
            {
                "name": "AUC",
                "direction": "higher",
                "is_primary": True,
                "description": "",
                "min_value": 0.0,
                "max_value": 1.0,
                "unit": "",
                "rope": None,
            }
        )
    ],
    "dataset_list": [
        _response(
            {
                "name": "iris",
                "description": "Fisher's 150 flowers of three species.",
                "url": "https://archive.ics.uci.edu/dataset/53/iris",
                "domain": "botany",
                "n_scores": 4,
            }
        )
    ],
    "algorithm_list": [
        _response(
            {
                "name": "C4.5",
                "description": "",
                "url": "",
                "version": "",
                "family": "decision tree",
                "parameters": None,
                "licence": "",
                "revision": "",
                "precision": "",
                "open_weights": None,
                "n_accepted": 1,
                "owners": ["quinlan"],
            }
        )
    ],
    "metric_rope": [
        _request({"rope": 0.01}),
        _response(
            {
                "name": "AUC",
                "direction": "higher",
                "is_primary": True,
                "description": "",
                "min_value": 0.0,
                "max_value": 1.0,
                "unit": "",
                "rope": 0.01,
            }
        ),
    ],
    "algorithm_owner_add": [
        _request({"algorithm": "C4.5", "username": "colleague"}),
        _response({"algorithm": "C4.5", "owners": ["colleague", "quinlan"]}),
    ],
    "algorithm_owners_transfer": [
        _request({"algorithm": "C4.5", "usernames": ["new-lab"]}),
        _response({"algorithm": "C4.5", "owners": ["new-lab"]}),
    ],
    "dataset_rename": [
        _request({"name": "Iris", "new_name": "iris-v2"}),
        _response({"name": "iris-v2"}),
    ],
    "dataset_delete": [_request({"name": "Iris"}), _response({"name": "Iris"})],
    "algorithm_rename": [
        _request({"name": "my-clasifier", "new_name": "my-classifier"}),
        _response({"name": "my-classifier"}),
    ],
    "algorithm_delete": [_request({"name": "my-clasifier"}), _response({"name": "my-clasifier"})],
    "submission_list": [_response(SUBMISSION)],
    "submission_detail": [_response(SUBMISSION_DETAIL)],
    "submission_create": [
        _request(
            {
                "algorithm": "my-classifier",
                "note": "5x2 CV, default settings",
                "scores": [
                    {"dataset": "iris", "value": 0.97},
                    {"dataset": "wine", "value": 0.95},
                ],
            },
            "Scores of known datasets",
        ),
        _request(
            {
                "algorithm": "my-classifier",
                "allow_new_datasets": True,
                "scores": [
                    {"dataset": "iris", "metric": "AUC", "fold": 0, "value": 0.96},
                    {"dataset": "iris", "metric": "AUC", "fold": 1, "value": 0.98},
                ],
            },
            "Folds, a metric, new datasets allowed",
        ),
        _response(SUBMISSION_CREATED, "201"),
        _response(
            SUBMISSION_CREATED, "200", "The same Idempotency-Key again: the stored submission"
        ),
        _response(PROBLEMS, "400", "A typo"),
    ],
    "submission_upload": [
        _request(
            {"file": "dataset,algorithm,score\niris,my-forest,0.96\nwine,my-forest,0.94\n"},
            "A long-format file (multipart/form-data)",
        ),
        _response(
            {
                "submissions": [{**SUBMISSION, "algorithm": "my-forest"}],
                "n_scores": 2,
                "left_out": [],
                "n_left_out": 0,
                "notes": [],
                "incomplete_notes": [],
            },
            "201",
        ),
        _request(
            {
                "file": "task,framework,fold_time,result\niris,my-forest,3.2,0.96\n",
                "columns": "dataset=task,algorithm=framework,score=result",
            },
            "A file with its own column names, mapped (the others are left out)",
        ),
        _response(
            {
                "submissions": [{**SUBMISSION, "algorithm": "my-forest"}],
                "n_scores": 1,
                "left_out": [],
                "n_left_out": 0,
                "notes": ["columns left out (not mapped): fold_time"],
                "incomplete_notes": [],
            },
            "201",
            "The mapped file",
        ),
    ],
    "submission_accept": [
        _request({"note": "Thanks: reproduced with the linked code."}),
        _response({**SUBMISSION, "decided_by": "demo-maintainer"}),
    ],
    "submission_reject": [
        _request({"note": "Fold 3 is missing; please resubmit."}),
        _response({**SUBMISSION, "status": "rejected", "decided_by": "demo-maintainer"}),
    ],
    "submission_withdraw": [_request({}), _response({**SUBMISSION, "status": "withdrawn"})],
    "snapshot_history": [_response(SNAPSHOT_SUMMARY)],
    "snapshot_latest": [_response({**SNAPSHOT, "computing": None, "failure": None})],
    "snapshot_version": [_response(SNAPSHOT)],
    "snapshot_export_json": [
        _response(
            {
                "benchmark": SLUG,
                "metric": "AUC",
                "version": 7,
                "fingerprint": SNAPSHOT_SUMMARY["fingerprint"],
                "engine_version": ENGINE_VERSION,
                "finished_at": TIME,
                # Trimmed: a column per number of the leaderboard table.
                "columns": ["position", "algorithm", "position_by", "mean_rank", "loo_kl", "mle"],
                "rows": [
                    {
                        "position": 1,
                        "algorithm": "C4.5+m",
                        "position_by": "Leave-one-out weights (log loss)",
                        "mean_rank": 2.0,
                        "loo_kl": 0.327,
                        "mle": 0.304,
                    }
                ],
                "board": SNAPSHOT["board"],
            }
        )
    ],
    "snapshot_export_csv": [
        _response(
            "position,algorithm,position_by,mean_rank,loo_kl,mle\n"
            "1,C4.5+m,Leave-one-out weights (log loss),2.0,0.327,0.304\n"
        )
    ],
    "api_token_list": [
        _response(
            {
                "id": 3,
                "name": "laptop",
                "prefix": "pod_Xk2f9Qa1",
                "created_at": TIME,
                "last_used_at": TIME,
                "expires_at": None,
            }
        )
    ],
    "api_token_create": [
        _request({"name": "laptop", "expires_in_days": 90}),
        _response(
            {
                "id": 3,
                "name": "laptop",
                "prefix": "pod_Xk2f9Qa1",
                "created_at": TIME,
                "last_used_at": None,
                "expires_at": "2026-04-15T10:30:00Z",
                "token": "pod_Xk2f9Qa1…(shown once)",
            },
            "201",
        ),
    ],
    "api_token_revoke": [_request({}), _response(None, "204", "Revoked (no content)")],
}
EXAMPLES["snapshot_section"] = [_response(NEMENYI_SECTION, name="The nemenyi section")]
EXAMPLES["snapshot_latest_section"] = EXAMPLES["snapshot_section"]
EXAMPLES["api_root"] = [
    _response(
        {
            "benchmarks": "https://podium.example.org/api/benchmarks/",
            "docs": "https://podium.example.org/api/docs/",
            "schema": "https://podium.example.org/api/schema/",
            "contract": "https://podium.example.org/api/contract/",
        }
    )
]
EXAMPLES["snapshot_contract"] = [
    _response("# Snapshot contract\n\n## board\n\n`recommended`: the estimator ...\n")
]
EXAMPLES["snapshot_schema"] = [
    _response({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Snapshot"})
]
RECOMPUTE_IDLE = {
    "state": "idle",
    "reason": "The results served are of the newest input.",
    "unserved_since": None,
    "unserved_seconds": None,
}
EXAMPLES["snapshot_status"] = [
    _response(
        {
            "version": 7,
            "finished_at": TIME,
            "newest": SNAPSHOT_SUMMARY,
            "failure": None,
            "recompute": RECOMPUTE_IDLE,
        }
    ),
    _response(
        {
            "version": 7,
            "finished_at": TIME,
            "newest": {
                **SNAPSHOT_SUMMARY,
                "version": 8,
                "status": "computing",
                "stage": "bootstrap",
                "progress": 0.4,
            },
            "failure": None,
            "recompute": {
                "state": "computing",
                "reason": "A worker is computing the results.",
                "unserved_since": TIME,
                "unserved_seconds": 4.2,
            },
        },
        name="A new version computing",
    ),
    _response(
        {
            "version": 7,
            "finished_at": TIME,
            "newest": {
                **SNAPSHOT_SUMMARY,
                "version": 8,
                "status": "failed",
                "error": "ValueError: at least 2 algorithms are needed",
            },
            "failure": {
                "version": 8,
                "failed_during": "analysis",
                "reason": "The newest accepted results cannot be analysed: at least 2 "
                "algorithms are needed.",
                "failed_at": TIME,
                "retry_at": None,
                "served_version": 7,
                "still_includes": [{"submission": 41, "algorithm": "C4.5", "status": "rejected"}],
                "lacks": [],
                "n_still_includes": 1,
                "n_lacks": 0,
            },
            "recompute": RECOMPUTE_IDLE,
        },
        name="The newest input failed",
    ),
]
EXAMPLES["upload_job_detail"] = [
    _response(
        {
            "id": 12,
            "status": "done",
            "stage": "",
            "progress": 1.0,
            "size": 48213944,
            "created_at": TIME,
            "started_at": TIME,
            "finished_at": TIME,
            "http_status": 201,
            "result": {"submissions": [{**SUBMISSION, "source": "csv"}], "n_scores": 2},
        }
    )
]
EXAMPLES["snapshot_export_json_by_version"] = EXAMPLES["snapshot_export_json"]
EXAMPLES["snapshot_export_csv_by_version"] = EXAMPLES["snapshot_export_csv"]


def _as_openapi(example: OpenApiExample) -> dict:
    return {"summary": example.name, "value": example.value}


def _status_codes(example: OpenApiExample) -> tuple[str, ...]:
    """As drf-spectacular reads them: strings, and 200 and 201 when not given."""
    return tuple(map(str, example.status_codes or ("200", "201")))


def examples_fill(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: the examples it does not attach by itself.

    It skips examples of multipart request bodies and of non-JSON responses (CSV
    exports); this puts the registry's examples there too, keyed like its own.
    """
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            examples = EXAMPLES.get(operation["operationId"], [])
            for content in operation.get("requestBody", {}).get("content", {}).values():
                if "examples" not in content:
                    found = [e for e in examples if e.request_only]
                    if found:
                        content["examples"] = {
                            e.name.replace(" ", ""): _as_openapi(e) for e in found
                        }
            for code, response in operation.get("responses", {}).items():
                for content in response.get("content", {}).values():
                    if "examples" not in content:
                        found = [
                            e for e in examples if e.response_only and code in _status_codes(e)
                        ]
                        if found:
                            content["examples"] = {
                                e.name.replace(" ", ""): _as_openapi(e) for e in found
                            }
    return result
