"""Every bulk action in the admin asks before it acts, like Django's own delete_selected:
the first POST shows what will happen to which rows, and only "yes" does it."""

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import reverse

from agents.models import Agent, ApiKey
from corememory.models import CoreCandidate, CoreFact
from knowledge.models import Document
from tests.web.admin_seed import seed_school


def snapshot():
    return {model: sorted(model.objects.values_list("pk", flat=True)) for model in (CoreCandidate, CoreFact)} | {
        model: model.objects.count() for model in (Agent, ApiKey, Document)}


#: actions that change no row (they only look at something and report): no confirmation page
READ_ONLY_ACTIONS = {"test_connection"}


def test_every_bulk_action_asks_first_and_changes_nothing_until_yes(db):
    seeded = seed_school(slug="yizhong", name="第一中学", marker="甲校")
    client = Client()
    client.force_login(seeded.admin)
    request = client.get("/admin/").wsgi_request
    asked = []
    for model, model_admin in admin.site._registry.items():
        if not model_admin.has_view_or_change_permission(request):
            continue
        rows = list(model_admin.get_queryset(request)[:2])
        for name in model_admin.get_actions(request):
            if not rows:
                continue
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
            before = snapshot()
            response = client.post(url, {"action": name, "_selected_action": [r.pk for r in rows]})
            if name in READ_ONLY_ACTIONS:
                assert snapshot() == before, (url, name)
                continue
            assert response.status_code == 200, (url, name, response.status_code)
            page = response.content.decode()
            if name == "delete_selected" and 'name="post"' not in page:
                # Django's own page, refusing: the cascade would delete rows this admin may not
                assert "delete-confirmation" in page, (url, name)
            else:
                assert 'name="post" value="yes"' in page, (url, name)
                assert all(f'value="{r.pk}"' in page for r in rows)
            assert snapshot() == before, (url, name)
            asked.append(name)
    assert {"confirm_candidates", "delete_candidates", "delete_facts"} <= set(asked)


def test_yes_confirms_the_candidates_that_were_shown(db):
    seeded = seed_school(slug="yizhong", name="第一中学", marker="甲校")
    client = Client()
    client.force_login(seeded.admin)
    candidate = CoreCandidate.objects.filter(tenant=seeded.tenant).first()
    url = "/admin/corememory/corecandidate/"
    page = client.post(url, {"action": "confirm_candidates", "_selected_action": [candidate.pk]}).content.decode()
    assert candidate.text in page and "是的，确认" in page
    client.post(url, {"action": "confirm_candidates", "_selected_action": [candidate.pk], "post": "yes"})
    assert not CoreCandidate.objects.filter(pk=candidate.pk).exists()
    assert CoreFact.objects.filter(tenant=seeded.tenant, text=candidate.text).exists()
    assert client.get(f"{url}{quote(candidate.pk)}/change/").status_code == 302  # gone
