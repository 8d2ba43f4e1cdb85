from datetime import datetime

from ninja import Field, Schema

from agents.actor import END_USER_MAX


class EraseIn(Schema):
    teacher: str | None = Field(None, max_length=150, description="A teacher's username in the key's school.")
    user: str | None = Field(None, max_length=END_USER_MAX, description="An end-user id of the key's school.")
    dry_run: bool = Field(False, description="Count what would go; erase nothing.")


class ReceiptOut(Schema):
    receipt_id: str | None = Field(None, description="The stored receipt (null for a dry run).")
    dry_run: bool
    tenant: str
    subject_kind: str = Field(..., description="teacher | end_user | thread | retention")
    subject_hash: str = Field(..., description="HMAC-SHA256 of the subject, keyed with the server's secret.")
    requested_via: str
    requested_by: str | None
    started_at: datetime
    finished_at: datetime
    counts: dict[str, int] = Field(..., description="Rows removed, per kind.")
    total: int
