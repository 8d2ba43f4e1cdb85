from django.core.management.base import BaseCommand, CommandError

from core.errors import AppError
from agents.models import Tenant
from agents.providers import KINDS
from agents.services import agent_create


class Command(BaseCommand):
    help = "Create an agent for a school and print its id."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="school slug")
        parser.add_argument("--name", required=True)
        parser.add_argument("--provider", required=True, choices=KINDS)
        parser.add_argument("--base-url", default="")
        parser.add_argument("--model", default="")
        parser.add_argument("--language", default="zh", choices=["zh", "en"])
        parser.add_argument("--api-key-env", default="", help="NAME of the environment variable holding the secret")
        parser.add_argument("--system-prompt", default="")
        parser.add_argument("--archive-outputs", action="store_true")
        parser.add_argument("--max-output-tokens", type=int, default=None,
                            help="the longest answer, in tokens (default: the agent model's default)")

    def handle(self, *args, **o):
        tenant = Tenant.objects.filter(slug=o["tenant"]).first()
        if tenant is None:
            raise CommandError(f"no school with slug {o['tenant']!r}")
        if o["max_output_tokens"] is not None and o["max_output_tokens"] < 1:
            raise CommandError("--max-output-tokens must be at least 1")
        try:
            agent = agent_create(
                tenant=tenant,
                name=o["name"],
                provider_kind=o["provider"],
                base_url=o["base_url"],
                model=o["model"],
                language=o["language"],
                api_key_env=o["api_key_env"],
                system_prompt=o["system_prompt"],
                archive_outputs=o["archive_outputs"],
                **({"max_output_tokens": o["max_output_tokens"]} if o["max_output_tokens"] is not None else {}),
            )
        except AppError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(agent.pk)
