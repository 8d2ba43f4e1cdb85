import sys
from collections import defaultdict

from django.core.management.base import BaseCommand, CommandError

from agents.models import Agent, Tenant, User
from recall.logformat import LogLineError, parse_line
from recall.services import recall_entries_import

BATCH = 1000


class Command(BaseCommand):
    help = (
        "Append recall entries from a log with one JSON object per line (see recall/logformat.py): "
        "our own export, or the old system's recall_log.jsonl. Entries already present are skipped."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the log file, or - for standard input")
        parser.add_argument("--tenant", required=True, help="the school's slug")
        parser.add_argument("--agent", help="the agent the entries belong to (default: each line's agent_id)")
        parser.add_argument("--owner", help="the teacher they belong to (default: each line's owner)")
        parser.add_argument("--end-user", help="the API end user they belong to (default: each line's end_user)")

    def handle(self, *args, **options):
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(f"no school {options['tenant']!r}")
        rows = self._read(options["file"])
        groups = defaultdict(list)
        agents, owners = {}, {}
        for row in rows:
            agent_id = options["agent"] or row["agent_id"]
            username = options["owner"] if options["owner"] is not None else row["owner"]
            end_user = options["end_user"] if options["end_user"] is not None else row["end_user"]
            if not agent_id:
                raise CommandError("a line has no agent_id; pass --agent")
            if agent_id not in agents:
                agents[agent_id] = Agent.objects.filter(tenant=tenant, pk=agent_id).first()
                if agents[agent_id] is None:
                    raise CommandError(f"no agent {agent_id!r} in {tenant.slug}")
            if username and username not in owners:
                owners[username] = User.objects.filter(tenant=tenant, username=username).first()
                if owners[username] is None:
                    raise CommandError(f"no teacher {username!r} in {tenant.slug}")
            groups[(agent_id, username or None, "" if username else end_user)].append(row)
        added = 0
        for (agent_id, username, end_user), group in groups.items():
            for start in range(0, len(group), BATCH):
                added += recall_entries_import(
                    tenant=tenant, agent=agents[agent_id], owner=owners.get(username) if username else None,
                    end_user=end_user, rows=group[start:start + BATCH],
                )
        self.stdout.write(f"imported {added} recall entries ({len(rows) - added} already present)")

    def _read(self, path: str) -> list[dict]:
        handle = sys.stdin if path == "-" else open(path, encoding="utf-8")
        try:
            rows = []
            for number, line in enumerate(handle, start=1):
                row = parse_line(line, number)
                if row is not None:
                    rows.append(row)
            return rows
        except LogLineError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            if handle is not sys.stdin:
                handle.close()
