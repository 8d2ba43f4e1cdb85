"""The teacher pages in a real browser: headless Chromium (Debian's package, driven by
Playwright) against the production server and a real memory worker on a database of their
own (a file SQLite one, or a fresh PostgreSQL one when the suite runs there), with agents
on the scripted provider (replies from tests/e2e/browser_responder.py).

Screenshots of the main pages land in $BROWSER_SCREENSHOTS (default: a pytest temp folder).
"""

import json
import os
import re
import textwrap
from pathlib import Path

import pytest

from tests import procs

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
PASSWORD = "pw-browser-123"
# One persona per scenario, so no scenario sees another's threads.
TEACHERS = {
    "wang": "王老师", "li": "李老师", "sun": "孙老师", "zhou": "周老师", "wu": "吴老师", "zheng": "郑老师",
    "feng": "冯老师",
}

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: run `bash scripts/system-deps.sh` as root (Debian chromium)"),
]

SETUP = textwrap.dedent("""
    import datetime, decimal, json
    from django.utils import timezone
    from agents.models import MemoryOp, Run
    from agents.services import agent_create, teacher_create, tenant_create
    from threads.models import Thread
    school = tenant_create(slug="yizhong", name="第一中学")
    other = tenant_create(slug="erzhong", name="第二中学")
    users = {{name: teacher_create(tenant=school, username=name, password={password!r}, first_name=full)
             for name, full in {teachers!r}.items()}}
    teacher_create(tenant=other, username="chen", password={password!r}, first_name="陈老师")
    # Priced like qwen-plus so the costs page has numbers; the replies are scripted.
    agent = agent_create(tenant=school, name="出题助手", provider_kind="scripted", model="qwen-plus")
    second = agent_create(tenant=school, name="评语助手", provider_kind="scripted", model="qwen-plus")
    # Earlier days for the costs page (feng): runs in an archived thread, memory operations.
    feng = users["feng"]
    old = Thread.objects.create(tenant=school, agent=agent, owner=feng, title="上周的试卷", status="archived")
    now = timezone.now()
    for days_ago, run_cost, op_cost in [(1, "0.0210", "0.0040"), (2, "0.0120", "0.0025"), (4, "0.0305", "0.0060"),
                                        (6, "0.0080", "0.0000"), (9, "0.0150", "0.0030")]:
        at = now - datetime.timedelta(days=days_ago)
        Run.objects.create(tenant=school, agent=agent, thread=old, owner=feng, input="出题", output="题目",
                           status="completed", created_at=at, finished_at=at, cost=decimal.Decimal(run_cost))
        if op_cost != "0.0000":
            MemoryOp.objects.create(tenant=school, agent=agent, thread=old, owner=feng, kind="compress",
                                    cost=decimal.Decimal(op_cost), input_tokens=900, output_tokens=120, at=at)
    print(json.dumps({{"agent": agent.pk, "second": second.pk}}))
""")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    env = procs.project_env(
        tmp / "db.sqlite3",
        SCRIPTED_RESPONDER="tests.e2e.browser_responder.respond",
        VAR_DIR=str(tmp / "var"),
        DEBUG="0",
    )
    procs.manage(env, "migrate", "--noinput")
    ids = json.loads(procs.manage(env, "shell", "-c", SETUP.format(password=PASSWORD, teachers=TEACHERS))
                     .strip().splitlines()[-1])
    with procs.web_server(env, tmp) as base, procs.memory_worker(env, tmp):
        yield {"base": base, "tmp": tmp, **ids}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
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


def log_in(page, username):
    page.goto("/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/chat/"))


def watch_streaming(page):
    """Record what the streaming bubble shows while deltas arrive (before the final render)."""
    page.evaluate("""() => {
        window.__streamed = [];
        new MutationObserver(() => {
            document.querySelectorAll('.turn.streaming .stream-text').forEach(n => {
                if (n.textContent) window.__streamed.push(n.textContent);
            });
        }).observe(document.getElementById('messages'), {subtree: true, childList: true, characterData: true});
    }""")


def send(page, text):
    before = page.locator("#messages .turn").count()
    exchanges = int(page.locator("#chat").get_attribute("data-exchanges") or 0)
    page.fill("#composer-input", text)
    page.click("#send-button")
    # Done: the streamed bubble was swapped for the server's rendering and the sidebar redrawn.
    page.wait_for_function(f"() => Number(document.getElementById('chat').dataset.exchanges || 0) > {exchanges}")
    page.locator("#messages .turn").nth(before).locator(".bubble.assistant.completed, .bubble.assistant.failed") \
        .wait_for()
    assert not page.locator("#send-button").is_disabled()
    return page.locator("#messages .turn").nth(before)


def ensure_a_thread(page):
    """Scenarios that only read a teacher's chat don't depend on the order tests run in."""
    if page.locator("#messages .turn").count() == 0:
        send(page, "出一份数据结构试卷")


def api_has(page, path_template: str) -> bool:
    spec = page.request.get("/api/openapi.json").json()
    return path_template in spec.get("paths", {})


def test_a_teacher_logs_in_chats_in_one_thread_and_finds_both_turns_again(open_page, site, shots):
    page = open_page()
    page.goto("/chat/")
    assert "/login/" in page.url
    page.screenshot(path=str(shots / "login.png"))
    log_in(page, "wang")
    assert page.locator(".who .school").inner_text() == "第一中学"
    assert page.locator(".who .teacher").inner_text() == "王老师"

    watch_streaming(page)
    first = send(page, "出一份数据结构试卷")
    streamed = page.evaluate("window.__streamed")
    assert streamed and "数据结构期中试卷" in streamed[-1], "the reply was not shown while it streamed"
    assert first.locator(".md h1").inner_text() == "数据结构期中试卷"
    assert first.locator(".md h2").count() == 2
    assert first.locator(".md pre code").inner_text().startswith("def push")
    thread_url = page.url
    assert re.search(r"/chat/t/th_\w+/$", thread_url), "a new thread's URL was not adopted"

    second = send(page, "简答题换两道")
    assert "比较顺序表和链表" in second.inner_text()
    assert "接着上一份试卷" in second.inner_text(), "the second message did not know about the first"
    assert page.url == thread_url

    page.reload()
    turns = page.locator("#messages .turn")
    assert turns.count() == 2
    assert "出一份数据结构试卷" in turns.nth(0).locator(".bubble.user").inner_text()
    assert turns.nth(0).locator(".md h1").inner_text() == "数据结构期中试卷"
    assert "简答题换两道" in turns.nth(1).locator(".bubble.user").inner_text()
    page.screenshot(path=str(shots / "chat-desktop.png"), full_page=True)

    page.click("a.new-thread")
    page.wait_for_url(re.compile(r"/chat/new/$"))
    assert page.locator("#messages .turn").count() == 0
    send(page, "写一段期末评语")
    newest_url = page.url
    assert newest_url != thread_url
    rows = page.locator("#thread-list .thread-row")
    assert rows.count() == 2
    assert "写一段期末评语" in rows.nth(0).inner_text()

    rows.filter(has_text="出一份数据结构试卷").locator("a").click()
    page.wait_for_url(thread_url)
    assert page.locator("#messages .turn").count() == 2

    # Opening the chat again continues the most recently used active thread.
    page.goto("/chat/")
    assert page.url == newest_url
    assert page.errors == []


def test_html_and_script_in_a_reply_render_as_text(open_page, site):
    page = open_page()
    log_in(page, "sun")
    turn = send(page, "XSS 测试")
    reply = turn.locator(".bubble.assistant")
    assert "<script>window.__xss = 1</script>" in reply.inner_text()
    assert '<img src="x" onerror="window.__xss = 2">' in reply.inner_text()
    assert reply.locator("script, img, [onerror]").count() == 0
    assert reply.locator("a[href^='javascript']").count() == 0
    page.reload()
    reply = page.locator("#messages .turn .bubble.assistant").first
    assert "<script>" in reply.inner_text()
    assert reply.locator("script, img").count() == 0
    assert page.evaluate("window.__xss === undefined")


def test_a_failed_run_shows_a_friendly_message_not_a_code(open_page, site):
    page = open_page()
    log_in(page, "zheng")
    turn = send(page, "这次会超时")
    reply = turn.locator(".bubble.assistant.failed").inner_text()
    assert "超时" in reply and "provider_timeout" not in reply
    page.reload()
    reply = page.locator(".bubble.assistant.failed").inner_text()
    assert "超时" in reply and "provider_timeout" not in reply


def test_continuing_on_a_previous_artifact_sends_its_run_id(open_page, site):
    page = open_page()
    log_in(page, "wu")
    first = send(page, "出一份数据结构试卷")
    run_id = first.get_attribute("data-run-id")
    first.locator(".continue-button").click()
    assert page.locator("#continue-chip").is_visible()
    continued = send(page, "选择题改成 10 道")
    assert "已在上次产物上继续" in continued.locator(".bubble.assistant").inner_text()
    assert continued.locator(".tag.continued").is_visible()
    new_run = page.request.get(f"/api/runs/{continued.get_attribute('data-run-id')}").json()
    assert new_run["continued_from"] == run_id
    assert not page.locator("#continue-chip").is_visible()
    # The next plain message does not continue anything.
    plain = send(page, "谢谢")
    assert page.request.get(f"/api/runs/{plain.get_attribute('data-run-id')}").json()["continued_from"] is None


def test_the_chat_works_at_360_pixels(open_page, site, shots):
    page = open_page(width=360, height=740)
    log_in(page, "wang")
    ensure_a_thread(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, "the page scrolls sideways at 360px"
    assert not page.locator("#sidebar").is_visible()
    page.click(".sidebar-toggle")
    assert page.locator("#sidebar").is_visible()
    page.screenshot(path=str(shots / "chat-360-threads.png"), full_page=True)
    page.click(".sidebar-toggle")
    page.screenshot(path=str(shots / "chat-360.png"), full_page=True)
    assert page.locator("#composer-input").is_visible()


def test_a_teacher_renames_and_archives_a_thread(open_page, site):
    page = open_page()
    log_in(page, "zhou")
    if not api_has(page, "/api/threads/{thread_id}/archive"):
        pytest.skip("the thread API (rename, archive) is not on this branch yet")
    send(page, "出一份数据结构试卷")
    thread_url = page.url
    page.click("#rename-button")
    page.fill("#rename-input", "期中试卷（二班）")
    page.click("#rename-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('thread-title').textContent === '期中试卷（二班）'")
    page.locator("#thread-list a[aria-current=page]").filter(has_text="期中试卷（二班）").wait_for()
    page.reload()
    assert page.locator("#thread-title").inner_text() == "期中试卷（二班）"

    page.once("dialog", lambda dialog: dialog.accept())  # archiving asks first
    page.click("#archive-button")
    page.wait_for_url(re.compile(r"/chat/(new/)?$"))
    assert page.url != thread_url
    assert "期中试卷（二班）" not in page.locator("#thread-list").inner_text()


def test_a_pending_candidate_is_confirmed_in_one_click_and_red_lines_are_refused(open_page, site, shots):
    page = open_page()
    log_in(page, "li")
    if not api_has(page, "/api/agents/{agent_id}/memory"):
        pytest.skip("the core memory API is not on this branch yet")
    send(page, "以后都按 100 分制出卷，我教高二（3）班")
    page.goto("/memory/")
    candidate = page.locator("#pending-list li.candidate").filter(has_text="100 分制")
    procs.wait_until(lambda: _reload_until_visible(page, candidate), timeout=60)
    candidate.locator("[data-action=confirm]").click()
    page.locator("#confirmed-list li.fact").filter(has_text="100 分制").wait_for()
    assert page.locator("#pending-list li.candidate").filter(has_text="100 分制").count() == 0

    page.fill("#add-fact-input", "张三的身份证号是 110101199003071234，数学考了 59 分")
    page.click("#add-fact-form button[type=submit]")
    error = page.locator("#add-fact-error")
    error.wait_for()
    assert "敏感" in error.inner_text() and "sensitive_content" not in error.inner_text()
    assert "110101199003071234" not in page.locator("#confirmed-list").inner_text()
    page.screenshot(path=str(shots / "memory-refused.png"))

    page.fill("#add-fact-input", "我习惯在试卷最后附上答案")
    page.click("#add-fact-form button[type=submit]")
    page.locator("#confirmed-list li.fact").filter(has_text="附上答案").wait_for()
    # A candidate confirmed after editing its text.
    send_from_memory_page(page, "下学期我改教高一（1）班，也用 100 分制")
    candidate = page.locator("#pending-list li.candidate").filter(has_text="高一（1）班")
    candidate.locator("[data-action=edit]").click()
    candidate.locator(".fact-edit textarea").fill("下学期我改教高一（1）班和高一（2）班。")
    candidate.locator("[data-action=confirm]").click()
    page.locator("#confirmed-list li.fact").filter(has_text="高一（2）班").wait_for()
    assert page.locator("#pending-list li.candidate").count() == 0
    # And one more waits under 待确认 for the screenshot.
    send_from_memory_page(page, "期末考试也按这个来")
    page.screenshot(path=str(shots / "memory.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(shots / "memory-360.png"), full_page=True)
    assert page.errors == []


def test_confirming_the_31st_fact_tells_which_fact_was_evicted(open_page, site, shots):
    page = open_page()
    log_in(page, "wu")
    if not api_has(page, "/api/agents/{agent_id}/memory"):
        pytest.skip("the core memory API is not on this branch yet")
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    for n in range(30):
        response = page.request.post(f"/api/agents/{site['agent']}/memory/facts", data={"text": f"第 {n + 1} 条偏好"},
                                     headers={"X-CSRFToken": token})
        assert response.status == 201, response.text()
    page.goto("/memory/")
    page.wait_for_function("() => document.getElementById('memory').dataset.loaded")
    assert page.locator("#confirmed-count").inner_text() == "30/30"
    page.fill("#add-fact-input", "第 31 条偏好")
    page.click("#add-fact-form button[type=submit]")
    notice = page.locator("#memory-notice.warning")
    notice.wait_for()
    assert "第 1 条偏好" in notice.inner_text()
    page.locator("#confirmed-list li.fact").filter(has_text="第 31 条偏好").wait_for()
    assert page.locator("#confirmed-count").inner_text() == "30/30"
    assert page.locator("#confirmed-list li.fact").filter(has_text="第 1 条偏好").count() == 0
    page.screenshot(path=str(shots / "memory-eviction.png"))


def send_from_memory_page(page, text):
    """A chat message sent through the API the chat page uses, then wait for its candidate."""
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    agent_id = page.locator("#memory").get_attribute("data-agent-id")
    response = page.request.post(f"/api/agents/{agent_id}/run", data={"input": text}, headers={"X-CSRFToken": token})
    assert response.status == 200
    procs.wait_until(lambda: _reload_until_visible(page, page.locator("#pending-list li.candidate")), timeout=60)


def _reload_until_visible(page, locator) -> bool:
    if locator.count():
        return True
    page.reload()
    page.wait_for_function("() => document.getElementById('memory').dataset.loaded")
    return locator.count() > 0


def test_the_page_switches_to_english(open_page, site, shots):
    page = open_page()
    log_in(page, "wang")
    assert page.locator("a.new-thread").inner_text().endswith("新建会话")
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.locator("a.new-thread").inner_text().endswith("New chat")
    assert page.locator("#send-button").inner_text() == "Send"
    nav = page.locator(".mainnav").inner_text()
    assert "Memory" in nav and "Costs" in nav
    for selector in (".mainnav", "#composer", ".sidebar h2", ".chat-head .thread-actions"):
        assert not re.search(r"[\u4e00-\u9fff]", page.locator(selector).inner_text()), selector
    page.screenshot(path=str(shots / "chat-english.png"), full_page=True)
    page.goto("/memory/")
    assert page.locator("h1").inner_text().startswith("Memory")
    page.goto("/costs/")
    assert page.locator("h1").inner_text() == "Costs"
    with page.expect_navigation():
        page.select_option("#language-select", "zh-hans")
    assert page.locator("h1").inner_text() == "费用"


def test_a_teacher_whose_school_has_several_agents_picks_one(open_page, site):
    page = open_page()
    log_in(page, "zheng")
    ensure_a_thread(page)
    assert page.locator("#agent-select option:checked").inner_text() == "出题助手"
    with page.expect_navigation():
        page.select_option("#agent-select", site["second"])
    assert page.locator("#agent-select option:checked").inner_text() == "评语助手"
    assert page.locator("#chat").get_attribute("data-agent-id") == site["second"]
    assert page.locator("#thread-list .thread-row").count() == 0
    turn = send(page, "写一段期末评语")
    run = page.request.get(f"/api/runs/{turn.get_attribute('data-run-id')}").json()
    assert run["agent_id"] == site["second"]
    with page.expect_navigation():
        page.select_option("#agent-select", site["agent"])
    assert "写一段期末评语" not in page.locator("#thread-list").inner_text()


def test_the_costs_page_charts_run_and_memory_cost_per_day(open_page, site, shots):
    page = open_page()
    log_in(page, "feng")
    page.goto("/costs/")
    assert page.locator("svg.cost-chart rect.bar-run").count() == 14
    assert float(page.locator("#total-cost").inner_text()) == pytest.approx(0.0865 + 0.0155, abs=1e-4)
    assert page.locator("#cost-per-day tbody tr").count() == 5
    page.screenshot(path=str(shots / "costs.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(shots / "costs-360.png"), full_page=True)


def test_a_second_teacher_sees_neither_the_first_teachers_threads_nor_facts(open_page, site):
    first = open_page()
    log_in(first, "wang")
    ensure_a_thread(first)
    thread_url = first.url
    assert "/chat/t/" in thread_url
    first_titles = first.locator("#thread-list").inner_text()
    assert "出一份数据结构试卷" in first_titles

    second = open_page()
    log_in(second, "li")
    assert "出一份数据结构试卷" not in second.locator("#thread-list").inner_text()
    response = second.goto(thread_url)
    assert response.status == 404
    thread_id = thread_url.rstrip("/").rsplit("/", 1)[1]
    assert second.request.get(f"/api/runs/{first.locator('#messages .turn').first.get_attribute('data-run-id')}") \
        .status == 404
    if api_has(second, "/api/agents/{agent_id}/memory"):
        first.goto("/memory/")
        first.fill("#add-fact-input", "王老师的第七节课在实验楼")
        first.click("#add-fact-form button[type=submit]")
        first.locator("#confirmed-list li.fact").filter(has_text="实验楼").wait_for()
        second.goto("/memory/")
        second.wait_for_function("() => document.getElementById('memory').dataset.loaded")
        assert "实验楼" not in second.locator("#memory").inner_text()
    # And a teacher of another school can't open it either.
    other = open_page()
    log_in(other, "chen")
    assert other.goto(f"/chat/t/{thread_id}/").status == 404
