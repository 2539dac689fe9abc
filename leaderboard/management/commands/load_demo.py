from django.core.management.base import BaseCommand

from leaderboard.demo import demo_load


class Command(BaseCommand):
    help = "Load the demo benchmarks (published tables); existing ones are left alone."

    def handle(self, *args, **options) -> None:
        created = demo_load()
        if not created:
            self.stdout.write("Demo benchmarks already loaded.")
        for benchmark in created:
            self.stdout.write(self.style.SUCCESS(f"Loaded demo benchmark {benchmark.slug}"))
