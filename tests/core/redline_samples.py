"""The red-line table: sensitive samples that must all be blocked, with the kind the
filter must name, and benign teaching facts that must all pass.

Identity numbers are generated here with an independent implementation of the
GB 11643 check digit, so the test does not trust the code it tests.
"""

import random


def _check_digit(first17: str) -> str:
    weights = [2 ** (17 - i) % 11 for i in range(17)]
    remainder = sum(int(d) * w for d, w in zip(first17, weights)) % 11
    return "10X98765432"[remainder]


def _luhn_complete(partial: str) -> str:
    for last in "0123456789":
        digits = [int(c) for c in partial + last]
        total = 0
        for i, d in enumerate(reversed(digits)):
            if i % 2:
                d = d * 2 - 9 if d * 2 > 9 else d * 2
            total += d
        if total % 10 == 0:
            return partial + last
    raise AssertionError("unreachable")


def generated_id_numbers(count: int = 6, seed: int = 11643) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        region = rng.choice(["110105", "310104", "440305", "510107", "330106", "420111"])
        birth = f"{rng.randint(1960, 2012)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
        first17 = region + birth + f"{rng.randint(0, 999):03d}"
        number = first17 + _check_digit(first17)
        if number not in out:
            out.append(number)
    # Make sure at least one ends in X, the case people forget.
    for n in range(1000):
        first17 = f"110105198803{(n % 28) + 1:02d}{n:03d}"[:17]
        if _check_digit(first17) == "X":
            out.append(first17 + "X")
            break
    return out


_IDS = generated_id_numbers()

SENSITIVE: list[tuple[str, str]] = [
    # Ritalin and Strattera by their Hong Kong / brand names, prison in slang
    ("陳家豪有過動，早上在家食咗『利他能』", "health"),
    ("Maya started Strattera last month", "health"),
    ("罗宇航的爸爸进去“踩缝纫机”了，要三年后才出来", "family"),
    ("他舅舅还在吃牢饭", "family"),
    ("Ravi's parents are splitting up and he's in bits", "family"),
    ("Ella has a social worker and is on a child protection plan", "family"),
    ("the Okafors were evicted last week and are sofa-surfing", "family"),
    ("阎博文脑震荡了，这两周少看屏幕", "health"),
    ("Mrs Dunn's back has gone again and the physio says no standing", "health"),
    # another country's identity number, a bank account, a number read out as heard or in parts
    ("Tyler's SSN is 512-44-9083", "id_number"),
    ("NI: NH\u200b58\u200b33\u200b90\u200bC for the work experience form", "id_number"),
    ("PTA refunds: Karen Doyle, account 41829375, sort code 20-45-77", "bank_card"),
    ("Refund to IBAN DE44 5001 0517 5407 3249 31", "bank_card"),
    ("Granny's landline: oh won too won, for five tree, seven tree ate ate", "phone"),
    ("area code 617, exchange 555, and his mum's line ends 0199", "phone"),
    # identity numbers (generated, checksummed), in sentences and spaced out
    (f"学生张三的身份证号是{_IDS[0]}", "id_number"),
    (f"身份证：{_IDS[1]}，请登记", "id_number"),
    (f"ID number {_IDS[2]} for the exam registration", "id_number"),
    (f"证件号 {_IDS[3][:6]} {_IDS[3][6:14]} {_IDS[3][14:]}", "id_number"),
    (f"家长身份证号码{_IDS[4]}", "id_number"),
    (f"报名用的身份证 {_IDS[-1]}", "id_number"),
    (f"证件号{_IDS[-1].lower()}", "id_number"),
    ("GB 11643 的标准示例 11010519491231002X 也算", "id_number"),
    ("老身份证号 110105491231002", "id_number"),
    # phone numbers
    ("家长电话13812345678", "phone"),
    ("班主任手机 139 1234 5678，有事找他", "phone"),
    ("联系方式：+86 158-1234-5678", "phone"),
    ("Call the parent at +86 186 0000 1234", "phone"),
    ("学生妈妈的号码是15012345678", "phone"),
    ("王老师家里座机 010-62345678", "phone"),
    # bank cards (Luhn-valid)
    (f"学费打到卡号{_luhn_complete('622202123456789012')}", "bank_card"),
    (f"银行卡 {_luhn_complete('621700001234567')[:4]} {_luhn_complete('621700001234567')[4:8]} "
     f"{_luhn_complete('621700001234567')[8:12]} {_luhn_complete('621700001234567')[12:]}", "bank_card"),
    (f"card number {_luhn_complete('411111111111111')}", "bank_card"),
    # scores and rankings, Chinese
    ("小明期中考了85分", "score"),
    ("李华数学92", "score"),
    ("王芳语文考了 88 分", "score"),
    ("她英语成绩76", "score"),
    ("张伟物理期末 59", "score"),
    ("这次月考排名第3", "score"),
    ("他是年级第3名", "score"),
    ("小红考了全班第一名", "score"),
    ("进了年级前十名", "score"),
    ("他在班里排倒数第二", "score"),
    ("赵磊这次数学不及格", "score"),
    ("期末考试只考了59", "score"),
    ("拿了满分的是刘洋", "score"),
    ("总分620，能上重点", "score"),
    ("王同学平均分78.5", "score"),
    ("绩点3.5", "score"),
    ("化学得了3分", "score"),
    ("年级排名 15", "score"),
    # scores and rankings, English
    ("Tom scored 85 on the midterm", "score"),
    ("Her GPA is 3.7", "score"),
    ("Amy got 92% on the final", "score"),
    ("Jack got a C in math", "score"),
    ("He ranked 3rd in the class", "score"),
    ("She came 2nd in her year", "score"),
    ("test score of 64", "score"),
    ("Lily got 85/100 in the quiz", "score"),
    ("Ben failed the physics exam", "score"),
    ("in the top 5 of the class", "score"),
    # health conditions
    ("学生小李有抑郁症", "health"),
    ("王同学患有哮喘，体育课要注意", "health"),
    ("陈同学有多动症", "health"),
    ("她 有 癫 痫", "health"),
    ("小周对花生过敏", "health"),
    ("那个孩子是自闭症", "health"),
    ("He has ADHD and needs extra time", "health"),
    ("Sara is diabetic", "health"),
    ("one student has epilepsy", "health"),
    ("a dyslexic boy in period 2", "health"),
    ("her depression got worse this term", "health"),
    ("a pupil with AIDS", "health"),
    # family circumstances
    ("小王父母离异，跟奶奶住", "family"),
    ("班上有三个留守儿童", "family"),
    ("他家是低保户", "family"),
    ("Mia's parents are divorced", "family"),
    ("He lives in foster care", "family"),
    ("贺子涵申请了国家助学金，材料周五前交给年级组", "family"),
    ("Bella gets the hardship bursary this year", "family"),
    ("Noah is on free lunch, so the trip is paid for", "family"),
    # "notified", not a notice; a name followed by a day
    ("韩东前天在宿舍自伤，已通知家长", "health"),
    ("周敏昨天发烧住院了，我通知了她妈妈", "health"),
    # a symbol dropped inside the word
    ("林晓抑*郁症复发了", "health"),
    ("Tom's dep🙁ression is back", "health"),
    # a rank in an exam is a score even where a competition is mentioned; in homophones too
    ("郑博文期末考试年纪第五，可以报竞赛", "score"),
    ("Oscar Hale, physics mock: FAIL", "score"),
    ("Priya Shah gets FSM, please keep it off the trip list", "family"),
    ("Dmitri's parents are undocumented, so keep their address off the trip form", "family"),
    # a value in parts, a mark in a table of pupils, marks after a name
    ('学籍 {"name":"许文","sfz_1":"440306200803","sfz_2":"151236"}', "id_number"),
    ("card for the refund: 6228 4800 / then / 1234 5671", "bank_card"),
    ("| 姓名 | 数学 |\n|---|---|\n| 周小川 | 41 |", "score"),
    ("Name\tMaths\nTom Li\t38", "score"),
    ("Marks for Evie Cole: Eng 42, Maths 39", "score"),
    ("Noah came twenty-eighth out of thirty in the mock", "score"),
    ("Ella Ward's dad is in HMP Leeds", "family"),
    ("Kit's father is detained at His Majesty's pleasure until 2027", "family"),
    ("黃俊傑老豆坐緊監，而家寄住喺姨媽度", "family"),
    ("Lucas Moreau has cystic fibrosis and needs Creon before lunch", "health"),
    ("Ruby Lane was diagnosed with POTS and may faint in assembly", "health"),
    ("王小雨有乳糜泻，午餐要无麸质", "health"),
    ("Ellis has a cochlear implant, so keep him away from the Van de Graaff demo", "health"),
    ("Mrs Hughes has early-onset Parkinson's and has asked us not to tell the kids", "health"),
    ("王梓轩的外婆是老年痴呆，周末由他照顾", "health"),
    # a test's reading part is no story (阅读理解), nor is 语文 中 the 文中 of a passage
    ("王子涵这次语文阅读理解只得了12分（满分30）", "score"),
    ("韩思雨：英语 优，数学 良，语文 中。", "score"),
    # a request for a lesson with a pupil named in passing, by an initial
    ("Write a quick lesson plan on the Tudors. Oh and Noah R. will miss Tuesday because of a Crohn's flare-up", "health"),
    ("Kevin told me his stepdad hits him when he's drunk", "family"),
    # a medicine misspelt after "takes" / "on", and medicines the list lacked
    ("Henry takes Prozak", "health"), ("Mia is on sertaline now", "health"),
    ("Leo has been on Keppra since the seizure in May", "health"), ("刘一诺每天吃丙戊酸钠", "health"),
    ("Liam band 5 in writing", "score"),
    ("uncles = {'Sam Reid': '+1 (312) 555-0188'}", "phone"),
    # an exported record of a pupil: the keys join words, a URL escapes its query
    ('{"pupil": "Harry Cole", "spring_grade": "E", "target_grade": "C"}', "score"),
    ("https://sis.example.org/cj?name=%E5%BC%A0%E4%BC%9F&math_score=38", "score"),
    ("student: Amy Lee\nyoung_carer: true\ncares_for: father", "family"),
    # a comma-separated table of pupils; a caption with a comma does not hide the table under it
    ("Pupil,Carer,Mobile\nTom Hale,Ann Hale,07700 900321", "phone"),
    ("考号,姓名,物理,等级\nB0101,韩立,51,D", "score"),
    ("Year 9 results, spring term\n| name | maths |\n|---|---|\n| Ava Lee | 31 |", "score"),
    # columns named by their pinyin initials (xm 姓名, sx 数学, pm 排名), as school systems export them
    ("https://cj.example.cn/q?xm=%E5%BC%A0%E6%95%8F&bj=702&sx=43&pm=38", "score"),
    ("xm\tsx\tyw\n王磊\t38\t52", "score"),
    # a long note in one row does not end the table; a '|' inside a tab-separated cell neither
    ("Pupil,Carer,Mobile,Note\nAmy Lee,Bo Lee,07700 900111,prefers text messages after six\n"
     "Tom Hale,Ann Hale,07700 900321,ok", "phone"),
    ("Pupil\tCarer\tMobile\nAmy|Lee|x\tBo\t1\nTom Hale\tAnn Hale\t07700 900321", "phone"),
    ('{"pupil_name": "Amy Lee", "target_grade": "E"}', "score"),
    # a Chinese table split by tabs or full-width commas (normalize() joins Chinese across them)
    ("姓名\t数学\n张三\t38", "score"),
    ("学生，英语\n卢梓涵，48", "score"),
]

BENIGN: list[str] = [
    "Genetics revision: a Punnett square question on how cystic fibrosis is inherited",
    "The heart's pacemaker cells sit in the sinoatrial node",
    "pots and pans for the food tech room",
    "Parkinson's law: work expands to fill the time available for it",
    "We start meditation on Monday", "Tom takes Spanish and French", "Grace is on prefect duty",
    "孙浩然获得校运会100米第一名",
    "Please draft a letter telling parents the school office number has changed to 020 7946 0123",
    "阅读题里的小明考试没及格，回家不敢告诉妈妈，请帮我针对这段设计三个问题。",
    "Write a reading passage about a girl whose grandfather has Alzheimer's, for Year 5",
    "张晨曦这周的周记写了她养的小猫，写得很生动，帮我写个批语。",
    "Can you explain the difference between SEN Support and an EHCP for a new teaching assistant?",
    "期中考试11月12日",
    "传达室电话 021-64731288",
    "For absences, parents should call the attendance line on 020 7946 0018 before 9am",
    # near the new terms and number rules
    "有什么提高学生课堂专注力的小游戏？",
    "体检当天早上需要空腹，请提醒孩子不要吃早饭",
    "Parents with questions can call the main office at (212) 555-0100 during school hours",
    "Quiz: which is the valid format for a Social Security number, 123-45-6789 or 12-345-6789?",
    "We won 3 to 1, and for 2 weeks we were top",
    "Bruno wants to be a physio, can the careers adviser see him",
    "The response lists evicted facts and the cache's eviction policy",
    "Priya's mum is an ICU nurse on nights",
    # records of no one: settings, a search, a class's statistics
    '{"font_size": 12, "line_height": 1.5, "page_count": 3}',
    "https://example.com/search?q=grade+boundaries&sort_by=date",
    '{"question_id": 4, "max_score": 10, "topic": "fractions"}',
    "pass_mark = 40  # the boundary for a pass",
    '{"class_average": 71.5, "pass_rate": "86%", "top_grade": "A*"}',
    "?subject=maths&year_group=9&page=2",
    "Group,Task\n1,posters\n2,quiz",
    "姓名,座位\n王可,3排2座\n李想,3排3座",
    "Score band,Pupils\n90-100,5\n60-69,3",
    "https://example.cn/list?pm=2&page=3&sort=time",
    "xm\tzw\n王可\t3排2座\n李想\t3排3座",
    "姓名\t座位\n王可\t3排2座\n李想\t3排3座",
    # a thing's name is no person's: task name, unit_name, school_name, course_name
    "Task name,Marks\nQ1,5\nQ2,10",
    "| Task name | Marks |\n|---|---|\n| Q1 | 5 |",
    "unit_name: Fractions\ntarget_grade: 6",
    '{"school_name": "Oak Academy", "average_grade": "B"}',
    "https://example.com/course?course_name=algebra&min_grade=C",
    "| 分数段 | 人数 |\n|---|---|\n| 90-100 | 5 |\n| 60以下 | 3 |",
    "| Grade | Boundary |\n|---|---|\n| A | 80 |\n| B | 70 |",
    "Question\tMarks\n1\t5\n2\t10",
    "会议 2024-09-01 13:45, 教室 3012, 电话分机 4567",
    "marks for spelling: 10 words a week",
    "ISBN 978-7-111-54742-6, pages 123-456",
    "Draw the FSM for this regex",
    "数学竞赛年级第三名的奖励怎么发？",
    "写一份流感高发季节的通知，提醒家长注意孩子体温",
    "给家长的通知：下周一进行视力筛查",
    # A class's average is the class's result, nobody's score (issue 9: "a named student's scores").
    "班级平均分78.5",
    "班级有45人",
    "每周三上实验课",
    "喜欢用二叉树做例题",
    "出题偏好选择题多一些",
    "教高二",
    "用第3章的例题",
    "我教高二数学",
    "一节课45分钟",
    "试卷满分150分",
    "选择题每题5分，共60分",
    "卷面总分120分",
    "每次作业10道题",
    "数学课每周5节",
    "喜欢在第2节课讲新课",
    "教数学20年了",
    "数学3班和5班",
    "安排第3周复习",
    "倒数第二节课是自习",
    "用诊断性测验了解学生起点",
    "偏好用 Python 3.11 讲编程",
    "2024年秋季学期开始用新教材",
    "办公室在3楼302室",
    "实验报告要写1500字",
    "试卷分A卷和B卷",
    "喜欢让学生排队回答问题",
    "讲数据结构时先讲链表再讲树",
    "喜欢出开放性的简答题",
    "每单元结束后做一次小测",
    "用1/4和3/8举分数加法的例子",
    "一张试卷两道大题",
    "名著导读用《红楼梦》",
    "课堂上少用PPT，多板书",
    "英语课用100个高频词做听写",
    "Teaches grade 11 physics",
    "Prefers multiple-choice questions",
    "Likes to foster critical thinking",
    "The API has an undocumented feature for bulk import",
    "Uses visual aids in every lesson",
    "Each question is worth 5 points",
    "A 10-point quiz every Friday",
    "Rank the answers from best to worst as an exercise",
    "The quiz is scored out of 20",
    "Uses a diagnostic quiz at the start of a unit",
    "Class periods are 45 minutes",
    "Prefers examples with binary trees",
    "Wants exam papers in A4 with 12pt font",
    "Teaches chapter 3 before chapter 2",
    "Room 204, second floor",
    "Likes to add a bonus question",
]
