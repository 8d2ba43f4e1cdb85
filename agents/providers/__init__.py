"""Provider kinds and the rule that picks one for chat and for memory work."""

import logging
import os
import re

from django.conf import settings

from agents.providers.base import Completion, Provider, ProviderError, endpoint_is_local, price

log = logging.getLogger(__name__)

__all__ = ["Completion", "Provider", "ProviderError", "price", "provider_for_agent", "memory_providers",
           "runs_on_builtin_model", "KINDS"]


def _kinds():
    from agents.providers.local import LocalProvider
    from agents.providers.ollama_native import OllamaProvider
    from agents.providers.openai_compat import OpenAIProvider
    from agents.providers.scripted import ScriptedProvider

    return {"local": LocalProvider, "openai": OpenAIProvider, "ollama": OllamaProvider, "scripted": ScriptedProvider}


KINDS = ("local", "openai", "ollama", "scripted")


# Agents name the environment variable that holds their provider secret. Only names
# shaped like a provider key are read, so no configuration can send SECRET_KEY or
# DATABASE_URL to an endpoint.
API_KEY_ENV_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]*_(?:API_KEY|TOKEN)$")


def api_key_env_allowed(name: str) -> bool:
    return bool(API_KEY_ENV_PATTERN.match(name or ""))


def provider_for_agent(agent) -> Provider:
    cls = _kinds().get(agent.provider_kind)
    if cls is None:
        raise ProviderError("provider_unknown", agent.provider_kind)
    api_key = os.environ.get(agent.api_key_env, "") if api_key_env_allowed(agent.api_key_env) else ""
    return cls(model=agent.model, base_url=agent.base_url, api_key=api_key)


def memory_providers(agent) -> list[Provider]:
    """Providers to try, in order, for memory work (compression, extraction, summaries).

    The agent's own provider first, so no conversation goes to a vendor it was not
    already sent to. If that one fails, only a local model: an on-premises Ollama. A
    local-first agent never reaches a cloud provider for memory work, even when its own
    provider is (mis)configured as one. A provider that is not `fit_for_memory` (the
    embedded smoke-test model) is never in the chain: an empty chain means memory work
    takes its deterministic fallbacks.
    """
    chain: list[Provider] = []
    try:
        own = provider_for_agent(agent)
    except ProviderError:
        own = None
    if own is not None and (own.is_local or not agent.local_first):
        chain.append(own)
    if (own is None or own.kind != "scripted") and settings.LOCAL_OLLAMA_URL \
            and endpoint_is_local(settings.LOCAL_OLLAMA_URL):
        chain.append(_kinds()["ollama"](model=settings.LOCAL_OLLAMA_MODEL, base_url=settings.LOCAL_OLLAMA_URL))
    return [provider for provider in chain if provider.fit_for_memory]


def runs_on_builtin_model(agent) -> bool:
    """The agent chats through a provider unfit for real work (the embedded demo model)."""
    try:
        return not provider_for_agent(agent).fit_for_memory
    except ProviderError:
        return False
