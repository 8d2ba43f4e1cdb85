"""Queue entry points of the privacy app."""

import logging

from agents.models import Tenant
from privacy.models import ErasureReceipt
from privacy.services import selection_erase, selection_for_retention

log = logging.getLogger(__name__)


def retention_sweep() -> int:
    """Erase, through the one erasure path, the runs and recall entries each school's
    retention period has outlived (Tenant.retention_days; 0, the default, keeps all).
    Scheduled hourly (migration 0003); idempotent: a second sweep finds nothing. A
    receipt is kept for each sweep that removed something."""
    removed = 0
    for tenant in Tenant.objects.filter(retention_days__gt=0).order_by("pk"):
        selection = selection_for_retention(tenant=tenant)
        receipt = selection_erase(selection=selection, subject_kind=ErasureReceipt.SubjectKind.RETENTION,
                                  identifier=f"retention:{tenant.retention_days}",
                                  via=ErasureReceipt.Via.RETENTION, keep_empty=False)
        removed += receipt["total"]
    if removed:
        log.info("retention sweep removed %d rows", removed)
    return removed
