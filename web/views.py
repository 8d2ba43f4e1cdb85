"""The teacher pages: chat, memory panel, costs. Thin: reads come from selectors, every
write goes through the same API an API client uses (the page script calls it with the
session and a CSRF header), so there is no second copy of any business rule here."""

import functools

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db.models import prefetch_related_objects
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from agents.actor import Actor
from agents.providers import runs_on_builtin_model
from core.errors import NotFound
from agents.selectors import agents_for_tenant, run_get_for_actor
from corememory.services import MAX_CONFIRMED
from recall.selectors import recall_search
from threads.models import Thread
from threads.selectors import thread_get_for_actor, thread_runs, threads_for_actor
from web.charts import cost_chart
from web.errors import SERVER_SENTENCES, friendly_errors_table
from web.export import DOCX_TYPE, MARKDOWN_TYPE, content_disposition, docx_bytes, export_filename, markdown_bytes
from web.selectors import costs_per_day, usage_per_agent

SESSION_AGENT = "web_agent_id"
COST_WINDOWS = (7, 14, 30, 90)
DEFAULT_COST_WINDOW = 14
SIDEBAR_THREADS = 50
SEARCH_RESULTS = 20
SEARCH_QUERY_MAX = 200
EXPORTS = {"docx": (DOCX_TYPE, docx_bytes), "md": (MARKDOWN_TYPE, markdown_bytes)}


def teacher_page(view):
    """login_required, and the account must belong to a school (a superuser without one
    is sent to the admin instead of meeting a half-working page)."""

    @login_required
    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.tenant_id is None:
            return render(request, "web/no_school.html", status=403)
        return view(request, *args, **kwargs)

    return wrapper


def actor_for(request) -> Actor:
    return Actor(tenant=request.user.tenant, user=request.user)


def school_agents(request) -> list:
    if not hasattr(request, "_web_agents"):
        request._web_agents = list(agents_for_tenant(tenant=request.user.tenant))
    return request._web_agents


def current_agent(request):
    """The agent the teacher picked (kept in the session), else the school's first."""
    agents = school_agents(request)
    chosen = request.session.get(SESSION_AGENT)
    return next((agent for agent in agents if agent.pk == chosen), agents[0] if agents else None)


def _not_found_as_404(fn, **kwargs):
    try:
        return fn(**kwargs)
    except NotFound as exc:
        # Another school's or another teacher's row answers exactly like a missing one.
        raise Http404(exc.message) from exc


def _page_config(**extra) -> dict:
    return {"errors": friendly_errors_table(), "server_sentences": SERVER_SENTENCES, **extra}


@teacher_page
@require_GET
def home(request):
    return redirect("web:chat")


@teacher_page
@require_GET
def chat(request):
    """Continue the most recent active thread, or start a new one."""
    agent = current_agent(request)
    if agent is not None:
        thread = threads_for_actor(actor=actor_for(request), agent=agent).first()
        if thread is not None:
            return redirect("web:chat_thread", thread_id=thread.pk)
    return _render_chat(request, agent=agent, thread=None)


@teacher_page
@require_GET
def chat_new(request):
    return _render_chat(request, agent=current_agent(request), thread=None)


@teacher_page
@require_GET
def chat_thread(request, thread_id: str):
    thread = _not_found_as_404(thread_get_for_actor, actor=actor_for(request), thread_id=thread_id)
    if request.session.get(SESSION_AGENT) != thread.agent_id:
        request.session[SESSION_AGENT] = thread.agent_id
    return _render_chat(request, agent=thread.agent, thread=thread)


def _chat_ui() -> dict:
    return {
        "copied": _("已复制"),
        "stopped": _("已停止"),
        "archive_confirm": _("归档这个会话？归档后它会移到「已归档」列表，变为只读，可以随时恢复。"),
    }


def _render_chat(request, *, agent, thread):
    if agent is None:
        return render(request, "web/no_agent.html")
    actor = actor_for(request)
    context = {
        "agent": agent,
        "thread": thread,
        "read_only": thread is not None and thread.status == Thread.Status.ARCHIVED,
        "runs": thread_runs(thread=thread) if thread else [],
        "threads": threads_for_actor(actor=actor, agent=agent)[:SIDEBAR_THREADS],
        "examples": [_("出一份数据结构试卷"), _("写一段期末评语"), _("设计一节二叉树的导入活动")],
        "page_config": _page_config(ui=_chat_ui()),
        "active": "chat",
    }
    return render(request, "web/chat.html", context)


@teacher_page
@require_GET
def archived_threads(request):
    """The archive: threads the teacher put away, each with 恢复."""
    agent = current_agent(request)
    if agent is None:
        return render(request, "web/no_agent.html")
    threads = threads_for_actor(actor=actor_for(request), agent=agent, status=Thread.Status.ARCHIVED)
    context = {"agent": agent, "threads": threads[:SIDEBAR_THREADS], "page_config": _page_config(), "active": "chat"}
    return render(request, "web/archived.html", context)


@teacher_page
@require_GET
def search(request):
    """The teacher's own past conversations with every agent of the school, through each
    agent's recall index (the Chinese-aware engine that feeds memory), best match first.
    Only this teacher's scopes are searched: another teacher's never is."""
    agents = school_agents(request)
    if not agents:
        return render(request, "web/no_agent.html")
    query = " ".join(request.GET.get("q", "").split())[:SEARCH_QUERY_MAX]
    found = []
    if query:
        actor = actor_for(request)
        for agent in agents:
            # A search box finds the words typed (Chinese-aware): lexical matches only. Dense
            # candidates would bring every conversation along, however unrelated.
            found += recall_search(actor=actor, agent=agent, query=query, limit=SEARCH_RESULTS, min_score=0.0,
                                   dense=False)
        # Scores are normalised per scope (0-1), so they compare across agents.
        found.sort(key=lambda hit: (-hit[1], -hit[0].happened_at.timestamp()))
    results = [entry for entry, _score in found[:SEARCH_RESULTS]]
    prefetch_related_objects(results, "agent", "thread")
    context = {
        "query": query,
        "results": results,
        "several_agents": len(agents) > 1,
        "active": "chat",
    }
    return render(request, "web/search.html", context)


@teacher_page
@require_GET
def run_export(request, run_id: str, fmt: str):
    """One reply as a Word or Markdown download (a completed or stopped reply only)."""
    run = _not_found_as_404(run_get_for_actor, actor=actor_for(request), run_id=run_id)
    if fmt not in EXPORTS or not run.has_output:
        raise Http404("nothing to export")
    content_type, build = EXPORTS[fmt]
    title = run.thread.title or run.input
    response = HttpResponse(build(title=title, text=run.output), content_type=content_type)
    response["Content-Disposition"] = content_disposition(
        export_filename(title, timezone.localtime(run.finished_at or run.created_at), fmt)
    )
    return response


@teacher_page
@require_GET
def run_row(request, run_id: str):
    """One turn (the teacher's message and the sanitized reply), for the page script to swap
    in when a streamed reply is done."""
    run = _not_found_as_404(run_get_for_actor, actor=actor_for(request), run_id=run_id)
    return render(request, "web/run_row.html", {"run": run})


#: the memory layers by the names a teacher reads in "模型看到了什么"
LAYER_NAMES = {
    "core": gettext_lazy("核心记忆（你确认过的事实）"),
    "thread": gettext_lazy("本会话前情"),
    "recall": gettext_lazy("相关的过往对话"),
    "kb": gettext_lazy("知识库资料"),
}


@teacher_page
@require_GET
def run_context(request, run_id: str):
    """What the model was sent for one reply: its memory sections (layer, tokens, budget)
    in prompt order, as a fragment for the reply's drawer. The same snapshot
    /api/runs/{id}/context returns; every text is escaped by the template."""
    run = _not_found_as_404(run_get_for_actor, actor=actor_for(request), run_id=run_id)
    snapshot = run.context or {}
    sections = [{**section, "layer_name": LAYER_NAMES.get(section.get("layer"), section.get("label") or "")}
                for section in snapshot.get("sections", [])]
    return render(request, "web/run_context.html", {
        "run": run,
        "sections": sections,
        "total_tokens": snapshot.get("total_tokens", 0),
        "total_budget": snapshot.get("total_budget", run.agent.budget_total),
    })


@teacher_page
@require_GET
def thread_rows(request):
    """The sidebar's list, re-rendered after a reply (a new thread, a new time, a new title)."""
    agent = current_agent(request)
    threads = threads_for_actor(actor=actor_for(request), agent=agent)[:SIDEBAR_THREADS] if agent else []
    return render(request, "web/thread_list.html", {"threads": threads, "current_id": request.GET.get("current", "")})


@teacher_page
@require_POST
def choose_agent(request):
    agent_id = request.POST.get("agent_id", "")
    if any(agent.pk == agent_id for agent in school_agents(request)):
        request.session[SESSION_AGENT] = agent_id
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()) or "/chat/t/" in target:
        # A thread belongs to one agent: after switching, start from that agent's chat.
        target = "web:chat"
    return redirect(target)


def provenance_ui() -> dict:
    """Where a fact came from, in the page's language (the memory page fills them in)."""
    return {
        "from_conversation": _("来自 {date} 的对话「{excerpt}」"),
        "view_reply": _("查看那次回复"),
        "source_gone": _("来源对话已删除"),
        "confirmed_by": _("{who} 于 {date} 确认"),
        "added_by": _("{who} 于 {date} 手动添加"),
        "confirmed_at": _("于 {date} 确认"),
        "seen": _("提出过 {n} 次"),
    }


@teacher_page
@require_GET
def memory(request):
    agent = current_agent(request)
    if agent is None:
        return render(request, "web/no_agent.html")
    ui = {
        "max_facts": MAX_CONFIRMED,
        "count_of_max": "{n}/{max}",
        "confidence": _("把握 {n}%"),
        "confirmed": _("已确认，以后的对话会用到它。"),
        "added": _("已添加。"),
        "saved": _("已保存。"),
        "deleted": _("已删除。"),
        "evicted": _("已确认的事实满 {max} 条了，最久没用到的这条已被移除：{text}"),
        **provenance_ui(),
    }
    context = {"agent": agent, "max_facts": MAX_CONFIRMED, "page_config": _page_config(ui=ui), "active": "memory"}
    return render(request, "web/memory.html", context)


@teacher_page
@require_GET
def help_model(request):
    """How to connect a real model: where the chat's built-in-model notice links."""
    from agents.services import school_secret_prefix

    agent = current_agent(request)
    return render(request, "web/help_model.html", {
        "agent": agent,
        "on_builtin": agent is not None and runs_on_builtin_model(agent),
        "secret_example": f"{school_secret_prefix(request.user.tenant)}QWEN_API_KEY",
    })


@teacher_page
@require_GET
def costs(request):
    try:
        days = int(request.GET.get("days", DEFAULT_COST_WINDOW))
    except ValueError:
        days = DEFAULT_COST_WINDOW
    if days not in COST_WINDOWS:
        days = DEFAULT_COST_WINDOW
    actor = actor_for(request)
    rows = costs_per_day(actor=actor, days=days)
    total_run, total_memory = sum(row.run_cost for row in rows), sum(row.memory_cost for row in rows)
    # Everything free (a local model): money would be an empty axis, so chart the tokens.
    free = not (total_run or total_memory)
    context = {
        "days": days,
        "windows": COST_WINDOWS,
        "rows": rows,
        "rows_with_cost": [row for row in reversed(rows) if row.runs or row.memory_ops],
        "agents_usage": usage_per_agent(actor=actor, days=days),
        "chart": cost_chart(rows, metric="tokens" if free else "cost"),
        "free": free,
        "total_run": total_run,
        "total_memory": total_memory,
        "total": total_run + total_memory,
        "total_runs": sum(row.runs for row in rows),
        "total_ops": sum(row.memory_ops for row in rows),
        "total_run_tokens": sum(row.run_tokens for row in rows),
        "total_memory_tokens": sum(row.memory_tokens for row in rows),
        "currency": settings.COST_CURRENCY,
        "active": "costs",
    }
    return render(request, "web/costs.html", context)
