"""A school with one row of everything the admin shows, each named with a marker, so a
test can look for that school's names and ids in another school's admin pages."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.utils import timezone
from django_q.models import Failure, Success

from agents.actor import Actor
from agents.models import MemoryOp, Run
from agents.services import agent_create, api_key_create, teacher_create, tenant_create
from corememory import services as core_services
from corememory.models import CoreCandidate
from knowledge.services import document_create
from recall.services import recall_entry_append
from threads.models import Thread


@dataclass
class SeededSchool:
    tenant: object
    admin: object
    teacher: object
    agent: object
    run: object
    #: every name and id of this school that its pages show somewhere
    secrets: set = field(default_factory=set)


def seed_school(*, slug: str, name: str, marker: str) -> SeededSchool:
    """`marker` is a word no other school uses: it goes into every name and text."""
    tenant = tenant_create(slug=slug, name=name)
    admin = teacher_create(tenant=tenant, username=f"{slug}_admin", password="pw-admin-123", role="school_admin",
                           is_staff=True)
    teacher = teacher_create(tenant=tenant, username=f"{slug}_teacher", password="pw-t-123",
                             first_name=f"{marker}老师")
    agent = agent_create(tenant=tenant, name=f"{marker}出题助手", provider_kind="scripted", model="scripted-zh")
    key, _ = api_key_create(tenant=tenant, name=f"{marker}门户密钥")
    rows = [tenant, admin, teacher, agent, key]
    runs = []
    for owner, end_user in ((teacher, ""), (None, f"{marker}-stu")):
        thread = Thread.objects.create(tenant=tenant, agent=agent, owner=owner, end_user=end_user,
                                       title=f"{marker}会话标题", rolling_summary=f"{marker}滚动摘要")
        run = Run.objects.create(tenant=tenant, agent=agent, thread=thread, owner=owner, end_user=end_user,
                                 input=f"{marker}出一份试卷", output=f"{marker}试卷正文", status="completed",
                                 finished_at=timezone.now(), prompt_tokens=120, completion_tokens=340)
        rows += [thread, run]
        runs.append(run)
        rows.append(MemoryOp.objects.create(tenant=tenant, agent=agent, thread=thread, run=run, owner=owner,
                                            end_user=end_user, kind="compress", input_tokens=900, output_tokens=80,
                                            cost=Decimal("0.0012")))
        rows.append(recall_entry_append(run=run))
        text = f"{marker}候选事实{len(runs)}"
        rows.append(CoreCandidate.objects.create(tenant=tenant, agent=agent, owner=owner, end_user=end_user,
                                                 text=text, normalized=core_services.normalize_fact(text),
                                                 confidence=0.9, source_run=run))
        actor = Actor(tenant=tenant, user=owner, end_user=end_user, via_api_key=owner is None)
        rows.append(core_services.fact_add(actor=actor, agent=agent, text=f"{marker}已确认事实{len(runs)}").fact)
        now = timezone.now()
        for model, ok in ((Success, True), (Failure, False)):
            model.objects.create(id=f"{run.pk[-20:]}{'ok' if ok else 'ko'}", name=f"memory {run.pk}",
                                 func="agents.tasks.memory_job", args=(run.pk,), started=now, stopped=now,
                                 success=ok, result="done" if ok else f"{marker}失败原因")
    rows.append(document_create(tenant=tenant, agent=agent, title=f"{marker}文档标题", text=f"{marker}文档正文",
                                created_by=teacher))
    # Integer keys (users) would match any number on a page: their usernames stand for them.
    secrets = {row.pk for row in rows if isinstance(row.pk, str)} | {
        slug, name, marker, admin.username, teacher.username, key.prefix}
    return SeededSchool(tenant=tenant, admin=admin, teacher=teacher, agent=agent, run=runs[0], secrets=secrets)
