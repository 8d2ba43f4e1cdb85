"""A school admin's Django admin stays inside their school."""

import pytest

from django.contrib.admin.utils import quote

from agents.models import Agent, ApiKey


@pytest.fixture
def admin_client(client, school_admin):
    client.force_login(school_admin)
    return client


def _change_form_data(client, url):
    response = client.get(url)
    assert response.status_code == 200
    form = response.context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is None:
            continue
        data[name] = value.pk if hasattr(value, "pk") else value
    return data


def test_a_school_admin_cannot_move_an_api_key_to_another_school(admin_client, school, other_school):
    from agents.services import api_key_create

    key, _ = api_key_create(tenant=school, name="portal")
    url = f"/admin/agents/apikey/{quote(key.pk)}/change/"
    data = _change_form_data(admin_client, url)
    assert "tenant" not in data, "the school is read-only for a school admin"
    data.update({"tenant": other_school.pk, "name": "moved?"})
    response = admin_client.post(url, data)
    assert response.status_code == 302
    key.refresh_from_db()
    assert key.tenant_id == school.pk and key.name == "moved?"


def test_a_school_admin_cannot_move_an_agent_or_choose_a_server_secret(admin_client, agent, other_school):
    url = f"/admin/agents/agent/{quote(agent.pk)}/change/"
    data = _change_form_data(admin_client, url)
    assert "tenant" not in data
    data.update({"tenant": other_school.pk, "api_key_env": "SECRET_KEY", "base_url": "http://127.0.0.1:9/v1"})
    response = admin_client.post(url, data)
    assert response.status_code == 200, "refused with a form error"
    assert "api_key_env" in response.context["adminform"].form.errors
    agent.refresh_from_db()
    assert agent.tenant_id != other_school.pk
    assert agent.api_key_env == "" and agent.base_url == ""


def test_an_operators_secret_never_follows_the_agent_to_a_new_endpoint(admin_client, agent):
    Agent.objects.filter(pk=agent.pk).update(api_key_env="QWEN_API_KEY", base_url="https://dashscope.example/v1")
    url = f"/admin/agents/agent/{quote(agent.pk)}/change/"
    data = _change_form_data(admin_client, url)
    assert data["api_key_env"] == "QWEN_API_KEY", "kept as the operator chose it while the endpoint stays"
    data.update({"base_url": "http://127.0.0.1:9/v1"})
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content[:500]
    agent.refresh_from_db()
    assert agent.base_url == "http://127.0.0.1:9/v1" and agent.api_key_env == ""


def test_admin_agent_filters_list_only_the_admins_school(admin_client, agent, other_agent):
    for url in ("/admin/agents/run/", "/admin/agents/memoryop/", "/admin/knowledge/document/",
                "/admin/recall/recallentry/"):
        page = admin_client.get(url).content.decode()
        assert agent.name in page, url
        assert other_agent.name not in page, url


def test_another_schools_rows_are_not_found_in_the_admin(admin_client, other_agent):
    assert admin_client.get(f"/admin/agents/agent/{quote(other_agent.pk)}/change/").status_code == 302  # redirected away
    assert Agent.objects.get(pk=other_agent.pk).tenant.slug == "erzhong"
    assert not ApiKey.objects.exists()
