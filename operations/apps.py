from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        from operations.failures import connect_failure_signal
        from operations.heartbeats import connect_worker_signals

        connect_worker_signals()
        connect_failure_signal()
