"""One application error type. A client error is a 4xx JSON body with a stable `code`
and a `message` for a person, in the request's language (zh-hans by default, English
when the API client asks with `Accept-Language: en`).

The `code` is the contract; the message is read from MESSAGES when the code has an
entry there, so every raise site of a code says the same sentence in both languages.
Raise sites that build a sentence of their own with gettext (the red line names the
kind of data it found) keep theirs. The developer's detail (`AppError.detail`, English,
may name limits and values) is for logs only."""

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_lazy as _

API_PREFIX = "/api/"

MESSAGES = {
    # the request itself
    "unauthorized": _("需要有效的 X-API-Key 请求头或已登录的会话。"),
    "forbidden": _("没有权限执行此操作。"),
    "csrf_failed": _("CSRF 校验失败：请刷新页面后重试。"),
    "not_found": _("没有找到。"),
    "method_not_allowed": _("此地址不支持该请求方法。"),
    "bad_request": _("请求有误。"),
    "invalid_json": _("请求体不是有效的 JSON。"),
    "validation_error": _("请求内容不符合接口格式。"),
    "invalid_multipart": _("无法解析 multipart 请求体。"),
    "file_required": _("multipart 上传需要一个 file 字段。"),
    "invalid_text": _("文本含有无效字符（非 Unicode 或 NUL）。"),
    "payload_too_large": _("请求体太大。"),
    "json_too_deep": _("JSON 嵌套层数过多。"),
    "invalid_user": _("user 不能为空，且不能超过 128 个字符。"),
    "user_not_accepted": _("这个接口不接受 user：请求由当前登录的教师本人发出。"),
    "internal_error": _("服务器内部错误。"),
    # runs and threads
    "empty_input": _("输入不能为空。"),
    "input_too_long": _("输入超出了工作记忆的上限。"),
    "thread_mismatch": _("thread_id 不属于这个智能体。"),
    "continue_run_mismatch": _("context.run_id 不属于这个智能体。"),
    "continue_run_not_completed": _("只能在已完成的运行上继续。"),
    "continue_stream_only": _("在上次产物上继续只能通过 /run/stream。"),
    "empty_title": _("标题不能为空。"),
    "title_too_long": _("标题太长。"),
    # knowledge base
    "unsupported_file_type": _("不支持的文件类型：请上传 .txt、.md、.pdf 或 .docx 文件。"),
    "unreadable_file": _("无法读取该文件（损坏、加密或编码不是 UTF-8/GB18030）。"),
    "empty_document": _("文档没有文字内容。"),
    "document_too_long": _("文档太长。"),
    "file_too_large": _("文件太大。"),
    "not_document_owner": _("只有上传者、学校管理员或本校 API 密钥可以删除这份文档。"),
    # privacy: erase and export
    "one_subject": _("请只指定一位教师（teacher）或一位终端用户（user）。"),
    "api_key_required": _("只有本校的 API 密钥或学校管理员可以执行删除。"),
    "user_required": _("请用 ?user= 指定要导出的终端用户。"),
}

# What NotFound names, by the developer's word for it.
NOT_FOUND_WHAT = {
    "agent": _("智能体"),
    "run": _("运行"),
    "thread": _("会话"),
    "fact": _("事实"),
    "candidate": _("候选事实"),
    "document": _("文档"),
    "school": _("学校"),
    "teacher": _("教师"),
}


class AppError(Exception):
    status = 400

    def __init__(self, code: str, message: str = "", *, status: int | None = None, **extra):
        super().__init__(message or code)
        self.code = code
        self.detail = message or code
        if status is not None:
            self.status = status
        self.extra = extra

    @property
    def message(self) -> str:
        """The sentence for a person, in the active language."""
        known = MESSAGES.get(self.code)
        return str(known) if known is not None else str(self.detail)

    def as_body(self) -> dict:
        return {"code": self.code, "message": self.message, **self.extra}


class NotFound(AppError):
    status = 404

    def __init__(self, what: str = "object"):
        super().__init__("not_found", f"{what} not found")
        self.what = what

    @property
    def message(self) -> str:
        label = NOT_FOUND_WHAT.get(self.what)
        if label is None:
            return str(MESSAGES["not_found"])
        return str(_("没有找到该%(what)s。")) % {"what": label}


def error_body(code: str, **extra) -> dict:
    """The JSON body of an error raised outside AppError (auth, routing, ninja's own checks)."""
    return AppError(code, **extra).as_body()


def api_client_language(request) -> str | None:
    """The language of an API client's messages: its Accept-Language (Chinese when it
    names none we have). None for everything else, the pages and their own API calls
    (a session cookie), which follow the language switch."""
    if not request.path.startswith(API_PREFIX) or settings.SESSION_COOKIE_NAME in request.COOKIES:
        return None
    if "Accept-Language" not in request.headers:
        return settings.LANGUAGE_CODE
    return translation.get_language_from_request(request)
