import json

from django.core.management.base import BaseCommand

from privacy.export import owner_export
from privacy.management.commands.erase import add_subject_arguments, subject_from_options


class Command(BaseCommand):
    help = (
        "Print everything held about one teacher or one end user of a school as one JSON document "
        "(threads and runs, facts, candidates, recall entries in the recall_import format, documents)."
    )

    def add_arguments(self, parser):
        add_subject_arguments(parser)
        parser.add_argument("--output", "-o", help="a file (default: standard output)")

    def handle(self, *args, **options):
        document = json.dumps(owner_export(subject=subject_from_options(options)), ensure_ascii=False, indent=2)
        if options["output"]:
            with open(options["output"], "w", encoding="utf-8") as out:
                out.write(document + "\n")
        else:
            self.stdout.write(document)
