"""The privacy pages in a real browser (Debian's Chromium through Playwright) against
gunicorn and a real memory worker: a teacher deletes a conversation through its
confirmation page and is told the confirmed fact stays; 导出我的数据 downloads a JSON
export holding that fact."""

import json
import textwrap
from pathlib import Path

import pytest

from tests import procs
from tests.e2e.test_browser_pages import CHROMIUM, CHROMIUM_ARGS, PASSWORD, log_in, send
from tests.privacy.canary import new_canary

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (Debian chromium)"),
]

SETUP = textwrap.dedent(f"""
    from agents.services import agent_create, teacher_create, tenant_create
    school = tenant_create(slug="yizhong", name="第一中学")
    teacher_create(tenant=school, username="wang", password={PASSWORD!r}, first_name="王老师")
    agent_create(tenant=school, name="出题助手", provider_kind="scripted", model="scripted-zh")
""")


def test_a_teacher_deletes_a_conversation_keeps_the_fact_and_exports_it(tmp_path):
    from playwright.sync_api import sync_playwright

    env = procs.project_env(tmp_path / "db.sqlite3", SCRIPTED_RESPONDER="tests.privacy.slow_responder.respond",
                            VAR_DIR=str(tmp_path / "var"), DEBUG="0")
    procs.manage(env, "migrate", "--noinput")
    procs.manage(env, "shell", "-c", SETUP)
    canary = new_canary()
    with procs.web_server(env, tmp_path) as base, procs.memory_worker(env, tmp_path), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(base_url=base, accept_downloads=True)
        context.set_default_timeout(20_000)
        page = context.new_page()
        log_in(page, "wang")
        send(page, f"{canary} 出一份数据结构试卷")
        # The worker proposes a fact; the teacher's confirmation is a person's act (here, the shell).
        procs.wait_until(lambda: procs.db_query(env, "SELECT COUNT(*) FROM corememory_corecandidate")[0][0])
        procs.django_eval(env, "from corememory.models import CoreCandidate; "
                               "from corememory.services import candidate_confirm; c = CoreCandidate.objects.get(); "
                               "candidate_confirm(tenant=c.tenant, candidate=c, confirmed_by=c.owner); print('ok')")

        page.goto("/chat/")
        page.click("#delete-thread-link")
        confirmation = page.locator("main").inner_text()
        assert "删除会话" in confirmation and "你确认过的 1 条事实来自这段对话" in confirmation
        page.click("main button[type=submit]")
        page.wait_for_selector("text=会话已删除")
        assert "不再关联到这段对话" in page.locator("main").inner_text()
        assert procs.db_query(env, "SELECT COUNT(*) FROM agents_run")[0][0] == 0

        page.goto("/memory/")
        with page.expect_download() as download_info:
            page.click("#export-link")
        export = json.loads(Path(download_info.value.path()).read_text(encoding="utf-8"))
        browser.close()

    assert export["schema_version"] == 1 and export["threads"] == []
    assert [canary in fact["text"] and fact["source_run"] is None for fact in export["facts"]] == [True]
