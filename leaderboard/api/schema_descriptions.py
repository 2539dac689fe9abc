"""What each property and path parameter of the public API means, in its readers' words.

A field's own ``help_text`` wins; these fill the rest, once per name rather than once per
serializer (``created_at`` appears on ten of them). A name that means different things in
different places is keyed by the component's name prefix, longest first
(``("Snapshot", "status")``). ``descriptions_complete`` (a drf-spectacular
postprocessing hook) applies them; tests/api/test_schema_descriptions.py holds the
schema to no undocumented property or path parameter.
"""

from __future__ import annotations

PROPERTY_DESCRIPTIONS: dict[str, str] = {
    # Lists
    "count": "how many items there are in all, over every page",
    "next": "the URL of the next page, or null on the last page",
    "previous": "the URL of the previous page, or null on the first page",
    "results": "this page's items",
    # Errors
    "detail": "what went wrong, in one sentence",
    "problems": "every problem found, each with its line (or null) and field (or null); "
    "list positions in a field such as scores[3] count from 1",
    "problems_total": "how many problems were found in all (the list shows at most "
    "PODIUM_API_MAX_PROBLEMS of them)",
    "message": "what is wrong and how to put it right",
    # Benchmarks
    "slug": "the benchmark's short name in URLs: letters, digits, '-' and '_'",
    "title": "the benchmark's name as readers see it",
    "citation": "how to cite the benchmark (free text, e.g. BibTeX)",
    "visibility": "who can read the benchmark: public (listed), unlisted (anyone with the "
    "link) or private (maintainers only)",
    "submission_policy": "who can add results: open (accepted on arrival), moderated (a "
    "maintainer accepts each) or closed (maintainers only)",
    "allow_new_algorithms": "whether a submission may add an algorithm the benchmark does "
    "not list yet",
    "missing_policy": "what the analysis does with a missing result: complete (analyse the "
    "datasets every included algorithm has) or worst (a missing result ranks last)",
    "min_coverage": "the share of datasets (0 to 1) an algorithm needs results on to be ranked",
    "tie_tolerance": "scores closer than this (in metric units) count as a tie",
    "top_k": "how many places count as the top in 'probability of being in the top k'",
    "alpha": "the significance level of the tests (0.001 to 0.5)",
    "correction": "how p-values are adjusted for testing many pairs: holm or bonferroni",
    "default_estimator": "which way of ranking readers see first (the other estimators "
    "stay one click away)",
    "bootstrap_size": "how many bootstrap resamples the intervals use (0 to 100000)",
    "seed": "the random seed of the bootstrap, so that results can be reproduced",
    "maintainers": "usernames of the benchmark's maintainers",
    "is_maintainer": "whether you maintain this benchmark",
    "metrics": "the benchmark's metrics, the primary one first",
    "n_metrics": "how many metrics the benchmark has",
    "updated_at": "when the benchmark's settings last changed",
    "created_at": "when it was created",
    # Metrics
    "direction": "whether a higher or a lower value is better",
    "unit": "the metric's unit as readers see it (e.g. %, s), or empty",
    "is_primary": "whether this is the metric the board ranks by first",
    # Submissions and scores
    "id": "its number, for URLs such as submissions/{submission_id}/",
    "benchmark": "the benchmark's slug",
    "algorithm": "the algorithm's name, as the benchmark lists it",
    "algorithm_version": "the algorithm's version, e.g. 1.2 (empty: none given)",
    "source": "how the submission arrived: the web form, the API, a CSV upload or a "
    "maintainer's import",
    "note": "a note for the benchmark's maintainers and readers (may be empty)",
    "submitter": "the username of who submitted it, or null when the account is gone",
    "decided_at": "when a maintainer accepted or rejected it, or null",
    "decided_by": "the username of the maintainer who decided, or null",
    "decision_note": "the maintainer's reason, when one was given",
    "n_scores": "how many scores it holds (each fold counts once)",
    "scores": "one entry per dataset (and fold) and metric",
    "dataset": "the dataset's name, as the benchmark lists it",
    "fold": "the cross-validation fold, or null for one result per dataset",
    "value": "the score, in the metric's units",
    "metric": "the metric's name",
    "submissions": "the submissions stored, one per algorithm in the file",
    # Catalogue and owners
    "name": "the name, as the benchmark lists it",
    "new_name": "the name to give it; it must not be taken",
    "username": "the user's username",
    "usernames": "the usernames of the algorithm's owners after the transfer",
    # Snapshots (the computed results)
    "version": "the results' version: 1 for the first computation, one more for each recompute",
    "engine_version": "the version of the statistics engine that computed them",
    "stage": "what a computing version is doing now, or empty when it is not computing",
    "progress": "how far a computing version has got, from 0 to 1",
    "error": "why a failed version failed (maintainers only), or empty",
    "finished_at": "when it finished, or null while it runs",
    "started_at": "when it started, or null while it waits",
    "fingerprint": "a digest of the input the results were computed from: equal "
    "fingerprints, equal input",
    "columns": "the export's columns, in order, each with what it means",
    "rows": "one row per algorithm, in board order",
    "failed_at": "when it failed, or null",
    "n_still_includes": "how many submissions the results served include that are no "
    "longer accepted",
    "n_lacks": "how many accepted submissions the results served do not include",
    # Tokens
    "prefix": "the token's first characters, to tell tokens apart (the rest is shown "
    "once, on creation)",
    "last_used_at": "when the token was last used, or null if never",
}

# (component name prefix, property) -> description, where a name means something else.
CONTEXT_DESCRIPTIONS: dict[tuple[str, str], str] = {
    ("Benchmark", "description"): "what the benchmark measures and how (Markdown)",
    ("Benchmark", "licence"): "the licence of the benchmark's results, e.g. CC-BY-4.0",
    ("BenchmarkCreateInputMetric", "name"): "the metric's name, e.g. accuracy",
    ("Metric", "name"): "the metric's name",
    ("Metric", "description"): "what the metric measures",
    ("Dataset", "name"): "the dataset's name, as the benchmark lists it",
    ("Dataset", "description"): "what the dataset is (may be empty)",
    ("Algorithm", "name"): "the algorithm's name, as the benchmark lists it",
    ("Algorithm", "description"): "what the algorithm is (may be empty)",
    ("Algorithm", "licence"): "the algorithm's licence, e.g. MIT (may be empty)",
    ("Algorithm", "version"): "the algorithm's version, e.g. 1.2 (may be empty)",
    ("SubmissionCreateInputAlgorithmMetadata", "licence"): "the algorithm's licence, e.g. MIT",
    ("SubmissionCreateInputScore", "dataset"): "the dataset's name, as the benchmark lists "
    "it; a close misspelling is refused with a 'did you mean'",
    ("SubmissionCreateInput", "algorithm"): "the algorithm's name; a new name adds the "
    "algorithm when the benchmark allows it",
    ("SubmissionCreateInput", "scores"): "the scores, one per dataset (and fold) and "
    "metric; problems name them as scores[1] for the first",
    ("SubmissionDetailOutputScore", "metric"): "the metric's name",
    ("ApiToken", "name"): "what the token is for, as you named it",
    ("ApiToken", "id"): "the token's number, for tokens/{token_id}/revoke/",
    ("ApiToken", "created_at"): "when the token was created",
    ("UploadJob", "id"): "the upload's number, for uploads/{job_id}/",
    ("UploadJob", "created_at"): "when the file was received",
    ("UploadJob", "finished_at"): "when processing finished, or null while it runs",
    ("Snapshot", "status"): "computing, ready or failed",
    ("Snapshot", "benchmark"): "the benchmark's slug",
    ("Snapshot", "metric"): "the metric the results rank by",
    ("Snapshot", "created_at"): "when the computation was asked for",
    ("Submission", "status"): "pending (waiting for a maintainer), accepted, rejected or withdrawn",
    ("Submission", "id"): "the submission's number, for submissions/{submission_id}/",
    ("Submission", "created_at"): "when it was submitted",
    ("_Decision", "note"): "the reason, shown to the submitter (may be empty)",
    ("_Catalogue", "name"): "the dataset's or algorithm's name as it is now",
    ("_Rename", "name"): "the dataset's or algorithm's name as it is now",
    ("_Delete", "name"): "the name of the dataset or algorithm to delete",
    ("_Owners", "algorithm"): "the algorithm's name",
    ("UploadJobOutput", "status"): "queued, running, done or failed",
}

PATH_PARAMETER_DESCRIPTIONS: dict[str, str] = {
    "slug": "the benchmark's slug, as in its URL (e.g. demsar-2006)",
    "submission_id": "the submission's number (its id)",
    "job_id": "the upload's number, from the 202 answer to a background upload",
    "token_id": "the token's number (its id in the token list)",
    "version": "the results' version number (see snapshots/ for the versions there are)",
    "metric": "the metric's name",
    "name": "the section's name (see the contract for the sections there are)",
}

QUERY_PARAMETER_DESCRIPTIONS: dict[str, str] = {
    "limit": "how many items a page holds at most",
    "offset": "how many items to skip from the start",
}


def property_description(component: str, name: str) -> str | None:
    """The description of property ``name`` in ``component``, or None if there is none."""
    for (prefix, key), text in sorted(
        CONTEXT_DESCRIPTIONS.items(), key=lambda item: -len(item[0][0])
    ):
        if key == name and component.startswith(prefix):
            return text
    return PROPERTY_DESCRIPTIONS.get(name)


def _describe(component: str, schema: dict) -> None:
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
        if not prop.get("description") and (text := property_description(component, name)):
            if "$ref" in prop:
                # OpenAPI 3.0 ignores a $ref's siblings; allOf keeps the description.
                prop["allOf"] = [{"$ref": prop.pop("$ref")}]
            prop["description"] = text
        _describe(component, prop)
        if isinstance(prop.get("items"), dict):
            _describe(component, prop["items"])


def descriptions_complete(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: every property and parameter says what it is."""
    for component, schema in result.get("components", {}).get("schemas", {}).items():
        _describe(component, schema)
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("description"):
                    continue
                table = (
                    PATH_PARAMETER_DESCRIPTIONS
                    if parameter["in"] == "path"
                    else QUERY_PARAMETER_DESCRIPTIONS
                )
                if text := table.get(parameter["name"]):
                    parameter["description"] = text
    return result
