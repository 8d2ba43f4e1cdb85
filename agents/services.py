"""Writes for schools, agents and keys. The API, the pages, the admin and the commands
call these; none of them receives a request."""

import logging
import os
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import AppError
from agents.models import Agent, ApiKey, Tenant, hash_api_key
from agents.providers import KINDS, ProviderError, provider_for_agent

log = logging.getLogger(__name__)


def tenant_create(*, slug: str, name: str = "") -> Tenant:
    if Tenant.objects.filter(slug=slug).exists():
        raise AppError("tenant_exists", f"school {slug!r} already exists", status=409)
    return Tenant.objects.create(slug=slug, name=name or slug)


def agent_provider_clean(*, tenant: Tenant, provider_kind: str, base_url: str = "", model: str = "",
                         api_key_env: str = "", school_admin: bool = False) -> dict:
    """An agent's provider settings, checked: the kind, the model, the NAME of the secret's
    environment variable. Returns the cleaned fields (the default kind and model filled in).

    `school_admin`: the secret's name must also carry the school's own prefix
    (`YIZHONG_…_API_KEY` for slug yizhong), so a school admin can never point their agent
    at a secret the operator keeps for another school or for the server itself.
    """
    provider_kind = provider_kind or settings.DEFAULT_PROVIDER
    base_url, model, api_key_env = (base_url or "").strip(), (model or "").strip(), (api_key_env or "").strip()
    if provider_kind not in KINDS:
        raise AppError("invalid_provider", f"provider must be one of {', '.join(KINDS)}", status=422)
    if provider_kind == "scripted" and not settings.ALLOW_SCRIPTED_PROVIDER:
        raise AppError("provider_not_allowed", "the scripted provider is for tests only", status=422)
    if api_key_env:
        from agents.providers import api_key_env_allowed

        if not api_key_env_allowed(api_key_env):
            raise AppError("invalid_api_key_env",
                           "the secret's variable name must look like NAME_API_KEY or NAME_TOKEN", status=422)
        if school_admin and not api_key_env.startswith(school_secret_prefix(tenant)):
            raise AppError("invalid_api_key_env",
                           f"the secret's variable name must start with {school_secret_prefix(tenant)}", status=422)
    if provider_kind in ("openai", "ollama") and not model:
        raise AppError("model_required", "an openai or ollama agent needs --model", status=422)
    if provider_kind == "local" and not model:
        model = "smollm2-135m-instruct"
    return {"provider_kind": provider_kind, "base_url": base_url, "model": model, "api_key_env": api_key_env}


def school_secret_prefix(tenant: Tenant) -> str:
    """The prefix of the environment variables a school admin may name for their school."""
    return "".join(ch if ch.isalnum() else "_" for ch in tenant.slug.upper()) + "_"


def agent_create(
    *,
    tenant: Tenant,
    name: str,
    provider_kind: str = "",
    base_url: str = "",
    model: str = "",
    language: str = "zh",
    system_prompt: str = "",
    api_key_env: str = "",
    local_first: bool | None = None,
    **options,
) -> Agent:
    provider = agent_provider_clean(tenant=tenant, provider_kind=provider_kind, base_url=base_url, model=model,
                                    api_key_env=api_key_env)
    if language not in ("zh", "en"):
        raise AppError("invalid_language", "language must be zh or en", status=422)
    if local_first is None:
        from agents.providers.base import endpoint_is_local

        local_first = provider["provider_kind"] in ("local", "scripted") or endpoint_is_local(provider["base_url"])
    return Agent.objects.create(
        tenant=tenant,
        name=name,
        language=language,
        system_prompt=system_prompt or default_system_prompt(language),
        local_first=local_first,
        **provider,
        **options,
    )


@dataclass
class ConnectionCheck:
    ok: bool
    #: a ProviderError code, or api_key_env_missing; empty when ok
    code: str = ""
    model: str = ""
    reply: str = ""
    seconds: float = 0.0


#: the one tiny call "测试连接" makes
CONNECTION_TEST_MESSAGES = ({"role": "user", "content": "ping"},)
CONNECTION_TEST_MAX_TOKENS = 8
CONNECTION_TEST_TIMEOUT_SECONDS = 20


def agent_connection_test(*, agent: Agent) -> ConnectionCheck:
    """Make one tiny call to the agent's provider and say how it went. A network call:
    never inside transaction.atomic. The upstream message is logged, never returned."""
    if agent.api_key_env and not os.environ.get(agent.api_key_env):
        return ConnectionCheck(ok=False, code="api_key_env_missing")
    started = time.monotonic()
    try:
        provider = provider_for_agent(agent)
        provider.timeout = min(provider.timeout, CONNECTION_TEST_TIMEOUT_SECONDS)
        completion = provider.complete([dict(m) for m in CONNECTION_TEST_MESSAGES],
                                       max_tokens=CONNECTION_TEST_MAX_TOKENS, purpose="connection_test")
    except ProviderError as exc:
        log.info("connection test of agent %s failed: %s", agent.pk, exc)
        return ConnectionCheck(ok=False, code=exc.code, seconds=round(time.monotonic() - started, 2))
    return ConnectionCheck(ok=True, model=completion.model or agent.model, reply=" ".join(completion.text.split())[:40],
                           seconds=round(time.monotonic() - started, 2))


def default_system_prompt(language: str) -> str:
    if language == "en":
        return (
            "You are a teaching assistant for school teachers. You write exam papers, lesson plans and "
            "feedback. Answer the teacher's current request; earlier conversation is context only."
        )
    return "你是学校教师的 AI 教学助手，负责出试卷、写教案和写评语。请回答老师本轮的请求；之前的对话仅作为语境参考。"


def api_key_create(*, tenant: Tenant, name: str = "") -> tuple[ApiKey, str]:
    """Create a key; the raw key is returned once and never stored."""
    raw = ApiKey.generate_raw()
    key = ApiKey.objects.create(tenant=tenant, name=name, prefix=raw[:10], key_hash=hash_api_key(raw))
    return key, raw


def api_key_authenticate(raw: str) -> Tenant | None:
    if not raw:
        return None
    key = ApiKey.objects.filter(key_hash=hash_api_key(raw), revoked_at__isnull=True).select_related("tenant").first()
    if key is None:
        return None
    now = timezone.now()
    if key.last_used_at is None or (now - key.last_used_at).total_seconds() > 60:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key.tenant


@transaction.atomic
def teacher_create(*, tenant: Tenant, username: str, password: str, role: str = "teacher", **fields):
    from agents.models import User

    if User.objects.filter(username=username).exists():
        raise AppError("user_exists", f"user {username!r} already exists", status=409)
    return User.objects.create_user(username=username, password=password, tenant=tenant, role=role, **fields)
