"""Connecting an agent to a real model from the admin: the provider part of the agent form
and the "测试连接" action. The checks are agents.services.agent_provider_clean, the same
ones `create_agent` runs; the call is agents.services.agent_connection_test."""

from django import forms
from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.utils.translation import gettext, gettext_lazy as _

from agents.models import Agent
from agents.services import agent_connection_test, agent_provider_clean, school_secret_prefix
from core.errors import AppError

#: why a connection test failed, for the school admin who configures the agent
CONNECTION_ERRORS = {
    "api_key_env_missing": _("服务器上没有设置环境变量 %(env)s：请运维人员在服务器上设置它，然后重启服务。"),
    "provider_auth_failed": _("接口拒绝了密钥：请检查环境变量 %(env)s 的值是否正确、是否有权使用该模型。"),
    "provider_unavailable": _("连不上 %(url)s：请检查地址、端口，以及服务器能否访问它。"),
    "provider_timeout": _("%(url)s 没有在规定时间内回复。"),
    "provider_rate_limited": _("接口提示请求过于频繁或额度不足，请稍后再试。"),
    "provider_error": _("接口返回了错误：请检查模型名称和接口地址（OpenAI 兼容接口通常以 /v1 结尾）。"),
    "local_model_missing": _("内置模型文件没有安装。"),
    "provider_not_allowed": _("这种模型提供方只用于测试。"),
}
CONNECTION_ERROR_DEFAULT = _("连接失败（%(code)s）。")


class AgentProviderForm(forms.ModelForm):
    """The agent form, its provider fields checked by the service. `for_school_admin` is set
    per request: a school admin may only name secrets with the school's prefix."""

    for_school_admin = False
    school = None

    class Meta:
        model = Agent
        fields = "__all__"
        help_texts = {
            "base_url": _("OpenAI 兼容接口填到 /v1 为止，例如 http://192.168.1.20:8000/v1；Ollama 填 "
                          "http://主机:11434。内置本地模型不用填。"),
            "model": _("例如 qwen-plus、qwen2.5:7b。"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        tenant = self.instance.tenant if self.instance.tenant_id else self.school
        if "api_key_env" in self.fields:
            example = f"{school_secret_prefix(tenant)}QWEN_API_KEY" if tenant else "SCHOOL_QWEN_API_KEY"
            self.fields["api_key_env"].help_text = gettext(
                "存放密钥的环境变量的名称（不是密钥本身），例如 %(example)s。密钥由运维人员设置在服务器上。") % {
                "example": example}

    def clean(self):
        data = super().clean()
        tenant = self.instance.tenant if self.instance.tenant_id else data.get("tenant") or self.school
        if tenant is None:
            return data
        try:
            cleaned = agent_provider_clean(
                tenant=tenant,
                provider_kind=data.get("provider_kind", ""),
                base_url=data.get("base_url", ""),
                model=data.get("model", ""),
                api_key_env=data.get("api_key_env", ""),
                # A name the operator already chose stays acceptable (it is cleared when the
                # endpoint changes, see AgentAdmin.save_model); a new one needs the prefix.
                school_admin=self.for_school_admin and data.get("api_key_env", "") != self.instance.api_key_env,
            )
        except AppError as exc:
            field = {"invalid_api_key_env": "api_key_env", "model_required": "model"}.get(exc.code, "provider_kind")
            self.add_error(field, self._message(exc, tenant))
            return data
        data.update(cleaned)
        return data

    @staticmethod
    def _message(exc: AppError, tenant) -> str:
        if exc.code == "invalid_api_key_env":
            return gettext("环境变量名须以 %(prefix)s 开头、以 _API_KEY 或 _TOKEN 结尾，只用大写字母、数字和下划线。") % {
                "prefix": school_secret_prefix(tenant)}
        if exc.code == "model_required":
            return gettext("OpenAI 兼容接口和 Ollama 必须填写模型名称。")
        return gettext("不支持这种模型提供方。")


def connection_message(agent: Agent, check) -> tuple[int, str]:
    """(message level, sentence) for one connection test."""
    if check.ok:
        return messages.SUCCESS, gettext("「%(agent)s」连接成功：模型 %(model)s 在 %(seconds)s 秒内回复了。") % {
            "agent": agent.name, "model": check.model, "seconds": check.seconds}
    reason = CONNECTION_ERRORS.get(check.code, CONNECTION_ERROR_DEFAULT) % {
        "env": agent.api_key_env, "url": agent.base_url or agent.get_provider_kind_display(), "code": check.code}
    return messages.ERROR, gettext("「%(agent)s」连接失败：%(reason)s") % {"agent": agent.name, "reason": reason}


class AgentProviderAdminMixin:
    """For AgentAdmin: the checked provider form, the "测试连接" action and button."""

    form = AgentProviderForm
    school_admin_can_add = True
    change_form_template = "admin/agents/agent/change_form.html"
    actions = ["test_connection"]
    #: an action tests at most this many agents (each is a network call)
    TEST_CONNECTION_LIMIT = 5

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        user = request.user
        return type(form.__name__, (form,), {
            "for_school_admin": not user.is_superuser,
            "school": getattr(user, "tenant", None),
        })

    def _test_and_tell(self, request, agent: Agent) -> None:
        level, text = connection_message(agent, agent_connection_test(agent=agent))
        self.message_user(request, text, level=level)

    @admin.action(description=_("测试连接"), permissions=["change"])
    def test_connection(self, request, queryset):
        agents = list(queryset[: self.TEST_CONNECTION_LIMIT + 1])
        for agent in agents[: self.TEST_CONNECTION_LIMIT]:
            self._test_and_tell(request, agent)
        if len(agents) > self.TEST_CONNECTION_LIMIT:
            self.message_user(request, gettext("一次最多测试 %(n)d 个智能体。") % {"n": self.TEST_CONNECTION_LIMIT},
                              level=messages.WARNING)

    def get_urls(self):
        from django.urls import path

        view = self.admin_site.admin_view(self.test_connection_view)
        return [path("<path:object_id>/test-connection/", view, name="agents_agent_test_connection"),
                *super().get_urls()]

    def test_connection_view(self, request, object_id):
        """The change form's "测试连接" button: tests the saved settings. Not inside the
        admin's atomic change view, because the test is a network call."""
        from django.contrib.admin.utils import quote, unquote
        from django.core.exceptions import PermissionDenied
        from django.urls import reverse

        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:agents_agent_change", args=[object_id]))
        agent = self.get_object(request, unquote(object_id))  # as the admin's own views
        if agent is None or not self.has_change_permission(request, agent):
            raise PermissionDenied
        self._test_and_tell(request, agent)
        return HttpResponseRedirect(reverse("admin:agents_agent_change", args=[quote(agent.pk)]))
