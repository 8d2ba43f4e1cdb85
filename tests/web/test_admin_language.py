"""The admin a school admin sees is Chinese by default and English when they switch:
every column header, filter title, action, form label and section, on every page they
can open (no "AT", "AGENT", "以 agent", "Group" or "Cluster" left over)."""

import html as html_lib
import re

import pytest
from django.conf import settings
from django.contrib.admin.utils import quote
from django.test import Client

from agents.models import Run
from corememory.models import CoreCandidate
from tests.web.admin_seed import seed_school
from tests.web.test_admin_scoping import admin_pages

CJK = re.compile(r"[\u4e00-\u9fff]")


def texts(pattern: str, page: str, skip_forms: bool = False) -> list[str]:
    found = []
    if skip_forms:  # the action bar's label wraps its <select>: the options are checked as actions
        page = re.sub(r'<div class="actions">.*?</div>', "", page, flags=re.S)
    for raw in re.findall(pattern, page, re.S):
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", raw)).strip().rstrip(":：").strip()
        if text and text not in ("-", "—", "---------"):
            found.append(text)
    return found


def labels_of(page: str) -> dict[str, list[str]]:
    """What the admin names, rather than what the data says."""
    return {
        "column": texts(r'<th scope="col"[^>]*>\s*(?:<div class="sortoptions">.*?</div>\s*)?'
                        r'<div class="text">(.*?)</div>', page),
        "filter": texts(r'data-filter-title="([^"]*)"', page) + texts(r"<summary>(.*?)</summary>", page),
        "action": texts(r'<option value="[a-z_]+">(.*?)</option>',
                        "".join(re.findall(r'<select name="action".*?</select>', page, re.S))),
        "label": texts(r"<label[^>]*>(.*?)</label>", page, skip_forms=True),
        "section": texts(r"<caption>(.*?)</caption>", page) + texts(r'<th scope="row"[^>]*>(.*?)</th>', page)
        + texts(r"<fieldset[^>]*>\s*<h2[^>]*>(.*?)</h2>", page),
    }


@pytest.fixture
def school_admin_client(db):
    seeded = seed_school(slug="yizhong", name="第一中学", marker="甲校")
    client = Client()
    client.force_login(seeded.admin)
    return seeded, client


def visit_all(seeded, client):
    urls = ["/admin/"] + list(admin_pages(client, seeded.admin))
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        yield url, response.content.decode()


def test_every_admin_label_is_chinese_by_default(school_admin_client):
    seeded, client = school_admin_client
    english = []
    seen = 0
    for url, page in visit_all(seeded, client):
        for kind, names in labels_of(page).items():
            seen += len(names)
            english += [(url, kind, name) for name in names if not CJK.search(name)]
    assert seen > 200
    assert not english, english


def test_every_admin_label_is_english_after_the_switch(school_admin_client):
    seeded, client = school_admin_client
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    chinese = []
    for url, page in visit_all(seeded, client):
        for kind, names in labels_of(page).items():
            chinese += [(url, kind, name) for name in names if CJK.search(name)]
    assert not chinese, chinese


def test_the_columns_the_issue_named_are_translated(school_admin_client):
    seeded, client = school_admin_client
    page = client.get("/admin/agents/memoryop/").content.decode()
    assert {"时间", "智能体", "运行", "输入 / 输出 token", "费用"} <= set(labels_of(page)["column"])
    assert "以 智能体" in labels_of(page)["filter"]
    index = client.get("/admin/").content.decode()
    assert "记忆队列" in labels_of(index)["section"]
    tasks = labels_of(client.get("/admin/django_q/success/").content.decode())
    assert not {"Group", "Cluster", "分组", "集群"} & set(tasks["filter"] + tasks["column"])


def test_confidence_is_a_percentage(school_admin_client):
    seeded, client = school_admin_client
    CoreCandidate.objects.filter(tenant=seeded.tenant).update(confidence=0.8999999999999999)
    page = client.get("/admin/corememory/corecandidate/").content.decode()
    assert "90%" in page and "0.8999" not in page


def test_lists_are_newest_first(school_admin_client):
    seeded, client = school_admin_client
    runs = list(Run.objects.filter(tenant=seeded.tenant).order_by("created_at"))
    page = client.get("/admin/agents/run/").content.decode()
    assert page.index(quote(runs[-1].pk)) < page.index(quote(runs[0].pk))


def test_long_texts_are_wrapped_previews_with_the_whole_text_on_hover(school_admin_client):
    seeded, client = school_admin_client
    long_text = "甲校" + "很长的输入" * 100
    Run.objects.filter(pk=seeded.run.pk).update(input=long_text)
    page = client.get("/admin/agents/run/").content.decode()
    assert f'class="admin-text" title="{long_text}"' in page
    assert page.count(long_text) == 1  # the cell itself shows a preview
    assert "web/admin.css" in page
