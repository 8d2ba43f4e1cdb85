from django.core.management.base import BaseCommand, CommandError

from agents.models import Tenant
from agents.services import api_key_create


class Command(BaseCommand):
    help = "Create an API key for a school and print it (shown once; only its hash is stored)."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="school slug")
        parser.add_argument("--name", default="")

    def handle(self, *args, tenant, name, **options):
        school = Tenant.objects.filter(slug=tenant).first()
        if school is None:
            raise CommandError(f"no school with slug {tenant!r}")
        _, raw = api_key_create(tenant=school, name=name)
        self.stdout.write(raw)
