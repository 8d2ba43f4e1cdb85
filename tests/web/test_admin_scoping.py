"""Every admin page a school admin can open, walked as the second school's admin: no name
or id of the first school appears anywhere (lists, filter choices, add and change forms,
foreign-key choices)."""

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import reverse

from tests.web.admin_seed import seed_school


@pytest.fixture
def two_schools(db):
    first = seed_school(slug="yizhong", name="第一中学", marker="甲校")
    second = seed_school(slug="erzhong", name="第二中学", marker="乙校")
    return first, second


def admin_pages(client, user):
    """(url, html) of every changelist, add form and change form open to `user`."""
    request = client.get("/admin/").wsgi_request
    request.user = user
    for model, model_admin in admin.site._registry.items():
        info = model._meta.app_label, model._meta.model_name
        if not model_admin.has_view_or_change_permission(request):
            continue
        changelist = reverse("admin:%s_%s_changelist" % info)
        yield changelist
        if model_admin.has_add_permission(request):
            yield reverse("admin:%s_%s_add" % info)
        for obj in model_admin.get_queryset(request)[:5]:
            yield reverse("admin:%s_%s_change" % info, args=[quote(obj.pk)])
            yield reverse("admin:%s_%s_history" % info, args=[quote(obj.pk)])
        # the search box, across both schools' words
        yield changelist + "?q=%E5%87%BA"  # 出: in both schools' names


def test_a_second_schools_admin_sees_nothing_of_the_first_school(two_schools):
    first, second = two_schools
    client = Client()
    client.force_login(second.admin)
    visited = []
    for url in admin_pages(client, second.admin):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code, response.get("Location"))
        html = response.content.decode()
        leaked = sorted(s for s in first.secrets if s in html)
        assert not leaked, (url, leaked)
        visited.append(url)
    # The walk reached every kind of page a school admin works with (and saw its own rows).
    for expected in ("/admin/agents/run/", "/admin/agents/memoryop/", "/admin/threads/thread/",
                     "/admin/corememory/corecandidate/", "/admin/corememory/corefact/",
                     "/admin/knowledge/document/", "/admin/knowledge/document/add/", "/admin/recall/recallentry/",
                     "/admin/agents/agent/", "/admin/agents/apikey/", "/admin/django_q/success/",
                     "/admin/django_q/failure/", f"/admin/agents/run/{quote(second.run.pk)}/change/"):
        assert expected in visited, expected
    assert "乙校会话标题" in client.get("/admin/threads/thread/").content.decode()


def test_every_admin_page_opens_for_an_operator(two_schools, django_user_model):
    """The superuser sees both schools; no page of theirs fails (a document's page used to 500)."""
    operator = django_user_model.objects.create_superuser("ops", password="pw-ops-123")
    client = Client()
    client.force_login(operator)
    urls = list(admin_pages(client, operator))
    for url in urls:
        assert client.get(url).status_code == 200, url
    assert any("/admin/knowledge/document/" in u and u.endswith("/change/") for u in urls)
    assert "/admin/agents/tenant/" in urls and "/admin/django_q/schedule/" in urls
