"""BM25 over the database postings, served from a small in-process cache per scope.

Scoring (Okapi BM25 with Lucene's non-negative idf, smoothed for young scopes):

    idf(t)      = ln(1 + (N + N0 - df + 0.5) / (df + 0.5))
    bm25(q, d)  = Σ_t∈q idf(t) · tf·(k1+1) / (tf + k1·(1 - b + b·|d|/avgdl))

with k1 = 1.2 (term frequency saturates fast: entries and chunks are short), b = 0.75
(the usual length normalisation), each distinct query term counted once, and N0 = 10
"background" pseudo-documents that contain none of the terms. Without N0 a teacher's
first few entries would make every term they share look worthless (df = N gives an
idf near 0); with 10,000 entries N0 changes nothing.

Hybrid retrieval: the lexical candidates (BM25) and, when dense retrieval is on, the
dense candidates (cosine of the query's vector with each entry's, search/vectors.py)
are fused by reciprocal rank, and each gets a calibrated relevance score: a probability
from a small logistic model over length-independent features (search/relevance.py).
That score, 0–1, is what `min_score` and the layers' gates compare with.

Why a cache: reading the postings of common bigrams (试卷, 数据) over 10,000 entries
costs tens of milliseconds per query. Each process keeps, per scope it has queried,
the document list and the postings of the terms it has been asked for (loaded lazily,
so memory follows the queries, not the corpus). Every query first reads the scope row
(one indexed lookup): a new `version` means documents were added, and only those are
loaded (O(new entries)); a new `token` means documents were removed (or re-indexed),
and that scope's cache starts over. The scope's vectors are one float32 matrix in the
same cache, loaded only when a dense search asks for them and extended with the new
documents' rows as versions move. The database stays the only source of truth.
"""

import math
import threading
from array import array
from collections import Counter, OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from core import sql
from search import relevance
from search.models import Posting, SearchDoc, SearchScope
from search.terms import query_terms, warm_up as terms_warm_up
from search.vectors import DIM, query_vector, store

K1 = 1.2
B = 0.75
PRIOR_DOCS = 10  # N0

# More new documents than this since a cache last looked: drop its term postings and
# reload them lazily (cheaper than patching them in).
_PATCH_LIMIT = 256
#: how many candidates each retriever contributes before fusion
CANDIDATES = 50


@dataclass(frozen=True)
class Hit:
    ref: str
    score: float  # calibrated probability of relevance, 0–1 (search/relevance.py)
    bm25: float
    cosine: float = 0.0


class _ScopeCache:
    def __init__(self, scope_id: int, token: str):
        self.scope_id = scope_id
        self.token = token
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.version = 0
        self.local: dict[int, int] = {}  # SearchDoc.id -> position
        self.ids: list[int] = []
        self.refs: list[str] = []
        self.position_of: dict[str, int] = {}
        self.lengths = array("f")
        self.keys = array("f")
        self._vectors: list[np.ndarray] = []  # blocks of rows, positions 0..len-1
        self._vector_rows = 0
        self._matrix = None
        self._has_vector = None
        self.total_length = 0
        self.terms: dict[str, tuple[array, array]] = {}  # term -> (positions, tfs)
        self._norm = None

    # -- loading ------------------------------------------------------------------------
    def refresh(self, version: int) -> None:
        if version <= self.version:
            return
        rows = sql.fetch(f'SELECT "id", "ref", "length", "keys" FROM "{SearchDoc._meta.db_table}" '
                         'WHERE "scope_id" = %s AND "seq" > %s AND "seq" <= %s ORDER BY "seq"',
                         [self.scope_id, self.version, version])
        new_ids = []
        for doc_id, ref, length, keys in rows:
            self.local[doc_id] = len(self.refs)
            self.ids.append(doc_id)
            self.position_of[ref] = len(self.refs)
            self.refs.append(ref)
            self.lengths.append(length)
            self.keys.append(keys or max(1.0, length / 2))  # 0: indexed before keys were counted
            self.total_length += length
            new_ids.append(doc_id)
        self._norm = None
        if self.terms and new_ids:
            if len(new_ids) > _PATCH_LIMIT:
                self.terms = {}
            else:
                postings = sql.fetch(f'SELECT "term", "doc_id", "tf" FROM "{Posting._meta.db_table}" '
                                     f'WHERE "doc_id" IN ({sql.placeholders(len(new_ids))})', new_ids)
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
        postings = sql.fetch(f'SELECT "term", "doc_id", "tf" FROM "{Posting._meta.db_table}" '
                             f'WHERE "scope_id" = %s AND "term" IN ({sql.placeholders(len(missing))})',
                             [self.scope_id, *missing])
        for term, doc_id, tf in postings:
            position = self.local.get(doc_id)
            if position is None:
                continue  # committed after the version this cache has seen: a later refresh adds it
            entry = self.terms[term]
            entry[0].append(position)
            entry[1].append(min(tf, 65535))

    def vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """(matrix n×DIM, has_vector mask): rows of documents without a vector are zero."""
        n = len(self.refs)
        if self._vector_rows < n:
            ids = self.ids[self._vector_rows:n]
            found = store.load(ids)
            block = np.zeros((len(ids), DIM), dtype=np.float32)
            for row, doc_id in enumerate(ids):
                vector = found.get(doc_id)
                if vector is not None:
                    norm = float(np.linalg.norm(vector))
                    block[row] = vector / norm if norm else 0
            self._vectors.append(block)
            self._vector_rows = n
            self._matrix = None
        if self._matrix is None:
            self._matrix = np.concatenate(self._vectors) if self._vectors else np.zeros((0, DIM), np.float32)
            self._vectors = [self._matrix]
            self._has_vector = self._matrix.any(axis=1)
        return self._matrix, self._has_vector

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

    def scores(self, terms) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(BM25, matched idf, matched term count) of every document."""
        norm = self._length_norm()
        n = len(self.refs)
        wheres, parts, idfs = [], [], []
        for term in terms:
            positions, tfs = self.terms[term]
            if not positions:
                continue
            where = np.frombuffer(positions, dtype=np.int32)
            tf = np.frombuffer(tfs, dtype=np.uint16).astype(np.float64)
            idf = self.idf(term)
            wheres.append(where)
            parts.append(idf * tf * (K1 + 1) / (tf + norm[where]))
            idfs.append(np.full(len(where), idf))
        if not wheres:
            return np.zeros(n), np.zeros(n), np.zeros(n)
        # One pass per sum over every term's postings (a document holds a term once), each
        # document's terms added in query order: the same sums as adding term by term.
        where = np.concatenate(wheres)
        return (np.bincount(where, weights=np.concatenate(parts), minlength=n),
                np.bincount(where, weights=np.concatenate(idfs), minlength=n),
                np.bincount(where, minlength=n).astype(np.float64))


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
    _distinct_query_terms.cache_clear()


@dataclass
class Candidates:
    """The fused candidates of one query, with the relevance features of each."""

    positions: np.ndarray
    refs: list
    bm25: np.ndarray
    cosine: np.ndarray
    lex_rank: np.ndarray  # -1: no lexical match
    dense_rank: np.ndarray | None  # None: dense off; -1: outside the dense candidates
    features: np.ndarray  # columns: relevance.FEATURES, or LEXICAL_FEATURES when dense is off
    dense: bool

    @property
    def probability(self) -> np.ndarray:
        """The relevance score that ranks the candidates."""
        return relevance.probability(self.features, dense=self.dense)

    @property
    def gate_score(self) -> np.ndarray:
        """The score the injection gate compares with its threshold. With dense on, the
        dense model judges a candidate partly by how much closer it is than the rest of
        the scope (cos_gap, cos_z): in a scope of near-identical memories (the same weekly
        task) nothing stands out, so the lexical model's word counts too. Dense retrieval
        can add a relevant memory, never hide one the words alone would pass."""
        if not self.dense:
            return self.probability
        lexical = relevance.probability(self.features[:, :len(relevance.LEXICAL_FEATURES)], dense=False)
        return np.maximum(self.probability, lexical)

    @property
    def fused(self) -> np.ndarray:
        return relevance.rrf(self.lex_rank, self.dense_rank)


def _ranks(values: np.ndarray, eligible: np.ndarray, top: int) -> np.ndarray:
    """Rank (0 = best) of the best `top` eligible positions by `values` (newer first on
    ties), -1 elsewhere."""
    ranks = np.full(len(values), -1, dtype=np.int64)
    where = np.flatnonzero(eligible)
    if not len(where):
        return ranks
    key = values[where] + where * 1e-12
    if len(where) > top:
        keep = np.argpartition(-key, top - 1)[:top]
        where, key = where[keep], key[keep]
    ranks[where[np.argsort(-key, kind="stable")]] = np.arange(len(where))
    return ranks


@lru_cache(maxsize=64)
def _distinct_query_terms(query: str) -> tuple[str, ...]:
    """A read searches recall and the knowledge base with the same query: segment it once
    (jieba is the costliest step of a lexical search). A pure function of the text."""
    return tuple(Counter(query_terms(query)))


def candidates(*, scope_key: str, query: str, dense: bool | None = None, top: int = CANDIDATES,
               exclude_refs=()) -> Candidates | None:
    """The union of the lexical and (when on) dense top `top` of one scope, with features.
    Documents in `exclude_refs` take no part (nor a rank: the ranks are features)."""
    terms = list(_distinct_query_terms(query))
    if not terms and not query.strip():
        return None
    rows = sql.fetch(f'SELECT "id", "token", "version", "doc_count", "total_length" '
                     f'FROM "{SearchScope._meta.db_table}" WHERE "key" = %s', [scope_key])
    if not rows or rows[0][3] == 0:
        return None
    scope_id, token, version, doc_count, total_length = rows[0]
    vector = query_vector(query, requested=dense)  # outside the cache lock: may take tens of ms
    cache = _cache_for(DEFAULT_DB_ALIAS, scope_key, scope_id, token)
    with cache.lock:
        cache.refresh(version)
        if cache.version == version and (len(cache.refs), cache.total_length) != (doc_count, total_length):
            cache.reset()  # never expected; if it happens, the database wins
            cache.refresh(version)
        cache.ensure_terms(terms)
        bm25, matched_idf, matched = cache.scores(terms)
        query_idf = sum(cache.idf(term) for term in terms)
        keys = np.frombuffer(cache.keys, dtype=np.float32).astype(np.float64)
        refs = cache.refs
        allowed = np.ones(len(refs), dtype=bool)
        for ref in exclude_refs:
            position = cache.position_of.get(ref)
            if position is not None:
                allowed[position] = False
        if vector is not None:
            matrix, has_vector = cache.vectors()
            cosine = matrix @ vector
            if not has_vector.any():
                vector = None
    lex_rank = _ranks(bm25, (bm25 > 0) & allowed, top)
    if vector is not None:
        dense_rank = _ranks(cosine, has_vector & allowed, top)
        picked = np.flatnonzero((lex_rank >= 0) | (dense_rank >= 0))
        spread = cosine[has_vector]
        mean, std = float(spread.mean()), float(spread.std()) or 1.0
        # A document without a vector (indexed while dense was off) is neither near nor far.
        cos = np.where(has_vector[picked], cosine[picked], mean).astype(np.float64)
    else:
        dense_rank = None
        picked = np.flatnonzero(lex_rank >= 0)
        cos = np.zeros(len(picked))
    q_cover = matched_idf[picked] / query_idf if query_idf > 0 else np.zeros(len(picked))
    d_cover = np.minimum(1.0, matched[picked] / np.maximum(1.0, keys[picked]))
    lr = lex_rank[picked]
    lex_rr = 1 / (1 + np.where(lr >= 0, lr, np.inf))
    if vector is not None:
        dr = dense_rank[picked]
        columns = [q_cover, d_cover, np.maximum(q_cover, d_cover), lex_rr, cos, cos - mean, (cos - mean) / std,
                   1 / (1 + np.where(dr >= 0, dr, np.inf))]
    else:
        columns = [q_cover, d_cover, np.maximum(q_cover, d_cover), lex_rr]
    return Candidates(
        positions=picked, refs=[refs[i] for i in picked], bm25=bm25[picked], cosine=cos, lex_rank=lr,
        dense_rank=dense_rank[picked] if vector is not None else None,
        features=np.column_stack(columns) if len(picked) else np.zeros((0, len(columns))), dense=vector is not None,
    )


def search(*, scope_key: str, query: str, limit: int = 10, min_score: float = 0.0,
           dense: bool | None = None, exclude_refs=()) -> list[Hit]:
    """The best `limit` documents of one scope for `query` whose relevance score is above
    `min_score`, best first: score, then fused rank, then the newer document.
    `dense` None follows the RECALL_DENSE setting; False searches lexically only."""
    if limit <= 0:
        return []
    found = candidates(scope_key=scope_key, query=query, dense=dense, exclude_refs=exclude_refs)
    if found is None or not len(found.positions):
        return []
    gate = found.gate_score
    order = np.lexsort((-found.positions, -found.fused, -found.probability))
    hits = []
    for i in order:
        if gate[i] <= min_score:
            continue
        hits.append(Hit(ref=found.refs[i], score=float(gate[i]), bm25=float(found.bm25[i]),
                        cosine=float(found.cosine[i])))
        if len(hits) == limit:
            break
    return hits


def warm_up() -> None:
    """Load the segmenter and (when dense retrieval is on) the embedding model now, not in
    a teacher's first request."""
    terms_warm_up()
    query_vector("预热")
