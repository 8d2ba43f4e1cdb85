from datetime import datetime

from ninja import Field, Schema

from core.text import SafeText


# Public ids look like `th_…` / `run_…`; anything else is refused by the schema (422).
PUBLIC_ID = r"^[a-z]{1,8}_[0-9a-z]{1,40}$"


class RunContextIn(Schema):
    run_id: str | None = Field(None, pattern=PUBLIC_ID, description="Continue on this run's artifact (stream endpoint only).")


class RunIn(Schema):
    input: SafeText = Field(..., description="The teacher's message.")
    thread_id: str | None = Field(None, pattern=PUBLIC_ID, description="Continue this thread; omitted: a new thread.")
    context: RunContextIn | None = None
    user: SafeText | None = Field(None, max_length=128, description="API clients: the end user whose memory to use.")


class RunReplyOut(Schema):
    run_id: str
    thread_id: str
    status: str
    output: str
    error_code: str = ""


class RunOut(Schema):
    run_id: str
    agent_id: str
    thread_id: str
    status: str
    input: str
    output: str
    error_code: str
    created_at: datetime
    finished_at: datetime | None
    prompt_tokens: int
    completion_tokens: int
    cost: float
    continued_from: str | None = None
    finish_reason: str = ""  # "length": the reply was cut at the agent's max output tokens

    @staticmethod
    def from_run(run) -> "RunOut":
        return RunOut(
            run_id=run.pk,
            agent_id=run.agent_id,
            thread_id=run.thread_id,
            status=run.status,
            input=run.input,
            output=run.output,
            error_code=run.error_code,
            created_at=run.created_at,
            finished_at=run.finished_at,
            prompt_tokens=run.prompt_tokens,
            completion_tokens=run.completion_tokens,
            cost=float(run.cost),
            continued_from=run.continued_from_id,
            finish_reason=run.finish_reason,
        )


class SectionOut(Schema):
    layer: str
    label: str
    text: str
    tokens: int
    budget: int
    items: list = []


class MessageOut(Schema):
    role: str
    content: str


class RunContextOut(Schema):
    run_id: str
    sections: list[SectionOut]
    total_tokens: int
    total_budget: int
    messages: list[MessageOut]
    fence_nonce: str = Field("", description="This run's fence nonce: only prompt lines carrying it are boundaries.")


class ErrorOut(Schema):
    code: str
    message: str = ""
