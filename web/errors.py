"""Stable error codes (from the API and from failed runs) as sentences a teacher understands.
The pages show these, never the code; the same table is handed to the page script."""

from django.utils.translation import gettext_lazy as _

FRIENDLY_ERRORS = {
    "provider_unavailable": _("模型服务暂时连不上，请稍后再试。"),
    "provider_timeout": _("模型回复超时了。请稍后再试，或者把问题拆小一点。"),
    "provider_error": _("这次没能生成回复，请再试一次。"),
    "provider_unknown": _("这个助手的模型配置有误，请联系学校管理员。"),
    "provider_not_allowed": _("这个助手的模型配置有误，请联系学校管理员。"),
    "client_disconnected": _("回复在生成途中被中断了，请再试一次。"),
    "empty_input": _("请先输入内容。"),
    "input_too_long": _("内容太长了，请删减后再发送。"),
    "thread_mismatch": _("这个会话已不可用，请新建一个会话。"),
    "continue_run_mismatch": _("找不到要继续的那次回复，请重新选择。"),
    "continue_run_not_completed": _("只能在已完成的回复上继续。"),
    "thread_archived": _("这个会话已归档，是只读的。要继续，请先恢复它。"),
    "clipboard": _("没能复制，请手动选中文字复制。"),
    "not_found": _("没有找到，可能已经被删除了。"),
    "unauthorized": _("登录已过期，请刷新页面后重新登录。"),
    "forbidden": _("登录已过期，请刷新页面后重新登录。"),
    "sensitive_content": _(
        "这条内容涉及敏感个人信息（身份证号、电话、成绩、健康状况等）。按照红线规定，系统不能记住它。"
    ),
    "network": _("网络连接中断了，请检查网络后再试。"),
    "empty_title": _("标题不能为空。"),
    "title_too_long": _("标题太长了，请写短一点。"),
    "fact_empty": _("事实内容不能为空。"),
    "fact_too_long": _("这条事实太长了，请写短一点。"),
    "duplicate_fact": _("已经有一条相同的事实了。"),
    "validation_error": _("内容格式不对，请修改后再试。"),
    "bad_request": _("内容格式不对，请修改后再试。"),
}
DEFAULT_ERROR = _("出了点问题，请稍后再试。")
# API errors whose `message` is already a sentence for a person, in the request's language
# (the red-line refusal names what it found); the page shows that sentence instead.
SERVER_SENTENCES = ("sensitive_content", "fact_too_long", "duplicate_fact")


def friendly_error(code: str) -> str:
    return str(FRIENDLY_ERRORS.get(code or "", DEFAULT_ERROR))


def friendly_errors_table() -> dict:
    """For the page script: every code, plus the fallback under ''."""
    table = {code: str(text) for code, text in FRIENDLY_ERRORS.items()}
    table[""] = str(DEFAULT_ERROR)
    return table
