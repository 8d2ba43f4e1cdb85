"""Model and history text becomes HTML only through markdown-it (raw HTML off) and nh3."""

from web.markdown import render_markdown


def test_exam_paper_markdown_becomes_headings_lists_and_code():
    html = render_markdown("# 数据结构试卷\n\n## 一、选择题\n1. 栈\n2. 队列\n\n- 简答\n\n```python\nx = 1\n```\n\n**重点**")
    assert "<h1>数据结构试卷</h1>" in html
    assert "<h2>一、选择题</h2>" in html
    assert "<ol>" in html and "<ul>" in html
    assert '<pre><code class="language-python">x = 1' in html
    assert "<strong>重点</strong>" in html


def test_script_tags_in_a_reply_come_out_as_text():
    html = render_markdown("前 <script>alert(1)</script> 后")
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_an_image_with_an_onerror_handler_comes_out_as_text():
    html = render_markdown('<img src="x" onerror="alert(1)">')
    assert "<img" not in html
    assert "&lt;img" in html


def test_javascript_and_data_links_lose_their_target():
    html = render_markdown("[a](javascript:alert(1)) [b](data:text/html,<script>alert(1)</script>) [c](https://example.org)")
    assert "href=\"javascript" not in html and "href=\"data" not in html
    assert html.count("<a ") == 1
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">c</a>' in html


def test_markdown_images_are_dropped_so_nothing_loads_from_elsewhere():
    assert "<img" not in render_markdown("![track](https://example.org/pixel.png)")


def test_html_that_reaches_the_sanitizer_is_still_cleaned():
    # Defence in depth: even if the renderer let raw HTML through, nh3 keeps only safe tags.
    import nh3

    from web import markdown

    cleaned = nh3.clean('<p onclick="x()">a</p><iframe src="x"></iframe><style>p{}</style>',
                        tags=markdown.ALLOWED_TAGS, attributes=markdown.ALLOWED_ATTRIBUTES)
    assert cleaned == "<p>a</p>"


def test_empty_output_renders_as_nothing():
    assert render_markdown("") == ""
    assert render_markdown(None) == ""
