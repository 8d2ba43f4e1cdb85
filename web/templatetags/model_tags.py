"""The chat's one quiet line when an agent runs on the built-in demo model."""

from django import template

from agents.providers import runs_on_builtin_model

register = template.Library()


@register.inclusion_tag("web/model_notice.html")
def model_notice(agent):
    return {"show": agent is not None and runs_on_builtin_model(agent)}
