from django.core.management.base import BaseCommand, CommandError

from core.errors import AppError
from agents.services import tenant_create


class Command(BaseCommand):
    help = "Create a school (tenant)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", default="")

    def handle(self, *args, slug, name, **options):
        try:
            tenant = tenant_create(slug=slug, name=name)
        except AppError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(tenant.slug)
