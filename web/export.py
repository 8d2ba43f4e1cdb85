"""A reply as a file a teacher can open and print: Word (.docx, built with python-docx) or
Markdown. The Word file is built from the same Markdown parse the page renders
(web.markdown's markdown-it), so headings, lists (nested and numbered), tables, code,
quotes and inline bold/italic/code survive. Nothing in the text is ever run: it only
becomes paragraphs, runs and table cells."""

import io
import re
from urllib.parse import quote

from docx import Document
from docx.enum.text import WD_BREAK
from docx.oxml.ns import qn
from docx.shared import Pt, RGBColor

from web.markdown import parse_markdown

DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
MARKDOWN_TYPE = "text/markdown; charset=utf-8"
CODE_FONT = "Consolas"
BODY_EAST_ASIAN_FONT = "宋体"
HEADING_LEVELS = 4  # Word's built-in "Heading 1..4"; deeper Markdown headings use level 4
LIST_DEPTH = 3  # Word's built-in "List Bullet", "List Bullet 2", "List Bullet 3"
_UNSAFE_FILENAME = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')
FILENAME_CHARS = 60


def export_filename(title: str, when, extension: str) -> str:
    """`<title>-<yyyymmdd-hhmm>.<ext>`, safe on Windows, macOS and Linux."""
    base = _UNSAFE_FILENAME.sub(" ", title or "").strip()[:FILENAME_CHARS].strip() or "reply"
    return f"{base}-{when:%Y%m%d-%H%M}.{extension}"


def content_disposition(filename: str) -> str:
    """An attachment with the UTF-8 name (RFC 6266) and a plain ASCII fallback."""
    ascii_name = filename.encode("ascii", "ignore").decode().strip(" -.") or "reply"
    if not ascii_name.endswith(filename.rsplit(".", 1)[-1]):
        ascii_name = f"reply.{filename.rsplit('.', 1)[-1]}"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"


def markdown_bytes(*, title: str, text: str) -> bytes:
    heading = f"# {title}\n\n" if title and not text.lstrip().startswith("#") else ""
    return (heading + text.rstrip() + "\n").encode("utf-8")


def docx_bytes(*, title: str, text: str) -> bytes:
    document = Document()
    _set_fonts(document)
    document.core_properties.title = title or ""
    if title and not text.lstrip().startswith("#"):
        document.add_heading(title, level=1)
    _DocxWriter(document).write(parse_markdown(text or ""))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _set_fonts(document) -> None:
    # Without an East Asian font name Word falls back per machine; 宋体 is on every Chinese Windows.
    for name in ("Normal", "Heading 1", "Heading 2", "Heading 3", "Heading 4", "Title"):
        style = document.styles[name]
        fonts = style.element.get_or_add_rPr().get_or_add_rFonts()
        fonts.set(qn("w:eastAsia"), BODY_EAST_ASIAN_FONT)


class _DocxWriter:
    """Walks markdown-it's block tokens once, keeping a small stack of open lists."""

    def __init__(self, document):
        self.document = document
        self.lists: list[dict] = []  # {"ordered": bool, "start": int, "num_id": int | None}, innermost last
        self.quote_depth = 0

    def write(self, tokens) -> None:
        i = 0
        while i < len(tokens):
            i = self._block(tokens, i)

    def _block(self, tokens, i: int) -> int:
        token = tokens[i]
        kind = token.type
        if kind == "heading_open":
            level = min(int(token.tag[1:]), HEADING_LEVELS)
            paragraph = self.document.add_heading("", level=level)
            self._inline(paragraph, tokens[i + 1])
            return i + 3
        if kind == "paragraph_open":
            paragraph = self._paragraph()
            self._inline(paragraph, tokens[i + 1])
            return i + 3
        if kind in ("bullet_list_open", "ordered_list_open"):
            start = token.attrGet("start") if kind == "ordered_list_open" else None
            self.lists.append({"ordered": kind == "ordered_list_open", "start": int(start or 1), "num_id": None})
            return i + 1
        if kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
            return i + 1
        if kind == "list_item_open":
            return self._list_item(tokens, i)
        if kind in ("fence", "code_block"):
            self._code(token.content)
            return i + 1
        if kind == "table_open":
            return self._table(tokens, i)
        if kind == "blockquote_open":
            self.quote_depth += 1
            return i + 1
        if kind == "blockquote_close":
            self.quote_depth -= 1
            return i + 1
        if kind == "hr":
            self.document.add_paragraph().add_run().add_break(WD_BREAK.LINE)
            return i + 1
        return i + 1

    def _paragraph(self, style: str | None = None):
        if style is None and self.quote_depth:
            style = "Quote"
        return self.document.add_paragraph(style=style)

    def _list_item(self, tokens, i: int) -> int:
        depth = min(len(self.lists), LIST_DEPTH)
        current = self.lists[-1]
        base = "List Number" if current["ordered"] else "List Bullet"
        style = base if depth == 1 else f"{base} {depth}"
        first = True
        i += 1
        while tokens[i].type != "list_item_close":
            token = tokens[i]
            if first and token.type == "paragraph_open":
                paragraph = self._paragraph(style)
                if current["ordered"]:
                    self._number(paragraph, current, style)
                self._inline(paragraph, tokens[i + 1])
                first = False
                i += 3
            else:
                i = self._block(tokens, i)
        return i + 1

    def _number(self, paragraph, current: dict, style: str) -> None:
        """Each Markdown ordered list counts from its own start: all "List Number"
        paragraphs share one counter in Word, so every list gets a numbering instance of
        its own (same look, restarted)."""
        if current["num_id"] is None:
            numbering = self.document.part.numbering_part.element
            style_num = int(self.document.styles[style].element.pPr.numPr.numId.val)
            abstract_id = numbering.num_having_numId(style_num).abstractNumId.val
            num = numbering.add_num(abstract_id)
            num.add_lvlOverride(ilvl=0).add_startOverride(current["start"])
            current["num_id"] = num.numId
        num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
        num_pr.get_or_add_ilvl().val = 0
        num_pr.get_or_add_numId().val = current["num_id"]

    def _code(self, content: str) -> None:
        paragraph = self._paragraph()
        paragraph.paragraph_format.left_indent = Pt(12)
        lines = content.rstrip("\n").split("\n")
        for index, line in enumerate(lines):
            run = paragraph.add_run(line)
            run.font.name = CODE_FONT
            run.font.size = Pt(9.5)
            if index < len(lines) - 1:
                run.add_break(WD_BREAK.LINE)

    def _table(self, tokens, i: int) -> int:
        rows: list[list] = []
        header_rows = 0
        in_head = False
        i += 1
        while tokens[i].type != "table_close":
            token = tokens[i]
            if token.type == "thead_open":
                in_head = True
            elif token.type == "thead_close":
                in_head = False
            elif token.type == "tr_open":
                rows.append([])
                header_rows += in_head
            elif token.type == "inline":
                rows[-1].append(token)
            i += 1
        width = max((len(row) for row in rows), default=0)
        if width:
            table = self.document.add_table(rows=len(rows), cols=width)
            table.style = "Table Grid"
            for r, row in enumerate(rows):
                for c, inline in enumerate(row):
                    paragraph = table.cell(r, c).paragraphs[0]
                    self._inline(paragraph, inline, bold=r < header_rows)
        return i + 1

    def _inline(self, paragraph, inline, *, bold: bool = False) -> None:
        strong = em = strike = 0
        link = False
        for child in inline.children or []:
            kind = child.type
            if kind == "text":
                run = paragraph.add_run(child.content)
                run.bold = bool(strong) or bold or None
                run.italic = bool(em) or None
                run.font.strike = bool(strike) or None
                if link:
                    run.font.underline = True
                    run.font.color.rgb = RGBColor(0x1F, 0x4E, 0x9C)
            elif kind == "code_inline":
                run = paragraph.add_run(child.content)
                run.font.name = CODE_FONT
                run.bold = bool(strong) or bold or None
            elif kind in ("softbreak", "hardbreak"):
                paragraph.add_run().add_break(WD_BREAK.LINE)
            elif kind == "strong_open":
                strong += 1
            elif kind == "strong_close":
                strong -= 1
            elif kind == "em_open":
                em += 1
            elif kind == "em_close":
                em -= 1
            elif kind == "s_open":
                strike += 1
            elif kind == "s_close":
                strike -= 1
            elif kind == "link_open":
                link = True
            elif kind == "link_close":
                link = False
