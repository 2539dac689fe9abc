"""Writes of the leaderboard app (HackSoft style: keyword-only, typed, ``<entity>_<action>``),
one module per entity; every entry point (pages, API, CSV upload, commands) calls these.

``errors`` holds what a refusal is (``Problem``, ``ValidationFailed`` and its kinds);
``text`` the rules for free text and URLs; ``benchmarks``, ``catalogue`` (renaming and
deleting datasets and algorithms), ``submissions`` (with ``entries``, the checks of
submitted scores, and ``scores``, their bulk write), ``moderation`` and ``tokens``."""

from leaderboard.services.access import require_maintainer, user_is_maintainer
from leaderboard.services.benchmarks import (
    ANALYSIS_FIELDS,
    EDITABLE_FIELDS,
    MAX_METRIC_NAME_LENGTH,
    MAX_METRICS,
    RESERVED_SLUGS,
    benchmark_add_maintainer,
    benchmark_create,
    benchmark_datasets_add,
    benchmark_problems,
    benchmark_update,
    metric_add,
    metric_problems,
)
from leaderboard.services.catalogue import catalogue_entry_delete, catalogue_entry_rename
from leaderboard.services.entries import (
    MAX_FOLD,
    MAX_NAME_LENGTH,
    MAX_PROBLEMS,
    entry_problems,
    typo_problems,
)
from leaderboard.services.errors import (
    Gone,
    NameConflict,
    NameNotFound,
    PermissionDenied,
    Problem,
    StateConflict,
    ValidationFailed,
)
from leaderboard.services.inputs import ScoreBlock, ScoreInput, SubmissionInput
from leaderboard.services.moderation import (
    MAX_BULK_DECISIONS,
    submission_accept,
    submission_reject,
    submission_withdraw,
    submissions_decide,
)
from leaderboard.services.scores import (
    ScoreColumns,
    score_columns,
    score_copy_buffer,
    scores_insert,
)
from leaderboard.services.submissions import (
    TRANSITIONS,
    WRITE_ATTEMPTS,
    algorithm_links_refresh,
    benchmark_metric_check,
    names_ensure,
    submission_create,
    submission_entries_from_csv,
    submissions_create,
)
from leaderboard.services.text import (
    MAX_TEXT_LENGTH,
    MAX_URL_LENGTH,
    benchmark_text_problems,
    full_clean,
    text_field_problems,
    text_problem,
    url_problem,
)
from leaderboard.services.tokens import (
    API_TOKEN_SCHEME,
    API_TOKEN_USE_RESOLUTION,
    MAX_ACTIVE_API_TOKENS,
    api_token_create,
    api_token_record_use,
    api_token_revoke,
)

__all__ = [
    "ANALYSIS_FIELDS",
    "API_TOKEN_SCHEME",
    "API_TOKEN_USE_RESOLUTION",
    "EDITABLE_FIELDS",
    "MAX_ACTIVE_API_TOKENS",
    "MAX_BULK_DECISIONS",
    "MAX_FOLD",
    "MAX_METRICS",
    "MAX_METRIC_NAME_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_PROBLEMS",
    "MAX_TEXT_LENGTH",
    "MAX_URL_LENGTH",
    "RESERVED_SLUGS",
    "TRANSITIONS",
    "WRITE_ATTEMPTS",
    "Gone",
    "NameConflict",
    "NameNotFound",
    "PermissionDenied",
    "Problem",
    "ScoreBlock",
    "ScoreColumns",
    "ScoreInput",
    "StateConflict",
    "SubmissionInput",
    "ValidationFailed",
    "algorithm_links_refresh",
    "api_token_create",
    "api_token_record_use",
    "api_token_revoke",
    "benchmark_add_maintainer",
    "benchmark_create",
    "benchmark_datasets_add",
    "benchmark_metric_check",
    "benchmark_problems",
    "benchmark_text_problems",
    "benchmark_update",
    "catalogue_entry_delete",
    "catalogue_entry_rename",
    "entry_problems",
    "full_clean",
    "metric_add",
    "metric_problems",
    "names_ensure",
    "require_maintainer",
    "score_columns",
    "score_copy_buffer",
    "scores_insert",
    "submission_accept",
    "submission_create",
    "submission_entries_from_csv",
    "submission_reject",
    "submission_withdraw",
    "submissions_create",
    "submissions_decide",
    "text_field_problems",
    "text_problem",
    "typo_problems",
    "url_problem",
    "user_is_maintainer",
]
