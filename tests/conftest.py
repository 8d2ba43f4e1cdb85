"""Personas: 第一中学 (yizhong) with two teachers and a school admin, and 第二中学
(erzhong), a second school whose key must be refused everywhere."""

import json

import pytest

from agents.providers import scripted
from agents.services import agent_create, api_key_create, teacher_create, tenant_create


@pytest.fixture(autouse=True)
def _scripted_provider():
    scripted.reset()
    yield scripted
    scripted.reset()


@pytest.fixture
def scripted_provider():
    return scripted


@pytest.fixture
def school(db):
    return tenant_create(slug="yizhong", name="第一中学")


@pytest.fixture
def other_school(db):
    return tenant_create(slug="erzhong", name="第二中学")


@pytest.fixture
def teacher(school):
    return teacher_create(tenant=school, username="wang", password="pw-wang-123", first_name="王老师")


@pytest.fixture
def second_teacher(school):
    return teacher_create(tenant=school, username="li", password="pw-li-123", first_name="李老师")


@pytest.fixture
def school_admin(school):
    return teacher_create(tenant=school, username="zhao", password="pw-zhao-123", role="school_admin", is_staff=True)


@pytest.fixture
def other_teacher(other_school):
    return teacher_create(tenant=other_school, username="chen", password="pw-chen-123", first_name="陈老师")


@pytest.fixture
def agent(school):
    return agent_create(tenant=school, name="出题助手", provider_kind="scripted", model="scripted-zh")


@pytest.fixture
def en_agent(school):
    return agent_create(tenant=school, name="Exam helper", provider_kind="scripted", model="scripted-en", language="en")


@pytest.fixture
def other_agent(other_school):
    return agent_create(tenant=other_school, name="二中助手", provider_kind="scripted", model="scripted-zh")


@pytest.fixture
def api_key(school):
    return api_key_create(tenant=school, name="test")[1]


@pytest.fixture
def other_key(other_school):
    return api_key_create(tenant=other_school, name="test")[1]


class ApiClient:
    """Django's test client speaking JSON through the real NinjaAPI and URLconf."""

    def __init__(self, client, key: str | None = None):
        self.client = client
        self.key = key

    def _headers(self, key):
        key = self.key if key is None else key
        return {"HTTP_X_API_KEY": key} if key else {}

    def get(self, path, key=None, **params):
        return self.client.get(path, params, **self._headers(key))

    def post(self, path, body=None, key=None, raw: str | None = None):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(path, data=data, content_type="application/json", **self._headers(key))

    def patch(self, path, body=None, key=None):
        return self.client.patch(path, data=json.dumps(body or {}), content_type="application/json",
                                 **self._headers(key))

    def delete(self, path, key=None):
        return self.client.delete(path, **self._headers(key))

    def run(self, agent, text, key=None, **body):
        response = self.post(f"/api/agents/{agent.pk}/run", {"input": text, **body}, key=key)
        return response


@pytest.fixture
def api(client, api_key):
    return ApiClient(client, api_key)


@pytest.fixture
def teacher_api(client, teacher):
    client.force_login(teacher)
    return ApiClient(client, key="")


@pytest.fixture
def memory_jobs(django_capture_on_commit_callbacks):
    """Run the memory jobs that requests enqueue after commit (the queue is inline in tests)."""

    def capture():
        return django_capture_on_commit_callbacks(execute=True)

    return capture


def sse_events(response) -> list[tuple[str, dict]]:
    body = b"".join(response.streaming_content).decode()
    events = []
    for block in body.strip().split("\n\n"):
        name, data = "", {}
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if name:
            events.append((name, data))
    return events
