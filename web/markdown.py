"""Model and history text to HTML, safely: markdown-it with raw HTML disabled (tags in the
text come out as text), then nh3 keeps only a short list of harmless tags and attributes.
Nothing the model writes ever becomes a script, an event handler or a style."""

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_renderer = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False}).enable(
    ["table", "strikethrough"]
)

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code", "pre",
    "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "code": {"class"}}
URL_SCHEMES = {"http", "https", "mailto"}


def parse_markdown(text: str) -> list:
    """The block tokens of the same parse the page renders (the Word export walks them)."""
    return _renderer.parse(text or "")


def render_markdown(text: str) -> SafeString:
    html = _renderer.render(text or "")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return mark_safe(clean)  # noqa: S308 — sanitized just above
