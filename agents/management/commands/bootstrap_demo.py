import os
import secrets

from django.core.management.base import BaseCommand
from django.db import transaction

from agents.models import Tenant
from agents.services import agent_create, api_key_create, teacher_create, tenant_create


class Command(BaseCommand):
    help = "On an empty database, create a demo school, teacher, admin, API key and local agent; print the login."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="")

    def handle(self, *args, url, **options):
        if Tenant.objects.exists():
            self.stdout.write("Database already has a school; demo data not created. Schools: "
                              + ", ".join(Tenant.objects.order_by("slug").values_list("slug", flat=True)[:20]))
            return
        password = os.environ.get("DEMO_PASSWORD") or secrets.token_urlsafe(9)
        with transaction.atomic():
            school = tenant_create(slug="demo", name="示范学校")
            teacher_create(tenant=school, username="teacher", password=password, first_name="王老师")
            teacher_create(tenant=school, username="schooladmin", password=password, role="school_admin",
                           is_staff=True)
            agent = agent_create(tenant=school, name="教学助手", provider_kind="local")
            _, raw_key = api_key_create(tenant=school, name="demo")
        base = url or "http://127.0.0.1:8000"
        self.stdout.write(self.style.SUCCESS("Demo school created (shown once, write it down):"))
        self.stdout.write(f"  URL:        {base}/")
        self.stdout.write(f"  School:     {school.name} (slug: {school.slug})")
        self.stdout.write(f"  Teacher:    teacher / {password}")
        self.stdout.write(f"  School admin: schooladmin / {password}  ({base}/admin/)")
        self.stdout.write(f"  Agent id:   {agent.pk}")
        self.stdout.write(f"  API key:    {raw_key}")
        self.stdout.write(
            f"  Try:        curl -s -X POST {base}/api/agents/{agent.pk}/run -H 'X-API-Key: {raw_key}' "
            "-H 'Content-Type: application/json' -d '{\"input\": \"出一份数据结构试卷\"}'"
        )
