"""The extraction answer is read tolerantly; only what cannot be read is None."""

import pytest

from corememory.extraction import ProposedFact, parse_facts


@pytest.mark.parametrize("answer", [
    "NONE", "none", "None.", "NONE\n", "无", "无。", "没有", "“NONE”", "```\nNONE\n```", "[]", "```json\n[]\n```",
    "没有值得长期记住的内容。", "None of this is worth remembering.", '["NONE"]', "Nothing.",
])
def test_none_in_any_case_and_language_means_nothing_to_keep(answer):
    assert parse_facts(answer) == []


def test_a_json_list_of_facts_is_read_with_its_confidences():
    answer = '[{"fact": "教高二", "confidence": 0.9}, {"fact": "出题偏好选择题多一些", "confidence": 0.8}]'
    assert parse_facts(answer) == [ProposedFact("教高二", 0.9), ProposedFact("出题偏好选择题多一些", 0.8)]


def test_a_list_inside_a_code_fence_with_prose_around_it_is_read():
    answer = 'Sure! Here is what I found:\n```json\n[{"fact": "Teaches grade 11", "confidence": "85%"}]\n```\nHope it helps.'
    assert parse_facts(answer) == [ProposedFact("Teaches grade 11", 0.85)]


def test_prose_around_bare_json_is_tolerated():
    answer = '好的，结果如下：[{"fact": "每周三上实验课", "confidence": 0.7},] 以上。'
    assert parse_facts(answer) == [ProposedFact("每周三上实验课", 0.7)]


def test_an_object_with_a_facts_key_and_plain_strings_are_read():
    assert parse_facts('{"facts": ["喜欢用二叉树做例题"]}') == [ProposedFact("喜欢用二叉树做例题", 0.5)]


def test_a_bulleted_list_is_read_with_a_default_confidence():
    assert parse_facts("- 教高二\n- 出题偏好选择题多一些") == [
        ProposedFact("教高二", 0.5), ProposedFact("出题偏好选择题多一些", 0.5)]


def test_a_bad_confidence_falls_back_and_an_out_of_range_one_is_clamped():
    facts = parse_facts('[{"fact": "a", "confidence": "high"}, {"fact": "b", "confidence": 7}, {"fact": "c", "confidence": -1}]')
    assert [f.confidence for f in facts] == [0.5, 0.07, 0.0]


@pytest.mark.parametrize("answer", ["", "I think the teacher is nice", '{"foo": 1}', "[1, 2, 3]", None])
def test_an_answer_that_cannot_be_read_is_none(answer):
    assert parse_facts(answer) is None
