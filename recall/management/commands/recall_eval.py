import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from agents.models import Tenant
from recall.evaluation import JSONL_FORMATS, LOADERS, evaluate

DENSE_CHOICES = {"on": True, "off": False}


def _dense_modes(value: str | None) -> tuple:
    if not value:
        return (None,)
    names = [name.strip() for name in value.split(",") if name.strip()]
    if not names or any(name not in DENSE_CHOICES for name in names):
        raise CommandError("--dense takes on, off or on,off")
    return tuple(DENSE_CHOICES[name] for name in dict.fromkeys(names))


class Command(BaseCommand):
    help = (
        "Measure recall on a memory benchmark (LoCoMo or LongMemEval JSON, or our dev-set JSONL): load it "
        "into a throw-away database, ask every question, print recall@k (turn and session level), MRR, what "
        "the layer's gate injects (for questions with and without evidence) and query latency p50/p99."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--format", required=True, choices=sorted(LOADERS))
        parser.add_argument("--k", default="1,3,5,10", help="comma-separated cut-offs (default 1,3,5,10)")
        parser.add_argument("--limit", type=int, help="ask at most this many questions")
        parser.add_argument("--dense", help="on, off, or on,off to compare both in one run "
                                            "(default: the RECALL_DENSE setting)")
        parser.add_argument("--in-place", action="store_true",
                            help="use the configured database instead of a temporary SQLite file "
                                 "(a temporary school is created and deleted)")
        parser.add_argument("--keep-db", action="store_true", help="keep the temporary database and print its path")
        parser.add_argument("--migrate", action="store_true", help=argparse.SUPPRESS)

    def handle(self, *args, **options):
        try:
            ks = sorted({int(k) for k in options["k"].split(",") if k.strip()})
        except ValueError as exc:
            raise CommandError("--k takes integers such as 1,3,5,10") from exc
        if not ks or ks[0] < 1:
            raise CommandError("--k takes positive integers")
        modes = _dense_modes(options["dense"])
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"no file {path}")
        if not options["in_place"]:
            return self._in_throwaway_database(options)
        if options["migrate"]:
            call_command("migrate", verbosity=0, interactive=False)
        try:
            text = path.read_text(encoding="utf-8")
            if options["format"] in JSONL_FORMATS:
                data = [json.loads(line) for line in text.splitlines() if line.strip()]
            else:
                data = json.loads(text)
            conversations = LOADERS[options["format"]](data)
        except (ValueError, KeyError, TypeError) as exc:
            raise CommandError(f"{path} is not a {options['format']} file: {exc!r}") from exc
        tenant = Tenant.objects.create(slug=f"recall-eval-{secrets.token_hex(4)}", name="recall_eval")
        try:
            reports = evaluate(conversations, tenant=tenant, ks=ks, limit=options["limit"], dense_modes=modes,
                               progress=lambda message: self.stderr.write(message))
        finally:
            if not options["keep_db"] or not options["migrate"]:
                tenant.delete()
        for report in reports:
            for line in report.lines(f"{options['format']} {path.name}"):
                self.stdout.write(line)

    def _in_throwaway_database(self, options):
        """Run this command again in a child process whose database is a new SQLite file."""
        tmp = Path(tempfile.mkdtemp(prefix="recall-eval-"))
        try:
            env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
            env["DATABASE_URL"] = f"sqlite:///{tmp / 'eval.sqlite3'}"
            command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "recall_eval", options["file"],
                       "--format", options["format"], "--k", options["k"], "--in-place", "--migrate"]
            if options["limit"] is not None:
                command += ["--limit", str(options["limit"])]
            if options["dense"]:
                command += ["--dense", options["dense"]]
            if options["keep_db"]:
                command.append("--keep-db")
            # Progress (stderr) goes straight through; the report is printed by this process.
            result = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True)
            if result.returncode != 0:
                raise CommandError(f"recall_eval failed ({result.returncode})")
            self.stdout.write(result.stdout.rstrip("\n"))
            if options["keep_db"]:
                self.stdout.write(f"database kept at {env['DATABASE_URL']}")
        finally:
            if not options["keep_db"]:
                shutil.rmtree(tmp, ignore_errors=True)
