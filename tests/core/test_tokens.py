import socket

import pytest

from core import tokens


def test_counting_tokens_makes_no_network_call(monkeypatch):
    tokens._encoding.cache_clear()
    tokens._count_cached.cache_clear()

    def refuse(*args, **kwargs):
        raise AssertionError("token counting tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert tokens.count_tokens("出一份数据结构试卷, please") > 0
    assert tokens.encoding() is not None, "the offline encoding must load"


def test_the_offline_encoding_matches_cl100k_counts():
    # "hello world" is two tokens in cl100k_base.
    assert tokens.count_tokens("hello world") == 2


@pytest.mark.parametrize("text", ["二叉树" * 500, "binary tree " * 500, "混合 mixed 文本 text " * 300])
@pytest.mark.parametrize("limit", [1, 7, 100])
def test_truncation_respects_the_limit_at_token_boundaries(text, limit):
    cut = tokens.truncate_tokens(text, limit)
    assert tokens.count_tokens(cut) <= limit
    assert "\ufffd" not in cut


def test_a_text_within_the_limit_is_unchanged():
    assert tokens.truncate_tokens("简答题换两道", 100) == "简答题换两道"


def test_the_estimate_counts_cjk_denser_than_latin():
    assert tokens.estimate_tokens("二叉树遍历") == 5
    assert tokens.estimate_tokens("abcdefgh") == 2
