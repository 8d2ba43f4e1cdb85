from typing import Literal

from ninja import Query, Router
from ninja.pagination import paginate

from agents.api import ERRORS, OwnerQuery
from agents.auth import actor_of
from agents.pagination import PAGE_MAX, BoundedLimitOffsetPagination
from agents.selectors import agent_get_for_tenant
from threads.schemas import ThreadOut, ThreadRenameIn, ThreadRunOut
from threads.selectors import thread_get_for_actor, thread_runs, threads_for_actor
from threads.services import thread_archive, thread_rename, thread_restore

router = Router(tags=["threads"])



@router.get("/agents/{agent_id}/threads", response={200: list[ThreadOut], **ERRORS},
            summary="The caller's threads of an agent (active by default, or ?status=archived), "
                    "last activity first")
@paginate(BoundedLimitOffsetPagination, max_limit=PAGE_MAX)
def list_threads(request, agent_id: str, owner: Query[OwnerQuery], status: Literal["active", "archived"] = "active"):
    actor = actor_of(request, owner.user)
    agent = agent_get_for_tenant(tenant=actor.tenant, agent_id=agent_id)
    return threads_for_actor(actor=actor, agent=agent, status=status)


@router.get("/threads/{thread_id}/runs", response={200: list[ThreadRunOut], **ERRORS},
            summary="A thread's runs, oldest first (restores the conversation)")
@paginate(BoundedLimitOffsetPagination, max_limit=PAGE_MAX)
def list_thread_runs(request, thread_id: str, owner: Query[OwnerQuery]):
    thread = thread_get_for_actor(actor=actor_of(request, owner.user), thread_id=thread_id)
    return thread_runs(thread=thread)


@router.post("/threads/{thread_id}/archive", response={200: ThreadOut, **ERRORS},
             summary="Archive a thread: out of the list and read-only (new runs answer 409 thread_archived) "
                     "until restored; nothing deleted")
def archive_thread(request, thread_id: str, owner: Query[OwnerQuery]):
    return thread_archive(actor=actor_of(request, owner.user), thread_id=thread_id)


@router.post("/threads/{thread_id}/restore", response={200: ThreadOut, **ERRORS},
             summary="Restore an archived thread (back in the list, accepts runs again)")
def restore_thread(request, thread_id: str, owner: Query[OwnerQuery]):
    return thread_restore(actor=actor_of(request, owner.user), thread_id=thread_id)


@router.patch("/threads/{thread_id}", response={200: ThreadOut, **ERRORS}, summary="Rename a thread")
def rename_thread(request, thread_id: str, payload: ThreadRenameIn, owner: Query[OwnerQuery]):
    return thread_rename(actor=actor_of(request, owner.user, payload.user), thread_id=thread_id, title=payload.title)
