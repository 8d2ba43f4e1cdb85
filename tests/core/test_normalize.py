"""core.normalize: one canonical fold for matching. Each row is one trick an attacker (or
a careless paste) uses; the second table is ordinary text that must keep its meaning."""

import pytest

from core import normalize as normalize_module
from core.normalize import normalize, to_simplified

FOLDED = [
    # (what it shows, raw text, normalized)
    ("full-width digits", "１３８１２３４５６７８", "13812345678"),
    ("zero-width space between digits", "138\u200b1234\u200b5678", "13812345678"),
    ("tag characters between digits", "138\U000e00311234\U000e007f5678", "13812345678"),
    ("word joiner and soft hyphen", "138\u20601234\u00ad5678", "13812345678"),
    ("bidi override", "\u202e138\u202c12345678", "13812345678"),
    ("variation selectors", "1\ufe0f3\ufe0e8\U000e0100", "138"),
    ("combining marks", "s\u0336y\u0301s\u20dftem", "system"),
    ("Arabic-Indic digits", "١٣٨١٢٣٤٥٦٧٨", "13812345678"),
    ("extended Arabic-Indic digits", "۱۳۸", "138"),
    ("Devanagari digits", "१३८१२३४५६७८", "13812345678"),
    ("Bengali digits", "১৩৮", "138"),
    ("Thai digits", "๑๓๘", "138"),
    ("mathematical digits", "𝟏𝟑𝟖", "138"),
    ("dingbat negative circled digits", "❶❸❽", "138"),
    ("circled digits", "①③⑧", "138"),
    ("parenthesized and full-stop digits", "⑴⒊", "(1)3."),
    ("大写 numerals", "壹叁捌壹贰叁肆伍陆柒捌", "13812345678"),
    ("traditional 大写", "壹參捌貳", "1382"),
    ("Chinese digit by digit", "一三八一二三四五六七八", "13812345678"),
    ("〇 in a year", "二〇二四年", "2024年"),
    ("幺 for one", "幺三八", "138"),
    ("mixed scripts", "1三8一2三4五6七8", "13812345678"),
    ("positional Chinese number", "考了九十二分", "考了92分"),
    ("hundreds with 零", "一百零五", "105"),
    ("ten to nineteen", "十一", "11"),
    ("HTML decimal entities", "&#49;&#51;&#56;", "138"),
    ("HTML hex entities", "&#x31;&#x33;&#x38;", "138"),
    ("HTML entities escaped twice", "&amp;#49;&amp;#51;8", "138"),
    ("named entity", "A&nbsp;D", "a d"),
    ("pairs split by dashes", "138-12-34-56-78", "13812345678"),
    ("pairs split by spaces", "11 01 05 19 49 12 31 00 21", "110105194912310021"),
    ("digits split by dots", "1.3.8.1.2.3.4.5.6.7.8", "13812345678"),
    ("groups of four", "6222 0212 3456 7890", "6222021234567890"),
    ("area code in parentheses", "(138) 1234-5678", "(13812345678"),
    ("emoji between groups", "138🔸1234🔸5678", "13812345678"),
    ("keycap digits", "1\ufe0f\u20e33\ufe0f\u20e38\ufe0f\u20e3", "138"),
    ("letters for digits", "138l2345678", "13812345678"),
    ("many letters for digits", "l7964l8OlO6", "17964180106"),
    ("a word of those letters stays", "lollipop 100", "lollipop 100"),
    ("a letter dropped into a number", "13a8 1234 5678", "13812345678"),
    ("Chinese digits in groups", "一三八 一二三四 五六七八", "13812345678"),
    ("English digit words", "one three eight one two three four five six seven eight", "13812345678"),
    ("digit groups between digit words", "13 five 25 seven 64 zero 83", "13525764083"),
    ("double and oh", "one three eight double one oh two", "1 3 8 11 0 2"),
    ("pinyin digit words", "dianhua yao san ba, yi er san si wu liu qi ba", "dianhua 13812345678"),
    ("pinyin digits with an identity number's x", "sfz ling yi er san si wu liu qi ba jiu x", "sfz 0123456789x"),
    ("English tens", "scored ninety-two", "scored 92"),
    ("number words misspelled", "ninty-two, fourty, ninteen percent", "92, 40, 19 percent"),
    ("digits spelled as they sound", "zeero sevin nien double wun", "0 7 9 11"),
    ("digits typed as heard", "zeroh sevn ait tree fyve sicks", "0 7 8 3 5 6"),
    ("double and triple with hyphens", "four-five-three-nine, triple-oh-one, double-two", "4539000122"),
    ("words that sound like digits stay words", "4111 1111, for the sheet; one too many", "4111 1111, for the sheet; one too many"),
    ("a number read out as heard", "oh won too won, for five tree, seven tree ate ate", "01214537388"),
    ("heard groups joined by then", "seven oh three; then five too ate; then won won six tree", "7035281163"),
    ("one heard word between digits", "oh seven nine five six, too oh three", "0 7 9 5 6 2 0 3"),
    ("heard words that make no number stay words", "I ate two, too, for one of them", "i ate two, too, for one of them"),
    ("hundreds", "seventy-seven hundred pupils, two hundred and five staff", "7700 pupils, 205 staff"),
    ("capitals for digits in groups", "(6O4) SSS-OlBB", "(6045550188"),
    ("capitals for digits in a card", "4S59 SlOO 3B27 l644", "4559510038271644"),
    ("an abbreviation stays", "GCSE 2024, BIOS 10", "gcse 2024, bios 10"),
    ("one letter between every two digits", "0x7x8x6x6x0x3x1x4x7x2", "07866031472"),
    ("Suzhou numerals", "〡〨〇〤〥〧〇〢〨〦〩", "18045702869"),
    ("a filler character between every two", "邓啊子啊轩啊数啊学啊不啊及啊格", "邓子轩数学不及格"),
    ("English teens", "got fifteen", "got 15"),
    ("spelled letters", "A.D.H.D.", "adhd"),
    ("spelled letters with spaces", "A D H D", "adhd"),
    ("a sentence spaced out, words two spaces apart", "T o m  g o t  a n  F  i n  m a t h s", "tom got an f in maths"),
    ("Cyrillic look-alikes", "Ѕуѕtеm", "system"),
    ("Greek look-alikes", "Αdmin ΟΚ", "admin ok"),
    ("mathematical bold", "𝐒𝐲𝐬𝐭𝐞𝐦", "system"),
    ("traditional characters", "張三數學92分，抑鬱症", "张三数学92分,抑郁症"),
    ("pinyin tone marks", "yìyùzhèng", "yiyuzheng"),
    ("upper case", "GPA", "gpa"),
    ("ideographic space", "数学\u3000九十", "数学90"),
    ("Chinese written apart", "数 学 九 十 二 分", "数学92分"),
    ("Chinese spelled with dashes", "抑-郁-症", "抑郁症"),
    ("Chinese spelled with a reference mark", "不※及※格", "不及格"),
    ("Chinese spelled with at signs", "抑@郁@症", "抑郁症"),
    ("a regional indicator letter", "体测 🇩 等", "体测 d 等"),
    ("negative squared and circled letters", "数学🅱+ 🅓", "数学b+ d"),
    ("pinyin tone numbers", "yi4yu4zheng4", "yiyuzheng"),
    ("digits for letters", "d1ab3tes", "diabetes"),
    ("braille blank and Hangul filler", "Sys\u2800tem\u3164", "system"),
    ("an emoji inside a Chinese word", "宿舍自😢伤", "宿舍自伤"),
    ("a star inside a Chinese word", "抑*郁症", "抑郁症"),
    ("an emoji inside an English word", "dep🙁ression", "depression"),
    ("a hash inside an English word", "adh#d", "adhd"),
    ("bold marks around a Chinese word", "数学**不及格**了", "数学不及格了"),
    ("small capitals", "ᴜɴɢʀᴀᴅᴇᴅ", "ungraded"),
    ("a mark in pinyin numerals", "qi mo yi bai yi shi er fen", "qi mo 112分"),
    ("a rank in homophones", "年纪弟三, 排名递二", "年级第三, 排名第二"),
    ("ordinal words in a ranking", "came twenty-ninth out of thirty, fourth in the class", "came 29th out of 30, 4th in the class"),
    ("letters for digits in groups", "mob. O7823 O469O1", "mob. 07823 046901"),
    ("keycap ten", "2\ufe0f\u20e3/\U0001f51f", "2/10"),
]

KEPT = [
    # Ordinary text whose numbers and words must keep their meaning.
    ("names with a numeral", "张三和李四", "张三和李四"),
    ("ordinals and ranks of one character", "第三名,第二节课,年级前十", "第三名,第二节课,年级前十"),
    ("十分 means very", "他十分努力", "他十分努力"),
    ("words that contain 大写", "队伍、大陆、收拾", "队伍、大陆、收拾"),
    ("words that start with 万 or 千", "万一、千万", "万一、千万"),
    ("a class next to its grade", "高一3班", "高一3班"),
    ("a date and a time", "2023.10.15 13:45", "2023.10.15 13:45"),
    ("two dates", "2023-10-15 至 2023-10-20", "2023-10-15 至 2023-10-20"),
    ("a list of question numbers", "题号 1-3-5-7-9-11-13-15", "题号 1-3-5-7-9-11-13-15"),
    ("counting to ten", "1 2 3 4 5 6 7 8 9 10", "1 2 3 4 5 6 7 8 9 10"),
    ("a decimal", "3.14", "3.14"),
    ("a list with Chinese commas", "一、二、三", "一、二、三"),
    ("a list with semicolons", "甲；乙；丙", "甲;乙;丙"),
    ("subjects with slashes", "语文/数学/英语", "语文/数学/英语"),
    ("a flag", "🇨🇳 国庆", "cn 国庆"),
    ("codes with a digit", "mp3 h2o co2", "mp3 h2o co2"),
    ("a short code with a letter", "2024a0001", "2024a0001"),
    ("A-level and B tree", "A-level B tree", "a-level b tree"),
    ("lesson text", "第3章 满分100分的试卷 90分钟", "第3章满分100分的试卷 90分钟"),
    ("a digit-only run stays digits", "1, 2, 3", "1, 2, 3"),
    ("a word with l and o is not a number", "lollipop 1234567", "lollipop 1234567"),
    ("times side by side", "10:30-11:45 12:30-13:45", "10:30-11:45 12:30-13:45"),
    ("answer options two spaces apart", "选 A  B  C  D", "选 a  b  c  d"),
    ("a short spaced list", "a b  c d", "a b  c d"),
    ("ordinary pinyin with digit syllables", "wo men yi qi qu ba, ni shi er ba", "wo men yi qi qu ba, ni shi er ba"),
    ("a name's middle dot", "哈利·波特", "哈利·波特"),
    ("a younger brother's age", "弟弟三岁, 我弟三年级", "弟弟三岁, 我弟三年级"),
    ("ordinals that are no ranking", "the first lesson, bubble sort came in third place",
     "the first lesson, bubble sort came in third place"),
    ("words of o, l and i in groups", "lol oil lilo 2024", "lol oil lilo 2024"),
    ("one pinyin numeral before fen", "yi fen shijuan", "yi fen shijuan"),
    ("a hyphenated word", "ice-cream, rock-n-roll", "ice-cream, rock-n-roll"),
    ("an emoji between words", "今天 😊 开心", "今天 😊 开心"),
    ("arithmetic and C#", "3*4=12, a+b, C# 编程", "3*4=12, a+b, c# 编程"),
    ("empty", "", ""),
]


@pytest.mark.parametrize(("raw", "expected"), [(r, e) for _, r, e in FOLDED], ids=[n for n, _, _ in FOLDED])
def test_each_disguise_folds_to_what_a_reader_sees(raw, expected):
    assert normalize(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [(r, e) for _, r, e in KEPT], ids=[n for n, _, _ in KEPT])
def test_ordinary_text_keeps_its_meaning(raw, expected):
    assert normalize(raw) == expected


def test_normalizing_twice_changes_nothing_more():
    for _, raw, _ in FOLDED + KEPT:
        once = normalize(raw)
        assert normalize(once) == once, raw


def test_entity_decoding_is_bounded():
    deep = "&" + "amp;" * 50 + "#49;"
    assert len(normalize(deep)) > 1  # stops after a few rounds instead of decoding forever


def test_to_simplified_folds_traditional_and_leaves_the_rest():
    assert to_simplified("學生的數學成績") == "学生的数学成绩"
    assert to_simplified("Grade 10 物理") == "Grade 10 物理"
    assert to_simplified("") == ""


# --- disguised(): text written to slip past a filter ---------------------------------------

@pytest.mark.parametrize("text", [
    "周可心有\u200b哮喘", "手机 1\U000E00213800138000", "数学 \u0669\u0662 分", "考了❾❷分", "grаde F (Cyrillic а)",
    "diagnosed with &#65;DHD", "she has A.D.H.D", "E m m a  g o t  a n  F", "he has d3pr3ss10n",
    "ta you yi4yu4zheng4", "抑\u0301郁症", "期中年纪弟三", "体测 🇩 等", "数学🅱+",
])
def test_a_disguise_is_seen(text):
    assert normalize_module.disguised(text)


@pytest.mark.parametrize("text", [
    "帮我出一份数据结构试卷，简答题换两道", "張老師說期中考試延後一週", "第１题和第２题的答案对调",
    "选择题的选项 A B C D 顺序打乱", "Use e.g. and i.e. correctly in the essay", "Café culture in Year 9 French",
    "我弟三年级了", "年纪大了记性差", "🇬🇧 exchange trip 🇨🇳",
    "The H1N1 flu unit for biology", "Rock & roll history & culture lesson", "mp3 files for the listening test",
    "",
])
def test_ordinary_text_is_not_disguised(text):
    assert not normalize_module.disguised(text)


@pytest.mark.timeout(15)  # a hang guard, not a speed figure: the heard-run pattern took ~290 s on a run of digits
@pytest.mark.parametrize("text", ["1" * 100_000, "1o" * 50_000, "won too " * 20_000, "S4ZS " * 20_000,
                                  "1x" * 50_000, "12 for 34 " * 10_000])
def test_a_long_run_normalizes_without_backtracking(text):
    assert normalize(text)
