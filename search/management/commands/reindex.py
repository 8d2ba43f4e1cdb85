"""manage.py reindex [--tenant SLUG] [--dense] [--force]

Brings the search index (L3 recall entries, L4 knowledge-base chunks) in line with the
rows it indexes: postings rebuilt for scopes indexed under older analyzer rules, missing
rows added, orphans removed, and with --dense a vector for every document without one.
Idempotent (a second run finds nothing to do) and resumable (a scope is marked done only
when all of it is; an interrupted run starts again at the scope it was in).
"""

import sys

from django.core.management.base import BaseCommand, CommandError

from agents.layers import memory_layers
from agents.models import Tenant
from search.services import ReindexResult, scope_reindex
from search.vectors import embedder


class _Progress:
    """A one-line progress bar on stderr (a plain line per scope when not a terminal)."""

    def __init__(self, stream, total: int):
        self.stream, self.total, self.done = stream, max(1, total), 0
        self.tty = getattr(stream, "isatty", lambda: False)()

    def __call__(self, n: int) -> None:
        self.done += n
        if self.tty:
            width = 30
            filled = int(width * self.done / self.total)
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}")
            self.stream.flush()

    def scope(self, key: str) -> None:
        if not self.tty:
            self.stream.write(f"{self.done}/{self.total} documents; now {key}\n")

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


class Command(BaseCommand):
    help = "Re-index recall entries and knowledge-base chunks (postings, and with --dense their vectors)."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="only this school (its slug)")
        parser.add_argument("--dense", action="store_true", help="also compute the vectors documents lack")
        parser.add_argument("--force", action="store_true", help="rebuild the postings of every scope")

    def handle(self, *args, **options):
        tenant = None
        if options["tenant"]:
            tenant = Tenant.objects.filter(slug=options["tenant"]).first()
            if tenant is None:
                raise CommandError(f"no school {options['tenant']!r}")
        dense = options["dense"]
        if dense and embedder(force=True) is None:
            raise CommandError("--dense: the embedding model could not load (see the log)")
        sources = [layer for layer in memory_layers() if hasattr(layer, "index_sources")]
        scopes = [(scope, items) for layer in sources for scope, items in layer.index_sources(tenant=tenant)]
        progress = _Progress(sys.stderr, sum(len(items) for _, items in scopes))
        total = ReindexResult()
        for scope, items in scopes:
            progress.scope(scope.key)
            result = scope_reindex(scope=scope, items=items, dense=dense, force=options["force"], progress=progress)
            for name in ("reindexed", "added", "removed", "embedded"):
                setattr(total, name, getattr(total, name) + getattr(result, name))
        progress.close()
        self.stdout.write(f"{len(scopes)} scopes: {total.reindexed} documents re-indexed, {total.added} added, "
                          f"{total.removed} removed, {total.embedded} embedded")
