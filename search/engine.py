"""BM25 over the database postings, served from a small in-process cache per scope.

Scoring (Okapi BM25 with Lucene's non-negative idf, smoothed for young scopes):

    idf(t)      = ln(1 + (N + N0 - df + 0.5) / (df + 0.5))
    bm25(q, d)  = Σ_t∈q idf(t) · tf·(k1+1) / (tf + k1·(1 - b + b·|d|/avgdl))

with k1 = 1.2 (term frequency saturates fast: entries and chunks are short), b = 0.75
(the usual length normalisation), each distinct query term counted once, and N0 = 10
"background" pseudo-documents that contain none of the terms. Without N0 a teacher's
first few entries would make every term they share look worthless (df = N gives an
idf near 0); with 10,000 entries N0 changes nothing.

Scores are normalised to 0–1: a hit's BM25 divided by the query's score against itself
— the BM25 of an average-length document holding each query term as often as the query
does — capped at 1. So 1.0 means "contains everything the query asks about", and 0.2
means the entry carries about a fifth of the query's weight. Query terms no entry
contains still count in the denominator: a query mostly about things the history never
mentioned must not look relevant because of one shared word.

Why a cache: reading the postings of common bigrams (试卷, 数据) over 10,000 entries
costs tens of milliseconds per query. Each process keeps, per scope it has queried,
the document list and the postings of the terms it has been asked for (loaded lazily,
so memory follows the queries, not the corpus). Every query first reads the scope row
(one indexed lookup): a new `version` means documents were added, and only those are
loaded (O(new entries)); a new `token` means documents were removed, and that scope's
cache starts over. The database stays the only source of truth.
"""

import math
import threading
from array import array
from collections import Counter, OrderedDict
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from search.models import Posting, SearchDoc, SearchScope
from search.terms import query_terms

K1 = 1.2
B = 0.75
PRIOR_DOCS = 10  # N0

# More new documents than this since a cache last looked: drop its term postings and
# reload them lazily (cheaper than patching them in).
_PATCH_LIMIT = 256


@dataclass(frozen=True)
class Hit:
    ref: str
    score: float  # normalised, 0–1
    bm25: float


class _ScopeCache:
    def __init__(self, scope_id: int, token: str):
        self.scope_id = scope_id
        self.token = token
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.version = 0
        self.local: dict[int, int] = {}  # SearchDoc.id -> position
        self.refs: list[str] = []
        self.lengths = array("f")
        self.total_length = 0
        self.terms: dict[str, tuple[array, array]] = {}  # term -> (positions, tfs)
        self._norm = None

    # -- loading ------------------------------------------------------------------------
    def refresh(self, version: int) -> None:
        if version <= self.version:
            return
        rows = list(
            SearchDoc.objects.filter(scope_id=self.scope_id, seq__gt=self.version, seq__lte=version)
            .order_by("seq")
            .values_list("id", "ref", "length")
        )
        new_ids = []
        for doc_id, ref, length in rows:
            self.local[doc_id] = len(self.refs)
            self.refs.append(ref)
            self.lengths.append(length)
            self.total_length += length
            new_ids.append(doc_id)
        self._norm = None
        if self.terms and new_ids:
            if len(new_ids) > _PATCH_LIMIT:
                self.terms = {}
            else:
                postings = Posting.objects.filter(doc_id__in=new_ids).values_list("term", "doc_id", "tf")
                for term, doc_id, tf in postings:
                    entry = self.terms.get(term)
                    if entry is not None:
                        entry[0].append(self.local[doc_id])
                        entry[1].append(min(tf, 65535))
        self.version = version

    def ensure_terms(self, terms) -> None:
        missing = [t for t in terms if t not in self.terms]
        if not missing:
            return
        if len(self.terms) + len(missing) > settings.SEARCH_CACHE_MAX_TERMS:
            self.terms = {}
        for term in missing:
            self.terms[term] = (array("i"), array("H"))
        postings = Posting.objects.filter(scope_id=self.scope_id, term__in=missing).values_list("term", "doc_id", "tf")
        for term, doc_id, tf in postings:
            position = self.local.get(doc_id)
            if position is None:
                continue  # committed after the version this cache has seen: a later refresh adds it
            entry = self.terms[term]
            entry[0].append(position)
            entry[1].append(min(tf, 65535))

    # -- scoring ------------------------------------------------------------------------
    def _length_norm(self) -> np.ndarray:
        if self._norm is None:
            lengths = np.frombuffer(self.lengths, dtype=np.float32).astype(np.float64)
            self._norm = K1 * (1 - B + B * lengths / self.avgdl)
        return self._norm

    @property
    def avgdl(self) -> float:
        return (self.total_length / len(self.refs)) if self.refs else 1.0

    def idf(self, term: str) -> float:
        n = len(self.refs)
        df = len(self.terms[term][0])
        return math.log(1 + (n + PRIOR_DOCS - df + 0.5) / (df + 0.5))

    def scores(self, terms) -> np.ndarray:
        norm = self._length_norm()
        out = np.zeros(len(self.refs))
        for term in terms:
            positions, tfs = self.terms[term]
            if not positions:
                continue
            where = np.frombuffer(positions, dtype=np.int32)
            tf = np.frombuffer(tfs, dtype=np.uint16).astype(np.float64)
            out[where] += self.idf(term) * tf * (K1 + 1) / (tf + norm[where])
        return out

    def self_score(self, query_counts: Counter) -> float:
        """The query against itself: an average-length document with the query's terms."""
        return sum(self.idf(term) * tf * (K1 + 1) / (tf + K1) for term, tf in query_counts.items())


_caches: "OrderedDict[tuple[str, str], _ScopeCache]" = OrderedDict()
_caches_lock = threading.Lock()


def _cache_for(alias: str, key: str, scope_id: int, token: str) -> _ScopeCache:
    with _caches_lock:
        cache = _caches.get((alias, key))
        if cache is None or cache.token != token or cache.scope_id != scope_id:
            cache = _ScopeCache(scope_id, token)
            _caches[(alias, key)] = cache
        _caches.move_to_end((alias, key))
        while len(_caches) > settings.SEARCH_CACHE_SCOPES:
            _caches.popitem(last=False)
        return cache


def clear_cache() -> None:
    with _caches_lock:
        _caches.clear()


def search(*, scope_key: str, query: str, limit: int = 10, min_score: float = 0.0, dense=None) -> list[Hit]:
    """The best `limit` documents of one scope for `query`, normalised score > min_score,
    best first (newer first on ties)."""
    query_counts = Counter(query_terms(query))
    terms = list(query_counts)
    if not terms or limit <= 0:
        return []
    row = SearchScope.objects.filter(key=scope_key).values_list(
        "id", "token", "version", "doc_count", "total_length"
    ).first()
    if row is None or row[3] == 0:
        return []
    scope_id, token, version, doc_count, total_length = row
    cache = _cache_for(DEFAULT_DB_ALIAS, scope_key, scope_id, token)
    with cache.lock:
        cache.refresh(version)
        if cache.version == version and (len(cache.refs), cache.total_length) != (doc_count, total_length):
            cache.reset()  # never expected; if it happens, the database wins
            cache.refresh(version)
        cache.ensure_terms(terms)
        scores = cache.scores(terms)
        best = cache.self_score(query_counts)
        refs = cache.refs
    if best <= 0:
        return []
    candidates = np.flatnonzero(scores > min_score * best)
    # Ties go to the newer document (a higher position), also at the cut.
    rank = scores[candidates] + candidates * 1e-12
    if len(candidates) > limit:
        top = np.argpartition(-rank, limit - 1)[:limit]
        candidates, rank = candidates[top], rank[top]
    order = candidates[np.argsort(-rank, kind="stable")].tolist()
    hits = []
    for i in order:
        score = min(1.0, float(scores[i]) / best)
        if score <= min_score:
            continue
        hits.append(Hit(ref=refs[i], score=score, bm25=float(scores[i])))
    return hits


def warm_up() -> None:
    from search.terms import warm_up as terms_warm_up
    terms_warm_up()
