"""Writes to the index. Each call is O(size of what it adds or removes), never a rebuild.

Call them inside the transaction that creates or deletes the thing indexed (a recall
entry, a KB chunk), so the row and its postings commit together or not at all.
"""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from search.models import Posting, SearchDoc, SearchScope, new_scope_token
from search.terms import index_terms


@dataclass(frozen=True)
class ScopeRef:
    """Which index a document goes to: a key unique across the project, and its owners."""

    key: str
    tenant_id: str
    agent_id: str
    owner_id: int | None = None


def _locked_scope(scope: ScopeRef) -> SearchScope:
    row, _ = SearchScope.objects.get_or_create(
        key=scope.key,
        defaults={"tenant_id": scope.tenant_id, "agent_id": scope.agent_id, "owner_id": scope.owner_id},
    )
    # The row lock serializes the writers of one scope (PostgreSQL; SQLite's IMMEDIATE
    # transactions already serialize every writer), so versions commit in order.
    return SearchScope.objects.select_for_update().get(pk=row.pk)


def index_add_many(*, scope: ScopeRef, items: list[tuple[str, str]]) -> int:
    """Index (ref, text) pairs in one scope; a ref already indexed there is skipped.

    Returns how many documents were added.
    """
    if not items:
        return 0
    with transaction.atomic():
        row = _locked_scope(scope)
        refs = [ref for ref, _ in items]
        existing = set(SearchDoc.objects.filter(scope=row, ref__in=refs).values_list("ref", flat=True))
        seen: set[str] = set()
        docs, postings, added_length = [], [], 0
        for ref, text in items:
            if ref in existing or ref in seen:
                continue
            seen.add(ref)
            terms = Counter(index_terms(text))
            length = sum(terms.values())
            row.version += 1
            doc = SearchDoc(scope=row, seq=row.version, ref=ref, length=length)
            docs.append(doc)
            postings.append((doc, terms))
            added_length += length
        if not docs:
            return 0
        SearchDoc.objects.bulk_create(docs)
        if any(doc.pk is None for doc in docs):  # backends that do not return ids on bulk insert
            ids = dict(SearchDoc.objects.filter(scope=row, seq__gt=row.version - len(docs)).values_list("seq", "id"))
            for doc in docs:
                doc.pk = ids[doc.seq]
        Posting.objects.bulk_create(
            [Posting(doc_id=doc.pk, scope_id=row.pk, term=term, tf=tf) for doc, terms in postings for term, tf in terms.items()],
            batch_size=2000,
        )
        row.doc_count += len(docs)
        row.total_length += added_length
        row.updated_at = timezone.now()
        row.save(update_fields=["version", "doc_count", "total_length", "updated_at"])
    return len(docs)


def index_add(*, scope: ScopeRef, ref: str, text: str) -> bool:
    """Index one document; False when `ref` was already in the scope (idempotent)."""
    return index_add_many(scope=scope, items=[(ref, text)]) == 1


def index_remove(*, scope_key: str, refs: list[str]) -> int:
    """Remove documents and their postings; returns how many were removed."""
    if not refs:
        return 0
    with transaction.atomic():
        row = SearchScope.objects.select_for_update().filter(key=scope_key).first()
        if row is None:
            return 0
        removed = 0
        for start in range(0, len(refs), 500):
            batch = refs[start:start + 500]
            docs = list(SearchDoc.objects.filter(scope=row, ref__in=batch).values_list("id", "length"))
            if not docs:
                continue
            ids = [doc_id for doc_id, _ in docs]
            Posting.objects.filter(doc_id__in=ids).delete()
            SearchDoc.objects.filter(id__in=ids).delete()
            row.doc_count -= len(docs)
            row.total_length -= sum(length for _, length in docs)
            removed += len(docs)
        if removed:
            row.version += 1
            row.token = new_scope_token()  # caches holding the old token start over
            row.updated_at = timezone.now()
            row.save(update_fields=["version", "token", "doc_count", "total_length", "updated_at"])
    return removed
