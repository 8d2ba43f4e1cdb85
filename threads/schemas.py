from datetime import datetime

from ninja import Field, Schema

from agents.schemas import RunOut
from core.text import SafeText


class ThreadOut(Schema):
    id: str
    agent_id: str
    title: str
    status: str
    created_at: datetime
    updated_at: datetime
    run_count: int

    @staticmethod
    def resolve_run_count(thread) -> int:
        annotated = getattr(thread, "run_count", None)
        return annotated if annotated is not None else thread.runs.count()


class ThreadRunOut(RunOut):
    """A run as a message of its thread (read straight from the model, page by page)."""

    @staticmethod
    def resolve_run_id(run) -> str:
        return run.pk

    @staticmethod
    def resolve_cost(run) -> float:
        return float(run.cost)

    @staticmethod
    def resolve_continued_from(run) -> str | None:
        return run.continued_from_id


class ThreadRenameIn(Schema):
    title: SafeText = Field(..., max_length=200, description="The new title.")
    user: SafeText | None = Field(None, max_length=128, description="API clients: the end user whose thread this is.")
