"""Teacher pages: delete a conversation (after a confirmation page that says what goes and
what stays), and download everything held about oneself. Thin: the same services as the
API and the admin."""

from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from core.errors import NotFound
from privacy.export import owner_export
from privacy.models import ErasureReceipt
from privacy.services import counts_labelled, subject_of_actor, thread_delete
from threads.selectors import thread_get_for_actor
from web.views import actor_for, teacher_page


@teacher_page
@require_http_methods(["GET", "POST"])
def thread_delete_page(request, thread_id: str):
    actor = actor_for(request)
    try:
        thread = thread_get_for_actor(actor=actor, thread_id=thread_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    confirmed = request.method == "POST"
    receipt = thread_delete(actor=actor, thread_id=thread.pk, via=ErasureReceipt.Via.PAGE, dry_run=not confirmed)
    context = {
        "thread": thread,
        "done": confirmed,
        "counts": counts_labelled({k: v for k, v in receipt["counts"].items() if k != "facts_unlinked"}),
        "facts_kept": receipt["counts"]["facts_unlinked"],
        "active": "chat",
    }
    return render(request, "privacy/thread_delete.html", context)


@teacher_page
@require_GET
def export_download(request):
    document = owner_export(subject=subject_of_actor(actor_for(request)))
    response = JsonResponse(document, json_dumps_params={"ensure_ascii": False, "indent": 2})
    response["Content-Disposition"] = f'attachment; filename="memory-export-{timezone.localdate():%Y%m%d}.json"'
    response["Cache-Control"] = "no-store"
    return response
