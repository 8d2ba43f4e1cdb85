from datetime import datetime

from ninja import Field, Schema

from core.text import SafeText


class DocumentIn(Schema):
    title: SafeText = Field("", max_length=200, description="Empty: the start of the text.")
    text: SafeText = Field(..., description="Plain text or Markdown.")


class DocumentOut(Schema):
    id: str
    agent_id: str
    title: str
    source: str
    chunk_count: int
    token_count: int
    created_by: str | None = Field(None, description="Username of the teacher who uploaded it.")
    created_at: datetime

    @staticmethod
    def from_document(document) -> "DocumentOut":
        return DocumentOut(
            id=document.pk,
            agent_id=document.agent_id,
            title=document.title,
            source=document.source,
            chunk_count=document.chunk_count,
            token_count=document.token_count,
            created_by=document.created_by.username if document.created_by_id else None,
            created_at=document.created_at,
        )


class DocumentListOut(Schema):
    items: list[DocumentOut]
    count: int
