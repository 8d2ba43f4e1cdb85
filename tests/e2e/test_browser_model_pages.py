"""Issue 12's model pages in a real browser (Debian's Chromium through Playwright, the
production server and a real memory worker): the built-in-model notice, provenance from
a fact to its conversation, the "模型看到了什么" drawer, and the costs page of a free model.

Screenshots land in $BROWSER_SCREENSHOTS (default: a pytest temp folder)."""

import json
import re
import textwrap

import pytest
from django.contrib.admin.utils import quote

from tests import procs
from tests.e2e.test_browser_pages import CHROMIUM, CHROMIUM_ARGS, PASSWORD, log_in, send

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(not __import__("pathlib").Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing"),
]

SETUP = textwrap.dedent("""
    import datetime, json
    from django.utils import timezone
    from agents.models import MemoryOp, Run
    from agents.services import agent_create, teacher_create, tenant_create
    from threads.models import Thread
    school = tenant_create(slug="yizhong", name="第一中学")
    demo = tenant_create(slug="sanzhong", name="第三中学")
    for name, full in {{"wang": "王老师", "li": "李老师", "free": "方老师"}}.items():
        teacher_create(tenant=school, username=name, password={password!r}, first_name=full)
    teacher_create(tenant=demo, username="zhang", password={password!r}, first_name="张老师")
    teacher_create(tenant=demo, username="guan", password={password!r}, first_name="管老师", role="school_admin",
                   is_staff=True)
    agent = agent_create(tenant=school, name="出题助手", provider_kind="scripted", model="scripted-zh")
    # The third school runs on the built-in model, as a fresh `make run` does.
    builtin = agent_create(tenant=demo, name="演示助手", provider_kind="local")
    # A week of a free (unpriced, local) model for the costs page: tokens, no money.
    from agents.models import User
    owner = User.objects.get(username="free")
    thread = Thread.objects.create(tenant=school, agent=agent, owner=owner, title="本周的试卷")
    now = timezone.now()
    for days_ago, prompt, completion, memory in [(0, 1800, 420, 600), (1, 1200, 300, 0), (3, 2400, 512, 900),
                                                 (5, 900, 200, 300)]:
        at = now - datetime.timedelta(days=days_ago)
        Run.objects.create(tenant=school, agent=agent, thread=thread, owner=owner, input="出题", output="题目",
                           status="completed", created_at=at, finished_at=at, prompt_tokens=prompt,
                           completion_tokens=completion)
        if memory:
            MemoryOp.objects.create(tenant=school, agent=agent, thread=thread, owner=owner, kind="compress",
                                    input_tokens=memory, output_tokens=memory // 5, at=at)
    print(json.dumps({{"agent": agent.pk, "builtin": builtin.pk}}))
""")


@pytest.fixture(scope="module")
def model_server():
    """A real OpenAI-compatible server on loopback (answers only the key `sk-right`)."""
    import threading
    from http.server import ThreadingHTTPServer

    from tests.agents.test_admin_provider import FakeOpenAI

    FakeOpenAI.received = []
    server = ThreadingHTTPServer(("127.0.0.1", procs.free_port()), FakeOpenAI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def site(tmp_path_factory, model_server):
    tmp = tmp_path_factory.mktemp("browser-model")
    # The operator set the third school's key on the server; the school admin names it.
    env = procs.project_env(tmp / "db.sqlite3", SCRIPTED_RESPONDER="tests.e2e.browser_responder.respond",
                            VAR_DIR=str(tmp / "var"), DEBUG="0", SANZHONG_QWEN_API_KEY="sk-right")
    procs.manage(env, "migrate", "--noinput")
    ids = json.loads(procs.manage(env, "shell", "-c", SETUP.format(password=PASSWORD)).strip().splitlines()[-1])
    with procs.web_server(env, tmp) as base, procs.memory_worker(env, tmp):
        yield {"base": base, "model_server": model_server, **ids}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    import os
    from pathlib import Path

    folder = Path(os.environ.get("BROWSER_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder


@pytest.fixture
def open_page(browser, site):
    contexts = []

    def _open(width=1280, height=860):
        context = browser.new_context(viewport={"width": width, "height": height}, base_url=site["base"])
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        return page

    yield _open
    for context in contexts:
        context.close()


def test_the_chat_says_quietly_that_the_agent_runs_on_the_built_in_model(open_page, site, shots):
    page = open_page()
    log_in(page, "zhang")
    notice = page.locator("#model-notice")
    assert notice.count() == 1 and notice.is_visible()
    assert "内置演示模型" in notice.inner_text()
    page.screenshot(path=str(shots / "chat-builtin-notice.png"))
    notice.locator("a").click()
    page.wait_for_url(re.compile(r"/help/model/$"))
    assert page.locator("h1").inner_text() == "接入真实模型"
    assert "SANZHONG_QWEN_API_KEY" in page.locator("main").inner_text()
    page.screenshot(path=str(shots / "help-model.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto("/chat/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(shots / "chat-builtin-notice-360.png"))
    assert page.errors == []


def test_an_agent_on_a_real_model_shows_no_notice(open_page, site):
    page = open_page()
    log_in(page, "wang")
    assert page.locator("#model-notice").count() == 0


def test_a_fact_links_to_the_conversation_and_reply_it_came_from(open_page, site, shots):
    page = open_page()
    log_in(page, "li")
    turn = send(page, "以后都按 100 分制出卷，我教高二（3）班")
    run_id = turn.get_attribute("data-run-id")
    thread_url = page.url
    page.goto("/memory/")
    candidate = page.locator("#pending-list li.candidate").filter(has_text="高二（3）班")

    def visible() -> bool:
        if candidate.count():
            return True
        page.reload()
        page.wait_for_function("() => document.getElementById('memory').dataset.loaded")
        return candidate.count() > 0

    procs.wait_until(visible, timeout=60)
    source = candidate.locator(".provenance")
    assert "来自" in source.inner_text() and "以后都按 100 分制出卷" in source.inner_text()
    candidate.locator("[data-action=confirm]").click()
    fact = page.locator("#confirmed-list li.fact").filter(has_text="高二（3）班")
    fact.wait_for()
    text = fact.locator(".provenance").inner_text()
    assert "李老师 于" in text and "确认" in text
    page.screenshot(path=str(shots / "memory-provenance.png"), full_page=True)

    fact.locator("a.source-link").click()
    page.wait_for_url(re.compile(re.escape(thread_url) + f"#turn-{run_id}$"))
    target = page.locator(f"#turn-{run_id}")
    assert target.is_visible() and "高二（3）班" in target.locator(".bubble.user").inner_text()
    assert page.evaluate("document.querySelector(':target') && document.querySelector(':target').id") == \
        f"turn-{run_id}"
    assert page.errors == []


def test_the_drawer_shows_what_the_model_saw_for_a_reply(open_page, site, shots):
    page = open_page()
    log_in(page, "wang")
    send(page, "出一份数据结构试卷")
    second = send(page, "简答题换两道")
    drawer = second.locator("details.context-drawer")
    assert drawer.locator("summary").inner_text() == "模型看到了什么"
    drawer.locator("summary").click()
    section = drawer.locator(".context-section[data-layer=thread]")
    section.wait_for()
    assert "本会话前情" in section.locator("h3").inner_text()
    assert re.search(r"\d+ / [\d,]+ token", section.locator(".meter").inner_text())
    assert "出一份数据结构试卷" in section.locator("pre").inner_text()
    assert re.search(r"记忆共用了 \d+ / [\d,]+ token", drawer.locator(".context-total").inner_text())
    drawer.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "chat-context-drawer.png"), full_page=True)
    # The server's snapshot and the drawer agree.
    snapshot = page.request.get(f"/api/runs/{second.get_attribute('data-run-id')}/context").json()
    thread = next(s for s in snapshot["sections"] if s["layer"] == "thread")
    assert section.locator(".meter").inner_text() == f"{thread['tokens']:,} / {thread['budget']:,} token"
    assert page.errors == []


def test_the_costs_page_of_a_free_model_charts_tokens_and_says_it_is_free(open_page, site, shots):
    page = open_page()
    log_in(page, "free")
    page.goto("/costs/?days=7")
    assert page.locator("#free-note").inner_text() == "本地模型，不产生费用"
    assert page.locator("#total-cost").inner_text() == "0.0000"
    assert page.locator("#usage-chart").get_attribute("data-metric") == "tokens"
    assert page.locator("#run-tokens").inner_text() == "7,732 token"
    assert page.locator("#memory-tokens").inner_text() == "2,160 token"
    heights = [float(h) for h in page.locator(".cost-chart .bar-run").evaluate_all(
        "bars => bars.map(b => b.getAttribute('height'))")]
    assert sum(1 for h in heights if h > 0) == 4, "one bar per day with runs"
    assert page.locator("#cost-per-agent tbody tr").count() == 1
    page.screenshot(path=str(shots / "costs-free.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(shots / "costs-free-360.png"), full_page=True)
    assert page.errors == []


def test_a_school_admin_connects_the_demo_agent_to_a_real_model_and_tests_it(open_page, site, shots):
    """Last in this file: afterwards the third school's agent is on a real model."""
    from tests.agents.test_admin_provider import FakeOpenAI

    page = open_page()
    page.goto("/admin/login/")
    page.fill("#id_username", "guan")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.goto(f"/admin/agents/agent/{quote(site['builtin'])}/change/")
    page.select_option("#id_provider_kind", "openai")
    page.fill("#id_base_url", site["model_server"])
    page.fill("#id_model", "qwen-plus")
    page.fill("#id_api_key_env", "QWEN_API_KEY")
    page.click("input[name=_continue]")
    error = page.locator(".field-api_key_env .errorlist")
    assert "SANZHONG_" in error.inner_text(), "another school's or the server's secret is refused"
    page.fill("#id_api_key_env", "SANZHONG_QWEN_API_KEY")
    page.click("input[name=_continue]")
    page.locator(".messagelist .success").first.wait_for()
    calls_before = len(FakeOpenAI.received)
    page.click("form.test-connection button")
    success = page.locator(".messagelist .success").filter(has_text="连接成功")
    success.wait_for()
    assert "qwen-plus" in success.inner_text()
    assert len(FakeOpenAI.received) == calls_before + 1
    assert FakeOpenAI.received[-1]["auth"] == "Bearer sk-right"
    page.screenshot(path=str(shots / "admin-test-connection.png"), full_page=True)

    teacher = open_page()
    log_in(teacher, "zhang")
    assert teacher.locator("#model-notice").count() == 0, "a real model: no demo-model notice"
