"""Text out of uploaded files: plain text, Markdown, PDF (pypdf) and Word (python-docx)."""

import io
import logging
from pathlib import PurePath

from core.errors import AppError

log = logging.getLogger(__name__)

SUPPORTED = (".txt", ".md", ".markdown", ".pdf", ".docx")


def _decode(data: bytes) -> str:
    # Chinese schools still produce GBK files; UTF-8 (with or without a BOM) first.
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise AppError("unreadable_file", "the file is not UTF-8 or GB18030 text", status=422)


def _pdf(data: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise AppError("unreadable_file", "the PDF is encrypted", status=422)
        return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)
    except AppError:
        raise
    except Exception as exc:  # a broken PDF can raise almost anything from the parser
        log.info("unreadable PDF: %s", exc)
        raise AppError("unreadable_file", "the PDF could not be read", status=422) from exc


def _docx(data: bytes) -> str:
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
        parts = [paragraph.text for paragraph in document.paragraphs]
        for table in document.tables:
            for row in table.rows:
                parts.append(" | ".join(cell.text.strip() for cell in row.cells))
    except Exception as exc:  # bad zip, bad XML, a document without a body …
        log.info("unreadable Word file: %s", exc)
        raise AppError("unreadable_file", "the Word file could not be read", status=422) from exc
    return "\n".join(parts)


def extract_text(filename: str, data: bytes) -> str:
    """The text of an uploaded file; 415 unsupported_file_type for anything else."""
    suffix = PurePath(filename or "").suffix.lower()
    if suffix in (".txt", ".md", ".markdown"):
        return _decode(data)
    if suffix == ".pdf":
        return _pdf(data)
    if suffix == ".docx":
        return _docx(data)
    raise AppError(
        "unsupported_file_type",
        f"supported files: {', '.join(SUPPORTED)}",
        status=415,
    )
