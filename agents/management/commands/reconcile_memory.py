"""Run the memory reconciler (agents.tasks.memory_sweep) once, or every N seconds.

`serve` already reconciles every MEMORY_RECONCILE_SECONDS; this is for nodes that run
gunicorn and `qcluster` directly (README, "Two nodes"), where only the cluster's
once-a-minute schedule would otherwise do it."""

import time

from django.core.management.base import BaseCommand
from django.db import connection

from agents.tasks import memory_sweep


class Command(BaseCommand):
    help = "Re-send lost memory jobs and fail abandoned runs (once, or --every N seconds)."

    def add_arguments(self, parser):
        parser.add_argument("--every", type=float, default=0, help="repeat every N seconds until stopped")

    def handle(self, *args, every, **options):
        while True:
            counts = memory_sweep()
            self.stdout.write(f"abandoned {counts['abandoned']} resent {counts['resent']}")
            self.stdout.flush()
            connection.close()
            if not every:
                return
            time.sleep(every)
