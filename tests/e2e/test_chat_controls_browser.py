"""The chat page's controls in a real browser (Debian's Chromium via Playwright) against
gunicorn, a real django-q2 memory worker and, for 停止生成, a slow OpenAI-compatible model
server over real HTTP (bench/slow_openai_server.py), which logs whether its stream was
read to the end or closed early.

Screenshots land in $BROWSER_SCREENSHOTS (default: a pytest temp folder)."""

import io
import json
import re
import subprocess
import sys
import textwrap

import pytest

from tests import procs
from tests.e2e.browser_responder import EXAM
from tests.e2e.test_browser_pages import CHROMIUM, PASSWORD, browser, log_in, open_page, send, shots  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.browser,
              pytest.mark.skipif(not __import__("pathlib").Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing")]

TEACHERS = {"wu": "吴老师", "zheng": "郑老师", "feng": "冯老师", "he": "何老师", "lu": "陆老师", "shi": "施老师"}
SLOW_CHUNKS = 60

SETUP = textwrap.dedent("""
    import json
    from agents.services import agent_create, teacher_create, tenant_create
    school = tenant_create(slug="yizhong", name="第一中学")
    for name, full in {teachers!r}.items():
        teacher_create(tenant=school, username=name, password={password!r}, first_name=full)
    agent = agent_create(tenant=school, name="出题助手", provider_kind="scripted", model="qwen-plus")
    short = agent_create(tenant=school, name="短答助手", provider_kind="scripted", model="qwen-plus",
                         max_output_tokens=30)
    slow = agent_create(tenant=school, name="慢速助手", provider_kind="openai", base_url={slow_url!r}, model="slow")
    print(json.dumps({{"agent": agent.pk, "short": short.pk, "slow": slow.pk}}))
""")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chat-controls")
    slow_port = procs.free_port()
    slow_log = tmp / "slow-server.log"
    slow = subprocess.Popen(
        [sys.executable, str(procs.ROOT / "bench" / "slow_openai_server.py"), "--port", str(slow_port),
         "--chunks", str(SLOW_CHUNKS), "--delay", "0.25", "--log", str(slow_log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        procs.wait_for_http(f"http://127.0.0.1:{slow_port}/v1/models", proc=slow)
        env = procs.project_env(tmp / "db.sqlite3", SCRIPTED_RESPONDER="tests.e2e.browser_responder.respond",
                                VAR_DIR=str(tmp / "var"), DEBUG="0")
        procs.manage(env, "migrate", "--noinput")
        setup = SETUP.format(password=PASSWORD, teachers=TEACHERS, slow_url=f"http://127.0.0.1:{slow_port}/v1")
        ids = json.loads(procs.manage(env, "shell", "-c", setup).strip().splitlines()[-1])
        with procs.web_server(env, tmp) as base, procs.memory_worker(env, tmp):
            yield {"base": base, "tmp": tmp, "env": env, "slow_log": slow_log, **ids}
    finally:
        procs.stop(slow)


def choose_agent(page, agent_id):
    page.select_option("#agent-select", agent_id)
    page.wait_for_load_state("load")
    page.locator(f'#chat[data-agent-id="{agent_id}"][data-ready="1"]').wait_for()


def run_row(site, run_id):
    return procs.db_query(site["env"], "SELECT status, output, error_code FROM agents_run WHERE id = ?", (run_id,))[0]


def test_stop_keeps_what_was_streamed_marks_it_and_closes_the_models_stream(open_page, site, shots):
    page = open_page()
    log_in(page, "wu")
    choose_agent(page, site["slow"])
    page.click("a.new-thread")
    page.fill("#composer-input", "写一篇很长的教学反思")
    page.click("#send-button")
    assert page.locator("#stop-button").is_visible() and not page.locator("#send-button").is_visible()
    page.wait_for_function("() => (document.querySelector('.turn.streaming .stream-text') || {}).textContent"
                           " && document.querySelector('.turn.streaming .stream-text').textContent.includes('第3段')")
    page.screenshot(path=str(shots / "chat-generating.png"))
    page.click("#stop-button")

    turn = page.locator('#messages article.turn[data-status="stopped"]')
    turn.wait_for(timeout=20_000)  # the server's record, swapped in once it noticed the closed stream
    run_id = turn.get_attribute("data-run-id")
    text = turn.locator(".md").inner_text()
    assert "第0段" in text and "第3段" in text and f"第{SLOW_CHUNKS - 1}段" not in text
    assert "已停止" in turn.locator(".cut-note").inner_text()
    assert page.locator("#send-button").is_visible() and not page.locator("#stop-button").is_visible()
    page.screenshot(path=str(shots / "chat-stopped.png"), full_page=True)

    status, output, error_code = run_row(site, run_id)
    assert (status, error_code) == ("stopped", "")
    assert output.startswith("第0段 第1段 第2段 第3段") and f"第{SLOW_CHUNKS - 1}段" not in output
    # The model server saw its stream closed long before the end (not read to the end for nobody).
    line = procs.wait_until(lambda: site["slow_log"].exists() and site["slow_log"].read_text().strip(), timeout=20)
    sent = int(re.match(r"aborted (\d+)/", line.splitlines()[-1]).group(1))
    assert sent < SLOW_CHUNKS / 2

    page.reload()
    again = page.locator(f"#turn-{run_id}")
    assert again.get_attribute("data-status") == "stopped" and "已停止" in again.inner_text()
    page.set_viewport_size({"width": 360, "height": 740})
    page.screenshot(path=str(shots / "chat-stopped-360.png"), full_page=True)


def test_a_reply_cut_at_the_length_cap_offers_continue(open_page, site, shots):
    page = open_page()
    log_in(page, "he")
    choose_agent(page, site["short"])
    page.click("a.new-thread")
    cut = send(page, "出一份数据结构试卷")
    assert "回复达到长度上限，被截断了。" in cut.locator(".limit-note").inner_text()
    page.screenshot(path=str(shots / "chat-cut.png"), full_page=True)
    exchanges = int(page.locator("#chat").get_attribute("data-exchanges"))
    cut.locator(".continue-cut").click()
    page.wait_for_function(f"() => Number(document.getElementById('chat').dataset.exchanges) > {exchanges}")
    follow = page.locator("#messages .turn").nth(1)
    assert "继续" in follow.locator(".bubble.user").inner_text()
    assert follow.locator(".tag.continued").is_visible()
    assert "已在上次产物上继续" in follow.locator(".bubble.assistant").inner_text()

    # 重新生成 on a turn that continued an artifact continues the same artifact again.
    exchanges = int(page.locator("#chat").get_attribute("data-exchanges"))
    follow.locator(".regenerate-button").click()
    page.wait_for_function(f"() => Number(document.getElementById('chat').dataset.exchanges) > {exchanges}")
    again = page.locator("#messages .turn").nth(2)
    assert again.get_attribute("data-continued-from") == cut.get_attribute("data-run-id")
    assert "已在上次产物上继续" in again.locator(".bubble.assistant").inner_text()


def test_copy_regenerate_and_an_example_chip(open_page, site, shots):
    page = open_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(page, "zheng")
    page.click("a.new-thread")
    chip = page.locator(".empty-chat button.example", has_text="出一份数据结构试卷")
    assert chip.is_visible()
    page.screenshot(path=str(shots / "chat-empty-chips.png"))
    chip.click()
    # Done when the whole exchange is (sidebar included): the counter is only set then.
    page.wait_for_function("() => Number(document.getElementById('chat').dataset.exchanges || 0) >= 1")
    page.locator("#messages .turn .bubble.assistant.completed").first.wait_for()
    first = page.locator("#messages .turn").first
    assert first.locator(".bubble.user").inner_text().strip() == "出一份数据结构试卷"
    assert first.locator(".md h1").inner_text() == "数据结构期中试卷"

    first.locator(".copy-button").click()
    page.wait_for_function("() => document.querySelector('.copy-button.done')")
    assert page.evaluate("navigator.clipboard.readText()") == EXAM

    # Only the last turn offers 重新生成; it re-sends that input in the same thread.
    thread_url = page.url
    exchanges = int(page.locator("#chat").get_attribute("data-exchanges"))
    first.locator(".regenerate-button").click()
    page.wait_for_function(f"() => Number(document.getElementById('chat').dataset.exchanges) > {exchanges}")
    turns = page.locator("#messages .turn")
    assert turns.count() == 2 and page.url == thread_url
    assert turns.nth(1).locator(".bubble.user").inner_text().strip() == "出一份数据结构试卷"
    assert not turns.nth(0).locator(".regenerate-button").is_visible()
    assert turns.nth(1).locator(".regenerate-button").is_visible()
    page.screenshot(path=str(shots / "chat-actions.png"), full_page=True)


def test_a_reply_exports_as_a_real_word_file_and_as_markdown(open_page, site, tmp_path):
    from docx import Document

    page = open_page()
    log_in(page, "feng")
    page.click("a.new-thread")
    turn = send(page, "出一份数据结构试卷")
    with page.expect_download() as info:
        turn.locator("a.export-docx").click()
    download = info.value
    assert download.suggested_filename.endswith(".docx") and download.suggested_filename.startswith("出一份数据结构试卷")
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    document = Document(io.BytesIO(path.read_bytes()))
    styled = [(p.style.name, p.text) for p in document.paragraphs if p.text]
    assert ("Heading 1", "数据结构期中试卷") in styled
    assert ("Heading 2", "二、简答题") in styled
    assert ("List Bullet", "简述栈和队列的区别。") in styled
    assert ("List Number", "栈的特点是 后进先出。下列哪种结构也是线性表？") in styled

    with page.expect_download() as info:
        turn.locator("a.export-md").click()
    md = tmp_path / info.value.suggested_filename
    info.value.save_as(md)
    assert md.suffix == ".md" and md.read_text(encoding="utf-8") == EXAM.rstrip() + "\n"


def test_archive_asks_first_then_the_thread_is_read_only_until_restored(open_page, site, shots):
    page = open_page()
    log_in(page, "lu")
    page.click("a.new-thread")
    send(page, "写一段期末评语")
    thread_url = page.url
    title = page.locator("#thread-title").inner_text()

    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#archive-button")
    assert page.url == thread_url and title in page.locator("#thread-list").inner_text()

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#archive-button")
    page.wait_for_url(re.compile(r"/chat/(new/)?$"))
    assert title not in page.locator("#thread-list").inner_text()

    page.click(".sidebar-toggle") if not page.locator("a.archived-link").is_visible() else None
    page.click("a.archived-link")
    page.wait_for_url(re.compile(r"/chat/archived/$"))
    row = page.locator(".archived-row", has_text=title)
    assert row.is_visible()
    page.screenshot(path=str(shots / "archived-list.png"), full_page=True)

    row.locator("a.title").click()
    page.wait_for_url(thread_url)
    assert page.locator("#composer-input").is_disabled() and page.locator("#send-button").is_disabled()
    assert page.locator("#archived-notice").is_visible()
    assert not page.locator("#messages .regenerate-button").first.is_visible()
    page.set_viewport_size({"width": 360, "height": 740})
    page.screenshot(path=str(shots / "archived-thread-360.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 860})

    with page.expect_navigation():
        page.click("#archived-notice .restore-button")
    page.locator("#chat[data-ready='1']").wait_for()
    assert page.url == thread_url
    assert not page.locator("#composer-input").is_disabled()
    assert title in page.locator("#thread-list").inner_text()
    send(page, "再写一段")
    assert page.locator("#messages .turn").count() == 2


def test_search_finds_an_earlier_conversation_and_opens_that_reply(open_page, site, shots):
    page = open_page()
    log_in(page, "shi")
    page.click("a.new-thread")
    first = send(page, "出一份二叉树遍历的练习题")
    run_id = first.get_attribute("data-run-id")
    page.click("a.new-thread")
    send(page, "写一段期末评语")

    # The memory worker indexes each finished turn for recall; search reads that index.
    procs.wait_until(lambda: procs.db_query(site["env"], "SELECT 1 FROM recall_recallentry WHERE run_id = ?",
                                            (run_id,)), timeout=60)
    page.set_viewport_size({"width": 360, "height": 740})
    page.click(".sidebar-toggle")
    page.fill("#search-input", "二叉树")
    page.press("#search-input", "Enter")
    page.wait_for_url(re.compile(r"/chat/search/\?q="))
    results = page.locator(".search-result")
    assert results.count() == 1 and "出一份二叉树遍历的练习题" in results.first.inner_text()
    page.screenshot(path=str(shots / "search-360.png"), full_page=True)

    results.first.locator("a.input").click()
    page.wait_for_url(re.compile(rf"/chat/t/th_\w+/#turn-{run_id}$"))
    assert page.locator(f"#turn-{run_id}.found").is_visible()


def test_the_chat_controls_read_in_english_at_360px(open_page, site, shots):
    page = open_page(width=360, height=740)
    log_in(page, "he")
    page.select_option("#language-select", "en")
    page.wait_for_load_state("load")
    page.locator("html[lang='en'] #chat[data-ready='1']").wait_for()
    if page.locator("#messages .turn").count() == 0:
        send(page, "出一份数据结构试卷")
    turn = page.locator("#messages .turn").last
    actions = turn.locator(".bubble-actions").inner_text()
    for label in ("Copy", "Export Word", "Export Markdown", "Regenerate"):
        assert label in actions
    assert page.locator("#send-button").inner_text() == "Send"
    page.screenshot(path=str(shots / "chat-en-360.png"), full_page=True)
    page.goto("/chat/search/?q=数据结构")
    assert "Search past chats" in page.locator("h1").inner_text()
