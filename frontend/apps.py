from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "Pages"

    def ready(self) -> None:
        # Who maintains what, kept per user for the signed-in reader's shell.
        from frontend.accounts import user_copies
        from frontend.page_shell import connect_signals

        connect_signals()
        # A changed user's copy goes at once (the signed-in reader's user, read through Redis).
        user_copies.connect_signals()
