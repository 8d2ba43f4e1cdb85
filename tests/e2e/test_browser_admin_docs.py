"""The school admin's admin and the API docs in a real browser (Debian's Chromium through
Playwright, against gunicorn), with every request that leaves the machine blocked: a
school network without Internet. Screenshots land in $BROWSER_SCREENSHOTS (default: a
pytest temp folder)."""

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests import procs
from tests.e2e.test_browser_pages import CHROMIUM, browser, shots  # noqa: F401 (fixtures)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing: run scripts/system-deps.sh"),
]

PASSWORD = "pw-admin-123"  # tests/web/admin_seed.py
SETUP = """
import json
from tests.web.admin_seed import seed_school
first = seed_school(slug="yizhong", name="第一中学", marker="甲校")
second = seed_school(slug="erzhong", name="第二中学", marker="乙校")
print(json.dumps({"admin": second.admin.username, "foreign": sorted(first.secrets)}))
"""
LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("admin-browser")
    env = procs.project_env(tmp / "db.sqlite3", VAR_DIR=str(tmp / "var"), DEBUG="0")
    procs.manage(env, "migrate", "--noinput")
    seeded = json.loads(procs.manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
    with procs.web_server(env, tmp) as base:
        yield {"base": base, **seeded}


@pytest.fixture
def offline_page(browser, site):  # noqa: F811
    """A page whose requests beyond loopback are aborted and remembered."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=site["base"])
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.blocked, page.errors = [], []

    def guard(route):
        host = urlsplit(route.request.url).hostname or ""
        if host in LOOPBACK:
            return route.continue_()
        page.blocked.append(route.request.url)
        return route.abort("internetdisconnected")

    context.route("**/*", guard)
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    context.close()


def test_the_api_docs_render_their_operations_without_internet(offline_page, site, shots):  # noqa: F811
    page = offline_page
    page.goto("/api/docs")
    page.locator(".opblock").first.wait_for()
    operations = page.locator(".opblock").count()
    assert operations >= 15
    assert page.locator(".opblock-summary-path", has_text="/api/agents/{agent_id}/run").count() >= 1
    page.screenshot(path=str(shots / "api-docs.png"))
    assert page.blocked == [], page.blocked  # nothing even tried a CDN or validator.swagger.io
    assert page.errors == []


def admin_log_in(page, username):
    page.goto("/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(r"/admin/$"))


def test_a_school_admin_sees_a_chinese_admin_of_their_school_only(offline_page, site, shots):  # noqa: F811
    page = offline_page
    admin_log_in(page, site["admin"])
    index = page.locator("#content-main").inner_text()
    assert "记忆队列" in index and "MEMORY QUEUE" not in index.upper().replace("记忆队列", "")
    page.screenshot(path=str(shots / "admin-index.png"), full_page=True)
    for path, name in [("/admin/corememory/corecandidate/", "admin-candidates.png"),
                       ("/admin/agents/memoryop/", "admin-memoryops.png"),
                       ("/admin/threads/thread/", "admin-threads.png"),
                       ("/admin/agents/run/", "admin-runs.png"),
                       ("/admin/django_q/success/", "admin-memory-queue.png")]:
        page.goto(path)
        headers = page.locator("#result_list thead th").all_inner_texts()
        named = [h.strip() for h in headers if h.strip()]
        assert named and all(re.search(r"[\u4e00-\u9fff]", h) for h in named), (path, named)
        filters = page.locator("#changelist-filter summary").all_inner_texts()
        assert all(re.search(r"[\u4e00-\u9fff]", f) for f in filters), (path, filters)
        html = page.content()
        assert not [s for s in site["foreign"] if s in html], path
        page.screenshot(path=str(shots / name), full_page=True)
    # A run's page: every field named in Chinese, the long texts readable.
    page.goto("/admin/agents/run/")
    page.locator("#result_list tbody tr th a").first.click()
    page.wait_for_url(re.compile(r"/admin/agents/run/.+/change/$"))
    labels = [t.strip().rstrip(":：") for t in page.locator("#content-main label").all_inner_texts() if t.strip()]
    assert len(labels) > 10 and all(re.search(r"[\u4e00-\u9fff]", t) for t in labels), labels
    page.screenshot(path=str(shots / "admin-run-detail.png"), full_page=True)
    # A candidate's text is a readable column, not two characters wide.
    page.goto("/admin/corememory/corecandidate/")
    width = page.locator("#result_list .admin-text").first.evaluate("e => e.getBoundingClientRect().width")
    assert width >= 150, width
    assert page.locator("#result_list", has_text="90%").count() == 1
    # Confirming asks first.
    page.locator("#result_list tbody input.action-select").first.check()
    page.select_option("select[name=action]", "confirm_candidates")
    page.click("button[name=index]")
    page.wait_for_selector("input[name=post][value=yes]", state="attached")
    page.screenshot(path=str(shots / "admin-confirm.png"))
    assert page.blocked == [], page.blocked
