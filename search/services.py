"""Writes to the index. Each call is O(size of what it adds or removes), never a rebuild.

Call them inside the transaction that creates or deletes the thing indexed (a recall
entry, a KB chunk), so the row and its postings commit together or not at all; compute
the dense vectors (`passage_vectors`) before that transaction opens and pass them in.
"""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from search.models import Posting, SearchDoc, SearchScope, new_scope_token
from search.terms import ANALYZER_VERSION, index_terms, query_terms
from search.vectors import passage_vectors, store

#: `vectors=` default: embed the texts here (only right for callers outside a transaction)
EMBED_HERE = object()


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
        defaults={"tenant_id": scope.tenant_id, "agent_id": scope.agent_id, "owner_id": scope.owner_id,
                  "analyzer": ANALYZER_VERSION},
    )
    # The row lock serializes the writers of one scope (PostgreSQL; SQLite's IMMEDIATE
    # transactions already serialize every writer), so versions commit in order.
    return SearchScope.objects.select_for_update().get(pk=row.pk)


def index_add_many(*, scope: ScopeRef, items: list[tuple[str, str]], vectors=EMBED_HERE) -> int:
    """Index (ref, text) pairs in one scope; a ref already indexed there is skipped.

    `vectors`: one `passage_vectors` result per item (or None: no dense vectors); by
    default they are computed here. Returns how many documents were added.
    """
    if not items:
        return 0
    if vectors is EMBED_HERE:
        vectors = passage_vectors([text for _, text in items])
    if vectors is not None and len(vectors) != len(items):
        raise ValueError("one vector per item")
    with transaction.atomic():
        row = _locked_scope(scope)
        refs = [ref for ref, _ in items]
        existing = set(SearchDoc.objects.filter(scope=row, ref__in=refs).values_list("ref", flat=True))
        seen: set[str] = set()
        docs, postings, added_length = [], [], 0
        for position, (ref, text) in enumerate(items):
            if ref in existing or ref in seen:
                continue
            seen.add(ref)
            terms = Counter(index_terms(text))
            length = sum(terms.values())
            row.version += 1
            doc = SearchDoc(scope=row, seq=row.version, ref=ref, length=length, keys=len(set(query_terms(text))),
                            vector=vectors[position] if vectors is not None else None)
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


def index_add(*, scope: ScopeRef, ref: str, text: str, vector=EMBED_HERE) -> bool:
    """Index one document; False when `ref` was already in the scope (idempotent).
    `vector`: its `passage_vectors` result (bytes or None); by default computed here."""
    vectors = EMBED_HERE if vector is EMBED_HERE else (None if vector is None else [vector])
    return index_add_many(scope=scope, items=[(ref, text)], vectors=vectors) == 1


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


REINDEX_BATCH = 100


@dataclass
class ReindexResult:
    reindexed: int = 0  # documents whose postings were rebuilt
    added: int = 0  # source rows that were missing from the index
    removed: int = 0  # index documents whose source row is gone
    embedded: int = 0  # documents that got a dense vector


def scope_reindex(*, scope: ScopeRef, items: list[tuple[str, str]], dense: bool, force: bool = False,
                  progress=lambda done: None) -> ReindexResult:
    """Bring one scope in line with its source rows (`items`: every (ref, text) it should hold).

    - postings are rebuilt when the scope was indexed under another ANALYZER_VERSION (or
      `force`), in batches, each one transaction (remove and re-add), keeping the vectors
      documents already have;
    - rows missing from the index are added, documents without a source row removed;
    - with `dense`, documents without a vector get one (one model call each, outside
      every transaction).

    Idempotent, and resumable: the scope is stamped only once all its batches are done,
    so an interrupted run redoes the scope it was in and skips the finished ones.
    `progress(n)` is told after each batch how many documents it handled.
    """
    result = ReindexResult()
    row, _ = SearchScope.objects.get_or_create(
        key=scope.key, defaults={"tenant_id": scope.tenant_id, "agent_id": scope.agent_id, "owner_id": scope.owner_id})
    stale = force or row.analyzer != ANALYZER_VERSION
    text_of = dict(items)
    indexed = set(SearchDoc.objects.filter(scope=row).values_list("ref", flat=True))
    gone = sorted(set(indexed) - set(text_of))
    if gone:
        result.removed = index_remove(scope_key=scope.key, refs=gone)
    refs = list(text_of)
    for start in range(0, len(refs), REINDEX_BATCH):
        batch = refs[start:start + REINDEX_BATCH]
        todo = batch if stale else [ref for ref in batch if ref not in indexed]
        if todo:
            kept = dict(SearchDoc.objects.filter(scope=row, ref__in=todo, vector__isnull=False)
                        .values_list("ref", "vector"))
            fresh = passage_vectors([text_of[ref] for ref in todo if ref not in kept], force=True) if dense else None
            fresh_of = dict(zip([ref for ref in todo if ref not in kept], fresh or []))
            vectors = [kept.get(ref) or fresh_of.get(ref) for ref in todo]
            result.embedded += len(fresh or [])
            with transaction.atomic():
                index_remove(scope_key=scope.key, refs=todo)
                index_add_many(scope=scope, items=[(ref, text_of[ref]) for ref in todo], vectors=vectors)
            result.reindexed += sum(ref in indexed for ref in todo)
            result.added += sum(ref not in indexed for ref in todo)
        if dense and not stale:
            missing = list(SearchDoc.objects.filter(scope=row, ref__in=batch, vector__isnull=True)
                           .values_list("id", "ref"))
            vectors = passage_vectors([text_of[ref] for _, ref in missing], force=True) if missing else None
            if vectors:
                with transaction.atomic():
                    store.save({doc_id: blob for (doc_id, _), blob in zip(missing, vectors)})
                    # Caches hold the old (empty) rows: they start over.
                    SearchScope.objects.filter(pk=row.pk).update(token=new_scope_token(), updated_at=timezone.now())
                result.embedded += len(vectors)
        progress(len(batch))
    SearchScope.objects.filter(pk=row.pk).update(analyzer=ANALYZER_VERSION)
    return result
