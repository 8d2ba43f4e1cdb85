"""Knowledge-base documents: per agent, shared by the school's teachers."""

import json

from django.http.multipartparser import MultiPartParserError

from ninja import Field, Query, Router, Schema
from ninja.errors import ValidationError
from ninja.responses import Status
from pydantic import ValidationError as PydanticValidationError

from agents.auth import actor_of
from core.errors import AppError
from agents.schemas import ErrorOut
from agents.selectors import agent_get_for_tenant
from knowledge.schemas import DocumentIn, DocumentListOut, DocumentOut
from knowledge.selectors import document_get_for_tenant, documents_for_agent
from knowledge.services import document_create, document_create_from_file, document_delete

router = Router(tags=["knowledge base"])

ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 415: ErrorOut, 422: ErrorOut}

_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": DocumentIn.json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary",
                                 "description": ".txt, .md, .pdf or .docx"},
                        "title": {"type": "string", "description": "Empty: the file name."},
                    },
                }
            },
        },
    }
}


class Page(Schema):
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0, le=10**9)


def _document_in(request) -> DocumentIn:
    try:
        body = json.loads(request.body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise AppError("invalid_json", "request body is not valid JSON", status=400) from exc
    try:
        return DocumentIn.model_validate(body)
    except PydanticValidationError as exc:
        # The API's own handler gives it the same code a schema parameter would get.
        raise ValidationError(exc.errors()) from exc


@router.post(
    "/agents/{agent_id}/documents",
    response={201: DocumentOut, **ERRORS},
    summary="Add a document to an agent's knowledge base",
    description="JSON `{title, text}`, or multipart with a `file` (.txt, .md, .pdf, .docx) and an optional `title`.",
    openapi_extra=_UPLOAD_BODY,
)
def create_document(request, agent_id: str):
    actor = actor_of(request)
    agent = agent_get_for_tenant(tenant=actor.tenant, agent_id=agent_id)
    if request.content_type == "multipart/form-data":
        try:
            upload = request.FILES.get("file")
        except MultiPartParserError as exc:
            raise AppError("invalid_multipart", "the multipart body could not be parsed", status=400) from exc
        if upload is None:
            raise AppError("file_required", "multipart uploads need a `file` field", status=422)
        document = document_create_from_file(tenant=actor.tenant, agent=agent, filename=upload.name,
                                             data=upload.read(), title=request.POST.get("title", ""),
                                             created_by=actor.user)
    else:
        payload = _document_in(request)
        document = document_create(tenant=actor.tenant, agent=agent, title=payload.title, text=payload.text,
                                   created_by=actor.user)
    return Status(201, DocumentOut.from_document(document))


@router.get("/agents/{agent_id}/documents", response={200: DocumentListOut, **ERRORS},
            summary="An agent's knowledge-base documents, newest first")
def list_documents(request, agent_id: str, page: Query[Page]):
    actor = actor_of(request)
    agent = agent_get_for_tenant(tenant=actor.tenant, agent_id=agent_id)
    documents = documents_for_agent(tenant=actor.tenant, agent=agent).select_related("created_by")
    limit = max(1, min(page.limit, 200))
    offset = max(0, page.offset)
    return DocumentListOut(
        items=[DocumentOut.from_document(d) for d in documents[offset:offset + limit]], count=documents.count()
    )


@router.delete("/documents/{document_id}", response={204: None, **ERRORS},
               summary="Delete a document with its chunks and index entries")
def delete_document(request, document_id: str):
    actor = actor_of(request)
    document_delete(actor=actor, document=document_get_for_tenant(tenant=actor.tenant, document_id=document_id))
    return Status(204, None)
