"""Reads of the privacy app: which owner a command, an admin or an API call names."""

from agents.models import Tenant
from core.errors import AppError, NotFound
from privacy.services import Subject, subject_for_end_user, subject_for_teacher


def subject_from_selectors(*, tenant_slug: str, teacher: str | None, end_user: str | None) -> Subject:
    """The owner named by `--tenant SLUG (--teacher USERNAME | --end-user ID)`."""
    tenant = Tenant.objects.filter(slug=tenant_slug or "").first()
    if tenant is None:
        raise NotFound("school")
    if (teacher is None) == (end_user is None):
        raise AppError("one_subject", "name exactly one of a teacher or an end user", status=422)
    if teacher is not None:
        return subject_for_teacher(tenant=tenant, username=teacher)
    return subject_for_end_user(tenant=tenant, end_user=end_user)
