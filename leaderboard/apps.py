from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard"

    def ready(self) -> None:
        # Registered with the Celery app at start-up: uploads are queued by task name.
        from leaderboard import tasks  # noqa: F401
