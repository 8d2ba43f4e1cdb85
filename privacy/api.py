"""Erase and export over HTTP: erasing is for the school's API key; a teacher's session
exports only its own memory; an API key exports one end user's (`?user=`)."""

from ninja import Query, Router

from agents.api import ERRORS, OwnerQuery
from agents.auth import actor_of
from core.errors import AppError
from privacy.export import owner_export
from privacy.models import ErasureReceipt
from privacy.schemas import EraseIn, ReceiptOut
from privacy.selectors import subject_from_selectors
from privacy.services import owner_erase, subject_of_actor, thread_delete

router = Router(tags=["privacy"])

PRIVACY_ERRORS = {**ERRORS, 403: ERRORS[401]}


@router.post("/privacy/erase", response={200: ReceiptOut, **PRIVACY_ERRORS},
             summary="Erase a teacher's or an end user's memory from every layer (API key only)",
             description="Exactly one of `teacher` and `user`. Returns the receipt; `dry_run` counts and erases nothing.")
def erase(request, payload: EraseIn):
    actor = actor_of(request)  # a stray ?user= is refused, never ignored: the subject is in the body
    if not actor.via_api_key:
        raise AppError("api_key_required", "erasing is done with the school's API key or by a school admin",
                       status=403)
    subject = subject_from_selectors(tenant_slug=actor.tenant.slug, teacher=payload.teacher, end_user=payload.user)
    return owner_erase(subject=subject, via=ErasureReceipt.Via.API, dry_run=payload.dry_run)


@router.get("/privacy/export", response={200: dict, **PRIVACY_ERRORS},
            summary="Everything held about the caller (a teacher) or one end user (`?user=`), as one JSON document")
def export(request, owner: Query[OwnerQuery]):
    return owner_export(subject=subject_of_actor(actor_of(request, owner.user)))


@router.post("/threads/{thread_id}/delete", response={200: ReceiptOut, **PRIVACY_ERRORS},
             summary="Delete a conversation and everything derived from it",
             description="Runs, the rolling summary, recall entries and postings, candidates from its runs and "
                         "archived outputs go; confirmed facts stay, unlinked (`counts.facts_unlinked`).")
def delete_thread(request, thread_id: str, owner: Query[OwnerQuery]):
    return thread_delete(actor=actor_of(request, owner.user), thread_id=thread_id, via=ErasureReceipt.Via.API)
