import io

import pytest
from django.core.management import CommandError, call_command

from agents.models import Agent, ApiKey, Tenant, User, hash_api_key


def _call(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip()


def test_the_public_commands_create_a_school_an_agent_and_a_key(db):
    assert _call("create_tenant", "sanzhong", "--name", "第三中学") == "sanzhong"
    agent_id = _call("create_agent", "--tenant", "sanzhong", "--name", "出题助手", "--provider", "openai",
                     "--base-url", "http://127.0.0.1:8080/v1", "--model", "qwen2.5", "--language", "en")
    agent = Agent.objects.get(pk=agent_id)
    assert agent.tenant.slug == "sanzhong" and agent.language == "en" and agent.local_first
    raw = _call("create_api_key", "--tenant", "sanzhong")
    key = ApiKey.objects.get()
    assert key.key_hash == hash_api_key(raw) and raw.startswith(key.prefix)
    assert raw not in key.key_hash


def test_create_agent_sets_the_longest_answer_and_refuses_zero(db):
    _call("create_tenant", "sizhong")
    agent_id = _call("create_agent", "--tenant", "sizhong", "--name", "x", "--provider", "local",
                     "--max-output-tokens", "48")
    assert Agent.objects.get(pk=agent_id).max_output_tokens == 48
    default_id = _call("create_agent", "--tenant", "sizhong", "--name", "y", "--provider", "local")
    assert Agent.objects.get(pk=default_id).max_output_tokens == Agent._meta.get_field("max_output_tokens").default
    with pytest.raises(CommandError):
        _call("create_agent", "--tenant", "sizhong", "--name", "z", "--provider", "local", "--max-output-tokens", "0")


def test_create_agent_refuses_an_unknown_school(db):
    with pytest.raises(CommandError):
        _call("create_agent", "--tenant", "nowhere", "--name", "x", "--provider", "local")


def test_a_duplicate_school_is_a_clear_error(db):
    _call("create_tenant", "dup")
    with pytest.raises(CommandError):
        _call("create_tenant", "dup")


def test_bootstrap_demo_fills_an_empty_database_once(db):
    out = _call("bootstrap_demo", "--url", "http://127.0.0.1:8000")
    assert "teacher /" in out and "API key:" in out
    assert "(slug: demo)" in out  # the slug every other command asks for
    assert Tenant.objects.count() == 1
    assert Agent.objects.get().provider_kind == "local"
    assert User.objects.filter(role="teacher").count() == 1
    again = _call("bootstrap_demo")
    assert "already" in again and "demo" in again
    assert Tenant.objects.count() == 1
