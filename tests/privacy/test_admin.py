"""The admin's erasure: a confirmation page listing what will go, own school only, and the
receipts it leaves, read-only."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import quote
from django.test import Client

from agents.actor import Actor
from agents.models import Run
from agents.runner import run_sync
from privacy.models import ErasureReceipt

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/privacy/teachermemory/"


def _as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _runs_for(school, agent, user, n=2):
    for i in range(n):
        run_sync(actor=Actor(tenant=school, user=user), agent=agent, input=f"第{i}份试卷")


def test_the_action_first_lists_what_will_go_and_erases_only_after_confirmation(school, school_admin, teacher, agent):
    _runs_for(school, agent, teacher)
    client = _as(school_admin)

    page = client.post(CHANGELIST, {"action": "erase_memory", ACTION_CHECKBOX_NAME: [teacher.pk]})

    assert page.status_code == 200
    html = page.content.decode()
    assert "运行（含输入、输出和装配的上下文）" in html and "确认，永久删除" in html
    assert Run.objects.count() == 2 and not ErasureReceipt.objects.exists()
    done = client.post(CHANGELIST, {"action": "erase_memory", ACTION_CHECKBOX_NAME: [teacher.pk], "post": "yes"},
                       follow=True)
    assert done.status_code == 200
    assert not Run.objects.exists()
    receipt = ErasureReceipt.objects.get()
    assert receipt.requested_via == "admin" and receipt.requested_by == school_admin and receipt.counts["runs"] == 2


def test_a_school_admin_lists_and_erases_only_their_own_schools_teachers(school, school_admin, teacher, other_teacher,
                                                                        other_agent, other_school):
    _runs_for(other_school, other_agent, other_teacher)
    client = _as(school_admin)
    listing = client.get(CHANGELIST).content.decode()
    assert "wang" in listing and "chen" not in listing
    client.post(CHANGELIST, {"action": "erase_memory", ACTION_CHECKBOX_NAME: [other_teacher.pk], "post": "yes"})
    assert Run.objects.count() == 2 and not ErasureReceipt.objects.exists()


def test_an_end_user_is_erased_through_a_form_and_a_confirmation(school, school_admin, agent, api, other_school,
                                                              other_agent, other_key):
    api.run(agent, "出题", user="s1")
    api.run(other_agent, "出题", key=other_key, user="s1")
    client = _as(school_admin)
    url = "/admin/privacy/erasurereceipt/erase-end-user/"
    assert client.get(url).status_code == 200
    preview = client.post(url, {"end_user": "s1"}).content.decode()
    assert "确认，永久删除" in preview and Run.objects.count() == 2
    client.post(url, {"end_user": "s1", "post": "yes"})
    assert list(Run.objects.values_list("tenant__slug", flat=True)) == ["erzhong"]
    blank = client.post(url, {"end_user": "  ", "post": "yes"})
    assert blank.status_code == 200 and "errorlist" in blank.content.decode()  # refused in the form
    assert ErasureReceipt.objects.count() == 1


def test_receipts_are_read_only_and_only_the_schools_own(school, school_admin, teacher, other_school, other_teacher,
                                                         client):
    from privacy.services import owner_erase, subject_for_teacher

    mine = owner_erase(subject=subject_for_teacher(tenant=school, username="wang"), via="command")
    theirs = owner_erase(subject=subject_for_teacher(tenant=other_school, username="chen"), via="command")
    admin = _as(school_admin)
    listing = admin.get("/admin/privacy/erasurereceipt/").content.decode()
    assert mine["receipt_id"] in listing and theirs["receipt_id"] not in listing
    detail = admin.get(f"/admin/privacy/erasurereceipt/{quote(mine['receipt_id'])}/change/")
    assert detail.status_code == 200 and mine["subject_hash"] in detail.content.decode()
    assert admin.get(f"/admin/privacy/erasurereceipt/{quote(theirs['receipt_id'])}/change/").status_code in (302, 404)
    assert admin.post(f"/admin/privacy/erasurereceipt/{quote(mine['receipt_id'])}/delete/", {"post": "yes"}).status_code == 403
    assert ErasureReceipt.objects.count() == 2


def test_a_teacher_cannot_reach_the_erasure_admin(school, teacher):
    client = _as(teacher)
    assert client.get(CHANGELIST).status_code == 302
    assert client.get("/admin/privacy/erasurereceipt/erase-end-user/").status_code == 302
