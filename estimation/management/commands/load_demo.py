from django.conf import settings
from django.core.management.base import BaseCommand

from estimation.recompute.background import recompute_threads_join
from leaderboard.demo import demo_load, demo_maintainer_ensure


class Command(BaseCommand):
    help = (
        "Load the demo benchmarks (published tables); existing ones are left alone. "
        "With PODIUM_DEMO_MAINTAINER set (local settings only), also make the demo "
        "maintainer account."
    )

    def handle(self, *args, **options) -> None:
        created = demo_load()
        if not created:
            self.stdout.write("Demo benchmarks already loaded.")
        for benchmark in created:
            self.stdout.write(self.style.SUCCESS(f"Loaded demo benchmark {benchmark.slug}"))
        account = settings.PODIUM_DEMO_MAINTAINER
        # Never in production: a known password is only acceptable on a laptop.
        if account and settings.DEBUG:
            if demo_maintainer_ensure(username=account["username"], password=account["password"]):
                self.stdout.write(
                    self.style.WARNING(
                        "Demo maintainer account (local development only): "
                        f"username {account['username']!r}, password {account['password']!r}. "
                        "It maintains the demo benchmarks; log in at /account/login/."
                    )
                )
        # Embedded mode: the demos' first snapshots are computed by background threads.
        recompute_threads_join()
