import json

from django.core.management.base import BaseCommand, CommandError

from core.errors import AppError
from privacy.models import ErasureReceipt
from privacy.selectors import subject_from_selectors
from privacy.services import owner_erase, postgres_vacuum


def add_subject_arguments(parser) -> None:
    parser.add_argument("--tenant", required=True, help="the school's slug")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--teacher", help="a teacher's username")
    who.add_argument("--end-user", help="an API client's end-user id")


def subject_from_options(options):
    try:
        return subject_from_selectors(tenant_slug=options["tenant"], teacher=options["teacher"],
                                      end_user=options["end_user"])
    except AppError as exc:
        raise CommandError(f"{exc.code}: {exc.detail}") from exc


class Command(BaseCommand):
    help = (
        "Erase everything held about one teacher or one end user of a school, from every memory layer, "
        "and print the receipt as JSON. --dry-run prints what would go and changes nothing."
    )

    def add_arguments(self, parser):
        add_subject_arguments(parser)
        parser.add_argument("--dry-run", action="store_true", help="count what would be erased; erase nothing")
        parser.add_argument("--vacuum", choices=["plain", "full"],
                            help="PostgreSQL: VACUUM (or VACUUM FULL, which locks each table) the erased tables after")

    def handle(self, *args, **options):
        subject = subject_from_options(options)
        receipt = owner_erase(subject=subject, via=ErasureReceipt.Via.COMMAND, dry_run=options["dry_run"])
        if options["vacuum"] and not options["dry_run"]:
            vacuumed = postgres_vacuum(full=options["vacuum"] == "full")
            self.stderr.write(f"vacuumed {len(vacuumed)} tables" if vacuumed else "no VACUUM: not PostgreSQL")
        self.stdout.write(json.dumps(receipt, ensure_ascii=False, indent=2))
