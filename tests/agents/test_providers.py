import pytest

from agents.models import Agent
from agents.providers import memory_providers, provider_for_agent
from agents.providers.base import ProviderError, endpoint_is_local, price
from agents.providers.local import LocalProvider, local_model_path


def _agent(**fields):
    defaults = {"provider_kind": "openai", "model": "qwen-plus", "base_url": "", "local_first": False}
    return Agent(**{**defaults, **fields})


def test_the_scripted_provider_is_refused_outside_test_settings(settings, school):
    settings.ALLOW_SCRIPTED_PROVIDER = False
    with pytest.raises(ProviderError) as excinfo:
        provider_for_agent(_agent(provider_kind="scripted"))
    assert excinfo.value.code == "provider_not_allowed"


def test_creating_a_scripted_agent_is_refused_outside_test_settings(settings, school):
    from core.errors import AppError
    from agents.services import agent_create

    settings.ALLOW_SCRIPTED_PROVIDER = False
    with pytest.raises(AppError) as excinfo:
        agent_create(tenant=school, name="x", provider_kind="scripted")
    assert excinfo.value.code == "provider_not_allowed"


@pytest.mark.parametrize(
    "url, local",
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434", True),
        ("http://10.0.0.5:8000/v1", True),
        ("http://192.168.1.20/v1", True),
        ("https://dashscope.aliyuncs.com/compatible-mode/v1", False),
        ("https://api.openai.com/v1", False),
        ("", False),
    ],
)
def test_endpoints_are_classified_local_or_cloud(url, local):
    assert endpoint_is_local(url) is local


def test_memory_work_of_a_cloud_agent_falls_back_only_to_a_local_model(settings):
    settings.LOCAL_OLLAMA_URL = "http://127.0.0.1:11434"
    chain = memory_providers(_agent(base_url="https://dashscope.aliyuncs.com/compatible-mode/v1"))
    assert [p.kind for p in chain] == ["openai", "ollama"]
    assert all(p.is_local for p in chain[1:])


def test_a_local_first_agent_never_reaches_a_cloud_provider_for_memory_work(settings):
    settings.LOCAL_OLLAMA_URL = "http://127.0.0.1:11434"
    chain = memory_providers(
        _agent(base_url="https://dashscope.aliyuncs.com/compatible-mode/v1", local_first=True)
    )
    assert chain and all(p.is_local for p in chain)


def test_fitness_for_memory_work_is_a_capability_each_provider_kind_declares():
    from agents.providers import _kinds

    declared = {kind: cls.__dict__.get("fit_for_memory", "inherited") for kind, cls in _kinds().items()}
    assert declared["local"] is False
    fit = {kind: cls(model="smollm2-135m-instruct").fit_for_memory for kind, cls in _kinds().items()}
    # The same model name on a real server is fit: the class decides, not the name.
    assert fit == {"local": False, "openai": True, "ollama": True, "scripted": True}


def test_the_built_in_model_is_never_asked_to_do_memory_work(settings):
    settings.LOCAL_OLLAMA_URL = ""
    assert memory_providers(_agent(provider_kind="local", model="smollm2", local_first=True)) == []
    assert memory_providers(_agent(provider_kind="openai", base_url="http://127.0.0.1:9/v1", local_first=True))


def test_a_built_in_agent_with_an_on_premises_ollama_does_its_memory_work_there(settings):
    settings.LOCAL_OLLAMA_URL = "http://127.0.0.1:11434"
    chain = memory_providers(_agent(provider_kind="local", model="smollm2", local_first=True))
    assert [p.kind for p in chain] == ["ollama"]


def test_only_an_agent_on_the_built_in_model_is_flagged_as_such():
    from agents.providers import runs_on_builtin_model

    assert runs_on_builtin_model(_agent(provider_kind="local", model="smollm2-135m-instruct"))
    assert not runs_on_builtin_model(_agent(provider_kind="openai", model="smollm2-135m-instruct",
                                            base_url="http://127.0.0.1:9/v1"))
    assert not runs_on_builtin_model(_agent(provider_kind="ollama", model="qwen2.5:3b"))


def test_the_price_table_turns_real_token_counts_into_cost(settings):
    settings.MODEL_PRICES = {"qwen-plus": {"input": 0.8, "output": 2.0}}
    assert str(price("qwen-plus", 1_000_000, 500_000)) == "1.800000"
    assert price("unknown-model", 1000, 1000) == 0


def test_the_local_model_file_ships_inside_a_package():
    path = local_model_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 10_000_000


def test_the_local_provider_generates_for_real():
    provider = LocalProvider(model="smollm2-135m-instruct")
    pieces = []
    final = None
    for kind, value in provider.stream(
        [{"role": "user", "content": "Write one exam question about binary trees."}], max_tokens=24
    ):
        if kind == "delta":
            pieces.append(value)
        else:
            final = value
    assert len(pieces) >= 2, "the reply streams in pieces"
    assert final is not None and final.text == "".join(pieces)
    assert final.text.strip()
    assert final.prompt_tokens > 0 and 0 < final.completion_tokens <= 30


@pytest.mark.parametrize("name, read", [("DASHSCOPE_API_KEY", True), ("OPENAI_API_KEY", True), ("HF_TOKEN", True),
                                        ("SECRET_KEY", False), ("DATABASE_URL", False), ("lower_api_key", False)])
def test_only_provider_key_shaped_variables_are_ever_sent_to_a_provider(monkeypatch, name, read):
    monkeypatch.setenv(name, "sk-secret-value")
    provider = provider_for_agent(_agent(api_key_env=name, base_url="http://127.0.0.1:9/v1"))
    assert (provider.api_key == "sk-secret-value") is read


def test_an_unexpected_provider_failure_fails_the_run_instead_of_leaving_it_running(api, agent, scripted_provider):
    from agents.models import Run

    def broken(messages, purpose):
        raise AttributeError("'str' object has no attribute 'choices'")

    scripted_provider.queue_replies(broken, purpose="chat")
    response = api.run(agent, "出题")
    assert response.status_code == 200
    assert response.json()["status"] == "failed" and response.json()["error_code"] == "provider_error"
    assert Run.objects.get().status == Run.Status.FAILED


def test_an_unexpected_stream_failure_ends_with_an_error_event(api, agent, scripted_provider):
    from agents.models import Run
    from tests.conftest import sse_events

    scripted_provider.queue_replies(lambda m, p: (_ for _ in ()).throw(RuntimeError("boom")), purpose="chat")
    events = sse_events(api.post(f"/api/agents/{agent.pk}/run/stream", {"input": "出题"}))
    assert [name for name, _ in events] == ["started", "error"]
    assert events[-1][1]["code"] == "provider_error"
    assert Run.objects.get().error_code == "provider_error"
