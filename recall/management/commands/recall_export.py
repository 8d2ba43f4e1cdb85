from django.core.management.base import BaseCommand, CommandError

from agents.models import Agent, Tenant, User
from recall.logformat import entry_line
from recall.selectors import recall_entries_for_export


class Command(BaseCommand):
    help = "Write a school's recall entries as one JSON object per line (see recall/logformat.py)."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="the school's slug")
        parser.add_argument("--agent", help="only this agent's entries")
        parser.add_argument("--owner", help="only this teacher's entries (username)")
        parser.add_argument("--end-user", help="only this API end user's entries")
        parser.add_argument("--output", "-o", help="a file (default: standard output)")

    def handle(self, *args, **options):
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(f"no school {options['tenant']!r}")
        agent = owner = None
        if options["agent"]:
            agent = Agent.objects.filter(tenant=tenant, pk=options["agent"]).first()
            if agent is None:
                raise CommandError(f"no agent {options['agent']!r} in {tenant.slug}")
        if options["owner"]:
            owner = User.objects.filter(tenant=tenant, username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"no teacher {options['owner']!r} in {tenant.slug}")
        entries = recall_entries_for_export(tenant=tenant, agent=agent, owner=owner, end_user=options["end_user"])
        out = open(options["output"], "w", encoding="utf-8") if options["output"] else None
        count = 0
        try:
            for entry in entries.iterator(chunk_size=1000):
                if out:
                    out.write(entry_line(entry) + "\n")
                else:
                    self.stdout.write(entry_line(entry))
                count += 1
        finally:
            if out:
                out.close()
        self.stderr.write(f"exported {count} recall entries")
