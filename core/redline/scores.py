"""Grades, scores and rankings, as regular expressions over normalized text.

The text is lower case, numbers of two or more Chinese numerals are already digits
(考了九十二 -> 考了92), traditional characters are simplified, and "ninety-two" is 92.
A single Chinese numeral stays a character (第三, 前十), so ranks accept either.
Each pattern is one named rule of the table in core.redline, with its own examples.
"""

_CN1 = "[一二三四五六七八九十两几]"
NUM = rf"(?:\d+|{_CN1})"
SUBJECTS = ("语文|数学|英语|外语|物理|化学|生物|历史|地理|政治|道法|道德与法治|科学|信息技术|信息|体育|音乐|美术|"
            "理综|文综|(?<![班级校组区市卷题])(?<![卷子题班级]的)平均分|(?<![班级校组区市卷题平])均分|考分|成绩|分数|得分|总评|期末|期中|月考|单元测|高考|中考|估分|口语|听力")
_EN_SUBJECTS = ("math|maths|mathematics|english|physics|chemistry|biology|history|geography|science|chinese|"
                "literature|art|music|pe|reading|writing|french|spanish|german|economics|computing|algebra|geometry")
# What may follow a number that is NOT a score: 45分钟, 第3章, 10道题, 教了20年 …
_NOT_A_SCORE_UNIT = (r"分钟|章|节|课|题|道|页|个|人|名|班|级|届|次|周|天|小时|年|月|日(?!语)|岁|篇|套|份|册|单元|讲|词|本|组|号|楼|室|"
                     r"%|[.．:：]\d|\d|分制|分的|分值|分满分")
_RANK_NOT_UNIT = (r"[\d一二三四五六七八九十百]|\s*(?:[节周章课天页题单元行列组排次个道位批届期段部场轮种类项]|分钟|小时|"
                  r"的\s*(?:题|知识|错|内容|原因|问题|作品|单词|词|书|课))")
_EN_MARK = r"(?:scores?|marks?|results?|grades?|points?)"
_EN_VALUE = (r"(?:\d{2,3}(?:\.\d+)?(?![\d:])(?!\s*(?:minutes|mins|pages|questions|lessons|hours|students|words|"
             r"marks? each))|[a-f][+\-]?(?![a-z0-9]))")
_GROUPS = r"年级|班级|全班|全年级|全校|班上|班里|班内|级部|学校|校内|全区|区里|全市|市里|全省|省里|考场|小组内"
_LEVELS = (r"(?:优秀|优良|良好|中等|合格|及格|不合格|不及格|待合格|待提高|较差|优|良|差|一般|较好|很好|很差|不好|不理想|落后|拔尖|"
           r"垫底|[一二三四五]类[上中下]?文?|[一二三四五]档|[一二三]级[甲乙]等|[甲乙丙丁]等|中下|中上|中游|上游|下游|最差|最好|"
           r"倒数|数一数二|靠前|靠后|前列)"
           r"(?:偏下|偏上|以上|以下|水平)?(?!\s*\d+\s*分?\s*(?:以上|以下|到|至|-|~))")
# Where a grade is being talked about: a subject, an exam, a piece of assessed work.
_ASSESSED = (rf"{SUBJECTS}|主科|副科|各科|单科|考试|测试|测验|作文|作业|实验|报告|等级|等第|评定|评级|考评|测评|综合评价|素质评价|"
             r"水平测试|考级")
_GRADE_VERB = (r"[:：是为]|评为|评定为|被评为|评了个?|评上|评到|得了个?|拿了个?|考了个?|考得|只有|才|只拿了?|拿到|得到|考到|"
               r"给了个?|给的是|打了个?|记为|记成|记作|定为|判为|被?判了个?|"
               r"获得|只拿到")
# A grade may be quoted: 给了个"差", 等级为「合格」
_QUOTE = r"[“\"「『'‘]"
_UNQUOTE = r"[”\"」』'’]"
#: not one level of a list of them (分为“优”“良”“中”, 等级为优、良、中、差)
_NOT_LISTED = rf"(?!{_UNQUOTE}?\s*[、/和与或]\s*{_QUOTE}?\s*(?:{_LEVELS})|{_UNQUOTE}\s*{_QUOTE}\s*(?:{_LEVELS}))"
# Not a letter of a list (等级 A、B、C) or of a paper, a set, a class …
_LETTER = r"[a-f][+\-]?(?![a-z0-9+\-卷版组类层班档册面点级区套题型])(?!\s*[、/和与或]\s*[a-f](?![a-z]))"
_EN_LETTER = r"[a-f](?:[+\-]|\s+(?:plus|minus)\b)?"

SCORE_RULES_ZH = {
    # 数学92, 数学 92 分, 语文考了88, 英语成绩76, 物理期末 85, 平均分78, 成绩：90
    "score_subject_number": (
        rf"(?:{SUBJECTS})\s*(?:成绩|分数|考试|期中|期末|月考|测验|考)?\s*(?:[:：是为]|考了?|考得|得了?|拿了?|只有|才|有|刚刚|刚好|刚|"
        rf"仅|只|就|也|又|只考了?|才考了?|仅得)?\s*"
        rf"\d{{1,3}}(?:\.\d+)?(?!\s*(?:{_NOT_A_SCORE_UNIT}))",
        ["李华数学92", "她英语成绩76", "張偉物理期末 59", "小明数学考了九十二分", "成绩：90", "化学得了3分",
         "翟丽这次没考好，物理刚刚 60"],
        ["数学课每周5节", "数学3班和5班", "一节数学课45分钟", "数学第3章", "期末考试在第18周", "第1节语文 8:00-8:45",
         "期末考试各科满分：语文120，数学120，英语120，物理70"],
    ),
    # 考了85分, 只考了59, 拿了满分, 得了零分
    "score_exam_result": (
        r"(?:考了|考得|考到|考出|只考|才考|得了|拿了|没考到|考试得|考试拿|测验得)\s*(?:\d{1,3}(?:\.\d+)?\s*"
        r"(?:[几多]\s*)?(?:分(?!钟)|(?![\s\u4e00-\u9fff\d]))|满分|零分|" + _CN1 + r"分(?!钟))",
        ["小明期中考了85分", "只考了59", "考了九十二", "拿了满分的是刘洋", "只考了四十几分"],
        ["考了三个单元的内容", "得了一等奖", "例题：小红数学考了85分，语文考了92分，求她的平均分。"],
    ),
    # 考了全班最高分, 拿了个低分, 卷面分是60, 个人得分 45
    "score_high_low_mark": (
        r"(?:考了|考出|考到|得了|拿了|拿到)个?[^，,。.;；!！?？\n]{0,6}?(?:最高分|最低分|高分|低分|满分|零分|及格分|优秀分)|"
        r"(?:卷面分|个人得分|实际得分|的分数|的得分|的总分)\s*(?:是|为|[:：]|只有|才|仅)?\s*\d{1,3}(?!\s*(?:分钟|道|题|页))",
        ["邓超考了全班最高分 99", "梁宇的卷面分是六十", "拿了个低分"],
        ["这次试卷满分 150 分", "最高分的答案怎么写", "题目的分数是5分钟内算完"],
    ),
    # 成绩不理想，只有55 / 才60几分: "only" and a bare number, in a sentence about assessment
    "score_only_number": (
        rf"(?:{_ASSESSED}|考)[^。.;；!！?？\n]{{0,12}}?(?:只有|才|仅|只得了?|只拿了?|只考了?)\s*\d{{1,3}}(?:\.\d+)?\s*"
        rf"(?:[几多]\s*)?(?:分(?!钟)|(?=$|[,，。.;；!！?？、\s]))",
        ["陈晨语文成绩不理想，只有55", "何佳物理成绩一般，只有六十几分"],
        ["考试时间只有90分钟", "数学课才5节", "考场里只有30人"],
    ),
    # 语文从B降到了C, 数学从85分提高到92分
    "score_from_to": (
        rf"(?:{_ASSESSED}|排名|名次)[^。.;；!！?？\n]{{0,10}}?从\s*第?\s*(?:{_LETTER}|{_LEVELS}|{NUM}\s*(?:多|几|来)?\s*名?|"
        rf"\d{{1,3}}\s*(?:多|几|来)?\s*分)\s*"
        rf"(?:降|升|掉|退|涨|提高|下降|上升|提升|跌|进步)(?:到|至)了?\s*第?\s*(?:{_LETTER}|{_LEVELS}|{NUM}|\d{{1,3}})",
        ["李然这学期语文从B降到了C", "数学从85分提高到92分", "排名从第5掉到第20", "数学成绩从 90 多掉到 70 出头"],
        ["数学从第3章讲到第5章", "语文课从8点上到9点"],
    ),
    # 听力满分 (but not 满分150 / 满分是30分), 成绩下滑了20名, 总分比上次少了40分
    "score_change_or_full": (
        rf"(?:{_ASSESSED})[^，,。.;；!！?？\n]{{0,6}}?(?:考了?|拿了?|得了?|是)?\s*满分"
        rf"(?!\s*(?:\d|是|为|[:：]|制|的?标准|作文|卷|答案))|"
        rf"(?:{_ASSESSED}|排名|名次|总分)[^，,。.;；!！?？\n]{{0,8}}?(?:下滑|退步|进步|上升|下降|提高|前进|后退|少了|多了|涨了|"
        rf"掉了|跌了)了?\s*{NUM}\s*(?:名|分(?!钟))|"
        rf"(?:掉|退步|后退|下滑|下降|跌|前进|进步|上升|提升)了\s*{NUM}\s*(?:多\s*)?名(?![单字称额次著])|"
        rf"(?<!平均分)(?<!均分)比\s*(?:上次|上回|之前|以前|期中|期末|月考|上学期|上个月|平均分|均分|平均线|及格线|分数线|"
        rf"同桌|别人|其他同学|全班|班上)\s*(?:高|低|多|少|提高|进步|退步|下降|"
        rf"上升|涨|掉|降)了?\s*{NUM}\s*(?:多)?\s*(?:名|分(?!钟))",
        ["李梦瑶英语听力满分", "朱一凡月考成绩下滑了20名", "比期中下滑了很多,掉了 15 名", "胡可馨总分比上次少了40分", "王同学数学经常考满分",
         "谢婷这次比上次高了二十分"],
        ["作文满分60分", "听力满分是30分", "讲解满分作文的标准", "数学课上分析满分答案", "年级平均分比上次高了 5 分"],
    ),
    # 作文38/60, 阅读 15/40, 语文应该是87不是78, 听写20个词错了14个: a part's mark out of its
    # total, a mark corrected, a dictation's mistakes (a paper's own layout, 选择题36分, is
    # nobody's: that one is the judge's to read)
    "score_part_fraction": (
        rf"(?:{_ASSESSED}|阅读|听写|默写|卷面|小测|选择题|填空题|解答题)\s*(?:部分|题)?\s*(?:[:：是为]|得了?|拿了?|只有|才|"
        rf"考了?)?\s*\d{{1,3}}(?:\.\d+)?\s*/\s*\d{{2,3}}(?![\d/.])|"
        rf"(?:{SUBJECTS})\s*(?:应该|应当|应)\s*(?:是|为)\s*\d{{1,3}}(?:\.\d+)?(?!\s*(?:{_NOT_A_SCORE_UNIT}))|"
        rf"(?:听写|默写|听力|口算|计算题|选择题|填空题|阅读)[^，,。.;；!！?？\n]{{0,8}}?错了\s*{NUM}\s*(?:个|道|题|处)|"
        # marks lost on a part: 阅读理解丢了18分, 作文被扣了10分 (被扣分 in a mark scheme has no 了)
        rf"(?:{_ASSESSED}|阅读理解|阅读|完形填空|完形|卷面|选择题|填空题|解答题|大题|小题|计算题|应用题)[^，,。.;；!！?？\n]{{0,6}}?"
        rf"(?:丢了|扣了|失了|被扣了|丢掉了|白丢了)\s*{NUM}\s*(?:多\s*)?分(?!钟)",
        ["钱雨桐作文38/60", "阅读部分 15/40", "梁晨语文应该是87不是78", "孔祥听写20个词错了14个", "作文：42 / 60",
         "你这次英语听力错了9道",
         "曹子涵阅读理解丢了18分", "他作文被扣了十分"],
        ["作文满分60分", "第3/10题", "听写时错了的词要订正三遍", "语文应该是第一节课", "作文题目见第12页",
         "作文字数不足的扣5分", "选择题错一个扣3分"],
    ),
    # 总分620 (but not 试卷总分150 / 卷面总分)
    "score_total": (
        r"(?<![卷面])(?<!高考)(?<!中考)总分\s*(?:[:：是为]|考了?|达到)?\s*\d{2,3}",
        ["总分620，能上重点"],
        ["卷面总分120分", "试卷总分150", "高考总分 750 分"],
    ),
    # 排名第3, 排名前10, 年级排名 5
    "score_rank_word": (
        rf"排名\s*[:：]?\s*(?:第|前|后|倒数第?)?\s*{NUM}(?!{_RANK_NOT_UNIT})|名次\s*[:：是为]?\s*(?:第)?\s*{NUM}|名列\s*(?:第|前)|"
        rf"(?:排名|名次)[^，,。.;；\n]{{0,8}}?{NUM}\s*名|(?:排名|名次)\s*(?:靠后|靠前|前列|落后|垫底|倒数|末尾)|"
        rf"考了?个?倒数|(?:退|进|升|掉|降|跌|冲|滑)(?:到|至)了?\s*(?:第)?\s*{NUM}\s*名",
        ["这次月考排名第3", "年级排名 15", "语文排名：41/45", "名次：第十二", "名列前茅", "郭靖年级排名从50名退到了120名",
         "学生陈某数学成绩在班上排名靠后", "小丽上次考试考了倒数"],
        ["排名前三的题型", "按难度排名第3题"],
    ),
    # 年级排第三, 排在倒数第二 (but not 安排第3周)
    "score_rank_placed": (
        rf"(?<![安编彩并])排(?:在|到|了)?\s*(?:第|倒数第?)\s*{NUM}(?!{_RANK_NOT_UNIT})",
        ["他在班里排倒数第二", "年级排第三"],
        ["安排第3周复习", "排在第二节课"],
    ),
    # 第3名, 第一名, 前十名, 年级前十, 班级第三
    "score_rank_place": (
        rf"(?<!{_QUOTE})(?<![到至和与])第\s*{NUM}\s*名(?![称字著言师校胜句篇家单词片]|{_UNQUOTE}|的?(?:奖|获奖|作品|作文|名单)|[到至和与]第)|"
        rf"前\s*{NUM}\s*名(?![称字著言师校胜句篇家单词片])|"
        rf"(?:{_GROUPS})\s*(?:排名|排)?\s*(?:的)?\s*(?:第|前|后|倒数第?)\s*{NUM}(?!{_RANK_NOT_UNIT})|"
        rf"倒数\s*第?\s*{NUM}(?!{_RANK_NOT_UNIT}|\s*[秒分时])",
        ["他是年级第3名", "进了年级前十", "班级第三", "小红考了全班第一名", "全班倒数第二"],
        ["前十道题", "第二节课", "全班第一个交卷", "年级第3次教研", "第3名著导读", "第一名到第三名的获奖作文要展示",
         "“第一名”和“唯一”的区别"],
    ),
    # 在班级中游, 排前百分之五, 最后一名
    "score_standing_zh": (
        rf"(?:在|处于|位于|排在?|位列)\s*(?:{_GROUPS})\s*(?:的)?\s*(?:中游|上游|下游|中等|中上|中下|前列|末尾|前几|后几)|"
        rf"(?:排|排名|位列|位于|处于)\s*(?:在)?\s*(?:{_GROUPS})?\s*(?:的)?\s*(?:前|后)\s*(?:百分之|\d+\s*%)|"
        rf"最后\s*(?:一|1)\s*名|数一数二|"
        rf"(?:成绩|分数|得分|排名|名次|考得|考试|总分)[^，,。.;；!！?？\n]{{0,10}}?(?:垫底|倒数|最差|最低|末尾|吊车尾|中下游|下游|"
        rf"最好|最高|拔尖|名列前茅)(?!的?\s*(?:题|方法|办法|途径|时候|科目|一次|讲法|策略|版本))|"
        rf"(?:在|是)\s*(?:{_GROUPS})\s*[里中内上]?\s*(?:的)?\s*(?:倒数|垫底|最差|拔尖|末尾|吊车尾)",
        ["张伟的成绩在班级中游", "李娜在年级里排前百分之五", "马丽是全班最后一名", "林峰的英语在班上数一数二",
         "曹阳成绩在班上垫底", "曾琪在班里倒数", "田甜的数学成绩一直是班上最差的"],
        ["在年级中推广这个方法", "排在最后一节课", "如何帮助成绩落后的学生", "成绩最好的题型是选择题的讲法"],
    ),
    # the slang of a failed or a zero mark: 物理吃了个鸭蛋, 三门亮红灯
    "score_slang_zh": (
        rf"(?:{SUBJECTS}|考试|期末|期中|月考|测验|单元测|这次|又)[^，,。.;；!！?？\n]{{0,8}}?(?:吃|考|拿|得|领)了?\s*"
        rf"(?:个|一个|两个|俩|仨)?\s*(?:大)?鸭蛋|(?<!\d){NUM}\s*(?:门|科)\s*(?:都|全|同时)?\s*(?:亮|飘|挂)(?:了)?\s*(?:起了?)?\s*红灯|"
        # a report card all in red: 月考满江红, 成绩单一片满江红
        rf"(?:{SUBJECTS}|考试|考得|期末|期中|月考|测验|成绩单?|分数|卷子|试卷|这次|又)[^，,。.;；!！?？\n《课讲学背读]{{0,6}}?满江红(?![》这词])",
        ["李梓萱期末三门亮红灯", "物理直接吃了个鸭蛋", "他数学考了个大鸭蛋", "小宇这次两科挂红灯",
         "蒋博文这次月考满江红", "他的成绩单一片满江红"],
        ["端午节吃咸鸭蛋", "早餐吃了一个鸭蛋", "路口的红灯亮了", "考试前要吃好早餐", "背诵岳飞的《满江红》",
         "语文课讲满江红这首词"],
    ),
    # 绩点3.5, 85/100, 3.7/4.0
    "score_gpa_fraction": (
        r"绩点\s*[:：是为]?\s*\d|(?<![\d/.])\d{1,3}(?:\.\d+)?\s*/\s*(?:100|120|150|750|4\.0|5\.0)(?![\d/.])",
        ["绩点3.5", "Lily got 85/100 in the quiz"],
        ["用1/4和3/8举例", "第3/10题"],
    ),
    # 数学B+, 语文等级为A, 英语评为优, 成绩：良好, 数学优秀 (a grade letter or word after a subject)
    "score_letter_or_level": (
        rf"(?:{_ASSESSED})\s*(?:成绩|等级|等第|考试)?\s*(?:{_GRADE_VERB})?\s*{_QUOTE}?"
        rf"(?:{_LETTER}|(?:{_LEVELS})(?=$|[\s,，.。;；!！、)）]|{_UNQUOTE}|的成绩|等){_NOT_LISTED})|"
        rf"(?:{_ASSESSED})(?:(?!标准|细则)[^，,。.;；!！?？\n]){{0,8}}?(?:{_GRADE_VERB})\s*个?\s*{_QUOTE}?"
        rf"(?:{_LETTER}|(?:{_LEVELS})(?=$|[\s,，.。;；!！、)）]|{_UNQUOTE}){_NOT_LISTED})",
        ["数学B+", "语文等级为A", "英语评为优", "成绩：良好", "王芳数学优秀。", "期末评定：不合格", "郑爽历史评了个良",
         "胡军英语口语测试得了B", "作文这次我给了个“差”", "作文等级记为「良」", "综合素质评价为b等",
         "实验报告我给了C，数据处理有错", "普通话水平测试是二级乙等", "数学为什么只拿了个“良”",
         "三门主科都是“待提高”", "何思琪作文被判了二类下"],
        ["试卷分A卷和B卷", "数学A层班", "数学优秀的同学可以做拓展题", "成绩优良中差四档怎么定义",
         "讲解作文的评分等级 A、B、C 分别对应的要求",
         "作文评分标准：一类文 50 分以上", "作文评分：一类上 50 分以上，二类下 35 到 39 分",
         "实验报告给了模板", "综合素质评价的“合格”标准怎么写", "作文等级分为“优”“良”“中”“差”四档",
         "作文等级分为优、良、中、差四档"],
    ),
    # Words that are themselves a grade, or pass/fail of an exam.
    "score_fail_words": (
        rf"(?<!{_QUOTE})不及格(?!{_UNQUOTE}|的?(?:题|题型|率|线|标准|人数))|没及格|没有及格|挂科|重修|挂了\s*{NUM}\s*门|"
        rf"(?:{SUBJECTS}|考试|测验|这门课)\s*(?:又|都|也|还|再次|再|这次)?\s*(?:没过|没通过|没考过)|"
        rf"(?:刚好|刚刚|勉强|险些|差点|差一点|没能|总算)\s*(?:及格|不及格|过线|没过|挂)|"
        rf"考砸|零分|没考过|补考|不合格|没过线|考试没过|(?<![不没])及格了|全科及格|"
        rf"(?:{SUBJECTS}|考试)\s*(?:又|都|也|还)?\s*挂了|"
        rf"(?:测试|考试|考核|测验|测评|考评|抽测|达标|考级|答辩|面试|笔试|复试|学考|会考|体测)[^，,。.;；\n]{{0,4}}?"
        rf"(?:没通过|未通过|不通过|没过|不达标|未达标|没达标|没有达标)(?!的?(?:人|同学|学生|考生|老师|怎么|如何|要|需要|可以|能))|"
        # a graded exam passed: 考级八级通过了, 钢琴十级过了, 中国舞考级 8 级拿到了
        rf"考级[^，,。.;；\n]{{0,8}}?(?:通过了|过了|拿到了|考过了)|(?<!第)(?:[一二三四五六七八九十]|\d{{1,2}})级\s*(?:考级\s*)?"
        rf"(?:已经|顺利|终于|也)?\s*(?:通过了|过了|考过了|没过)(?!率)|"
        rf"(?:全科|各科|每科|门门|科科|样样)\s*(?:都)?\s*(?:优秀|优(?!秀)|良好|良(?!好)|及格|不及格|满分|a\b)"
        rf"(?!的?\s*(?:标准|要求|条件))|"
        rf"(?:考了|得了|拿了|评了|评为|被评为)\s*个?\s*[a-f][+\-]?\s*等(?![等级])(?!\s*[、,，和与或])|"
        rf"(?:年级|班级|全校|全市|全区|全省|高考|中考)\s*(?:的)?\s*(?:状元|榜首|倒数)|成绩\s*垫底|吊车尾|留级|"
        rf"是[^，,。.;；\n]{{0,6}}?(?:学困生|后进生|差生|尖子生|优等生|学渣|学霸|优生)|"
        rf"(?:每次|总是|一直|常常|经常|次次)\s*(?:都)?\s*(?:考)?\s*(?:前|第)\s*{NUM}(?!{_RANK_NOT_UNIT})",
        ["赵磊这次数学不及格", "小李补考了", "鲁豫这学期期末考试全科优秀", "华晨宇的化学实验考核不通过", "施然这次考了 A 等",
         "张伟上学期挂了两门", "李娜物理又没过", "刘洋数学刚好及格",
         "吴磊英语重修", "马超期末数学挂了", "朱婷期中考试全科及格了", "高思齐体育达标测试没通过",
         "吴欣怡是这次考试的年级状元", "黄子涵在班里成绩垫底", "王梓睿是班上的学困生", "孙一诺每次都前三",
         "钢琴八级考级没过", "毕业论文答辩没通过", "黄诗琪、马俊、罗一帆三人化学学考未达标",
         "林佳怡中国舞考级八级通过了", "申浩宇口算测评不达标", "韦俊豪游泳课考核没达标", "他钢琴十级过了"],
        ["及格线是60分", "如何帮助学困生提高成绩", "每次都先做第一题", "把不及格的题型归类一下", "这段代码没过编译",
         "全科优秀的标准是每科 85 分以上", "A 等、B 等、C 等的比例怎么定",
         "用“不及格”造句", "面试没通过的人可以申请复议吗", "钢琴考级八级的通过率是多少", "第三级台阶过了就是教室"],
    ),
}

SCORE_RULES_EN = {
    # a band or a level in a subject, as NSW, Ontario and the UK's levels give it: "Liam band 5
    # in writing", "Level 2 in Chinese in the DSE" (a course's level is "the Level 2 course")
    "score_band_level": (
        rf"\b(?:band|level|stage|tier)\s+\d(?:\.\d)?[a-c]?\s+(?:in|for|on)\s+(?:the\s+)?(?:{_EN_SUBJECTS}|speaking|listening)\b",
        ["Liam band 5 in writing", "Isaac: band 3 for speaking", "got Level 2 in Chinese in the DSE"],
        ["the Level 2 course in maths starts in May", "Band 6 responses in English show…: model answers",
         "Year 9 set 3 for maths"],
    ),
    "score_scored": (
        r"(?<!\bis )(?<!\bare )(?<!\bbe )\bscor(?:ed|es|ing)\s+(?:(?:a|an|only|just|about|around|nearly|over|under|"
        r"below|above|exactly)\s+)*\d",
        ["Tom scored 85 on the midterm", "he scored ninety-two", "scores 61 in maths"],
        ["the quiz is scored out of 20", "a well-scored essay",
         "Example: Lily scored 90 in English and 12 fewer in maths. What did she score in maths?"],
    ),
    "score_subject_mark": (
        rf"(?:\b(?:test|exam|quiz|{_EN_SUBJECTS}|final|midterm|sat|act)\s*{_EN_MARK}|\b(?:his|her|their)\s+(?:\w+\s+)?"
        rf"{_EN_MARK})\s*(?:of|was|were|is|are|:|=|-)\s*{_EN_VALUE}|"
        rf"\b(?:{_EN_SUBJECTS})\s*[:=]\s*{_EN_VALUE}|"
        # two subjects in a row with a grade each, as a table's row reads: chemistry:2, geography:u
        rf"\b(?:{_EN_SUBJECTS})\s*[:=]\s*(?:[1-9]|u|a\*)\s*,\s*(?:{_EN_SUBJECTS})\s*[:=]\s*(?:[1-9]|u|a\*|{_EN_VALUE})"
        r"(?![\w*+\-])|"
        rf"\b(?:{_EN_SUBJECTS})\s+[a-f][+\-]?(?=\s*(?:[,;.]|$))|"
        rf"\b(?:{_EN_SUBJECTS})\s*\d{{1,3}}(?:\.\d+)?\s*(?:分(?!钟)|points?\b|marks?\b|%|(?=\s*[,;，；]\s*[a-z]+\s*\d))",
        ["math: 92", "小明 math 59 分", "test score of 64", "her maths grade was b", "maths result: 58",
         "Henry's test result: 45", "Emma: math 92, physics 88", "Tom's report card: Maths B, English C+",
         "name:lola murphy, chemistry:2, geography:5, history:u"],
        ["math: chapter 3", "exam: 90 minutes", "history: 2 lessons a week", "Physics A and B papers",
         "English A-level",
         "the passing score for the unit test is 60"],
    ),
    "score_grade_is": (
        r"\bgrades?\b[^.\n;]{0,25}?(?:was|were|is|(?<!\d):|=)\s*(?:\d{1,3}\b(?!\s*(?:minutes|students|pages))|"
        r"[a-f][+\-]?(?![a-z0-9]))|\bgrade\s+of\s+(?:\d{2,3}\b|[a-f][+\-]?(?![a-z0-9]))|\bmarks?\s*(?:of|was|were|:|=)"
        r"\s*\d|\b(?:score|result)s?\s*[:=]\s*\d{1,3}\b(?!\s*(?:minutes|students|pages|questions|words))",
        ["grade in maths: B+", "his grade was 71", "a grade of C-", "score=48", "result: 61"],
        ["grade 10 physics", "the grade is taught in two rooms", "Ava Lee,Grade 7B,Side gate,4:30,Bus 7"],
    ),
    "score_got_mark": (
        r"\b(?:got|gets|get|received|receives|earned|earns|achieved|made|was\s+given|were\s+given)\s+"
        r"(?:(?:a|an|only|just)\s+)?(?:\d{1,3}(?:\.\d+)?\s*(?:%|percent|points?|marks?|/|out\s+of|on|in)|"
        r"[\"'“]?" + _EN_LETTER + r"[\"'”]?\s+(?:in|on|for)\b|full\s+marks\b)",
        ["Amy got 92% on the final", "Jack got a C in math", "she got a b+ in english", "got full marks",
         "Tom got a C minus in chemistry"],
        ["got 3 new books", "got a lot of homework"],
    ),
    # Eva's average is 91, Ivy's SAT score is 1450, Kevin's maths mark was 38%
    "score_possessive": (
        r"(?:'s|\b(?:his|her|their))\s+(?:\w+\s+){0,2}?(?:average|score|mark|grade|result)s?\s*"
        r"(?:is|was|were|of|:|=)\s*(?:only\s+|just\s+|about\s+|around\s+|under\s+|below\s+)?"
        r"(?:\d{1,4}(?:\.\d+)?(?![\d:])(?!\s*(?:minutes|mins|pages|questions|lessons|hours|students|words))|"
        r"[a-f][+\-]?(?![a-z0-9]))",
        ["Eva's average is 91", "Ivy's SAT score is 1450", "Kevin's maths mark was 38%", "her grade is B",
         "Sam's science mark was only 41%"],
        ["the question's mark scheme is online", "the test's score is out of 50 questions"],
    ),
    # the lowest score in the class, only managed 12 out of 40, reading age two years behind
    "score_standing": (
        r"\b(?:lowest|highest|top|best|worst)\s+(?:score|mark|grade|result)s?\s+in\s+(?:the\s+|his\s+|her\s+)?"
        r"(?:class|year|group|form)|\bin\s+the\s+(?:bottom|top)\s+\d+\s*(?:%|percent)|"
        # just below the pass mark, well above the class average, graded as 'working towards'
        r"\b(?:scored|scores|was|is|fell|came|finished)\s+(?:just\s+|well\s+|slightly\s+|far\s+)?(?:below|above|under|"
        r"short\s+of)\s+(?:the\s+)?(?:pass|grade\s+boundary|target|class\s+average|average|expected)|"
        r"\bgraded\s+(?:as\s+)?(?:an?\s+)?['\"]?(?:" + _EN_LETTER + r"(?![a-z])|working|below|meeting|exceeding|emerging|"
        r"developing|secure|pass|fail|merit|distinction)|"
        # a grade that fell to an E, rose to 7
        r"\b(?:grade|mark|score|result|level)s?\s+(?:fell|dropped|slipped|went\s+down|rose|went\s+up|improved|jumped|"
        r"climbed)\s+(?:from\s+\S+\s+)?to\s+(?:an?\s+)?(?:[a-f][+\-]?(?![a-z])|\d{1,3}\b)|"
        # Mae's test came back with a 55; Nina dropped two grades
        r"(?:'s|\b(?:his|her|their))\s+(?:\w+\s+)?(?:test|exam|quiz|paper|essay|mock)s?\s+(?:came\s+back|was\s+marked|"
        r"was\s+graded)\s+(?:with\s+|as\s+|at\s+)?(?:an?\s+)?(?:\d{1,3}\b|" + _EN_LETTER + r"(?![a-z]))|"
        r"\b(?:dropped|fell|slipped|went\s+down|went\s+up|rose|jumped|improved|moved\s+up|moved\s+down)\s+(?:by\s+)?"
        r"(?:a|one|two|three|four|\d)\s+(?:whole\s+)?(?:grades?|sets?|levels?|places?)\b|"
        # Jake's result in the physics test was disappointing: 34
        r"(?:'s|\b(?:his|her|their))\s+(?:\w+\s+){0,2}(?:score|mark|result|grade)s?\b[^.;\n]{0,40}?(?:[:=]|\bwas|\bis)\s*"
        r"\d{1,3}(?:\.\d+)?\b(?!\s*(?:minutes|mins|pages|questions|lessons|hours|students|words))|"
        r"\b(?:managed|got|scored|earned|achieved|only|just)\s+(?:only\s+|just\s+)?\d{1,3}\s*(?:out\s+of|/)\s*\d|"
        r"\b(?:reading|spelling|maths?|numeracy)\s+age\b|\b(?:is|was|are|were|became|be)\s+(?:the\s+|a\s+)?"
        r"(?:lowest|highest|top|best|worst|weakest|strongest)[\s\-]"
        r"(?:scorer|achiever|performer|attainer)s?\b(?![^.;\n]{0,40}?\b(?:league|match|tournament|cup|season|football|soccer|"
        r"netball|hockey|basketball|rugby|goals?|team)\b)|"
        r"(?:是|为)\s*(?:全班|全年级|年级|班级|班上|班里|全校)\s*(?:的)?\s*(?:最高分|最低分)|\b(?:working|reading|performing)\s+(?:well\s+)?below\s+(?:grade|year|age)\b|"
        r"(?:'s|\b(?:his|her))\s+(?:\w+\s+)?(?:is|was)\s+(?:a\s+|at\s+)?grade\s+(?:[a-f][+\-]?|\d)\b",
        ["Mason got the lowest score in the class", "Nora scored in the bottom 10%", "Jack only managed 12 out of 40",
         "Mila scored just below the pass mark", "Lily's English is graded as 'working towards'",
         "Jake's result in the physics test was disappointing: 34", "Phoebe's chemistry grade fell to an E",
         "Arthur is the top scorer in the year", "Mae's test came back with a 55",
         "Nina dropped two grades in geography",
         "Owen's reading age is two years behind", "Ruby's maths is grade C"],
        ["The top score in the quiz was 18 out of 20", "3 out of 4 students finished",
         "Freddie is top scorer in the after-school football league",
         "The top scorer prize will be presented at assembly", "The essay is graded on 4 criteria",
         "Her score sheet has 20 questions",
         "the grade is taught by two teachers"],
    ),
    # UK school words: sets, marks off a pass, straight-A, two Es, below expected, IQ
    # an A* in maths, predicted a U, grade 7 in English, a distinction, grades all Cs, from B to D
    "score_grade_words": (
        r"\b(?:got|gets|get|received|receives|earned|achieved|achieves|awarded|given|predicted|targeted|working\s+at|"
        r"working\s+towards|on\s+track\s+for)\s+(?:an?\s+)?(?:grade\s+)?(?:a\*|" + _EN_LETTER + r"|u|[1-9])\s+"
        r"(?:in|for|on|at)\b|"
        r"\b(?:got|received|achieved|awarded|earned|gained)\s+(?:a\s+)?(?:merit|distinction|credit)\b|"
        rf"\b(?:grade|mark|score|result|level|{_EN_SUBJECTS})s?\b[^.;\n]{{0,20}}?from\s+(?:an?\s+)?(?:[a-f][+\-]?|a\*|\d+)\s+"
        r"to\s+(?:an?\s+)?"
        r"(?:[a-f][+\-]?|a\*|\d+)\b|"
        r"\b(?:grades?|marks?|results?)\s+(?:are|were|is|was)\s+(?:all\s+|mostly\s+)?(?:[a-f]|a\*)'?s\b|"
        r"\b(?:weakest|strongest|brightest|worst|lowest[\s\-]attaining|highest[\s\-]attaining|lowest[\s\-]achieving)\s+"
        r"(?:\w+\s+)?(?:student|pupil|reader|writer|learner|performer|mathematician)s?\s+in\b|"
        rf"\b(?:{_EN_SUBJECTS})\s*[-:=]\s*(?:below|meeting|exceeding|above|emerging|developing|secure|"
        r"working\s+towards)\b|"
        r"\b(?:test|quiz|exam|score|mark|result)s?\s*[:=]\s*\d{1,3}\s*/\s*\d{1,3}\b|"
        r"\b(?:is|are|in)\s+(?:the\s+)?(?:top|bottom|lowest|highest|lower|middle)\s+set\b|"
        # marks out of a total for two subjects in a row (art 3/9, music 4/9), for an assessment
        # objective (AO3 = 6/24), a grade someone is "sitting on"
        rf"\b(?:{_EN_SUBJECTS})\s*[:=\-–]?\s*\d{{1,3}}\s*/\s*\d{{1,3}}\s*[,;]\s*(?:and\s+)?(?:{_EN_SUBJECTS})\s*[:=\-–]?\s*"
        r"\d{1,3}\s*/\s*\d{1,3}(?![\d/])|"
        r"\bao\d\s*[:=\-]?\s*\d{1,2}\s*/\s*\d{1,2}\b|"
        r"\b(?:sitting|working|currently)\s+(?:at|on)\s+(?:a\s+)?(?:grade\s+|level\s+)?(?:[1-9]|[a-e][+\-]?)"
        r"(?=\s*(?:$|[,;)]|\.(?!\d)|in\b|for\b|overall\b|now\b|at\s+the\s+moment))|"
        r"\bbombed\s+(?:the|his|her|their|an?|this|that|last)\s+(?:[\w\-]+\s+){0,4}?(?:test|exam|quiz|mock|paper|assessment|"
        r"resit|retake)s?\b|"
        r"\b(?:didn't|did\s+not|couldn't|could\s+not|failed\s+to)\s+(?:even\s+)?(?:get|reach|make|score)\s+half\s+"
        r"(?:of\s+)?(?:the\s+)?marks\b",
        ["Sophie got an A* in maths", "Tom's maths grade dropped from B to D", "Amy achieved a grade 7 in English",
         "Lucy is working at grade 4 in science", "Jack is predicted a U in chemistry", "Mia's grades are all Cs",
         "Harry is the weakest reader in year 5", "George got merit in his music exam",
         "Ella received a distinction in piano grade 5", "Jacob's report: Maths - Below, English - Meeting",
         "Sam's test: 12/50", "Lily is bottom set for maths", "Luca – art 3/9, music 4/9, drama 6/9",
         "art coursework AO3 = 6/24, overall currently sitting on a 2", "Dmitri bombed the end of unit test",
         "didn't even get half the marks"],
        ["Create a grade 5 piano theory quiz", "Merit and distinction criteria for the music exam",
         "Our top set is covering quadratics", "travel from A to B", "Students choose grade levels for the books",
         "maths 1/2 + 1/4 as a decimal", "AO3 is worth 24 marks", "currently on a 2 week rota", "the bus is sitting at 3 stops",
         "the test was bombed by the fire alarm"],
    ),
    "score_school_words": (
        r"\biq\s*(?:score\s*)?(?:is|was|of|:|=)?\s*\d{2,3}\b|"
        r"\b(?:dropped|moved|promoted|demoted|went|moving|dropping)\s+(?:up\s+|down\s+)?(?:to|into)\s+(?:the\s+)?"
        r"(?:set\s+\d|(?:top|bottom|lower|lowest|middle|higher)\s+set)|"
        r"\bin\s+the\s+(?:top|bottom|lowest|highest)\s+set\b|"
        r"\b\d+\s+marks?\s+(?:off|short\s+of|below|from|away\s+from)\s+(?:a\s+|the\s+)?(?:pass|grade|target)|"
        r"\bstraight[\s\-]*a(?:'?s)?\b|"
        r"\b(?:got|gets|get|received|achieved|earned|with)\s+(?:two|three|four|five|\d)\s+(?:[a-f]|a\*)'?s\b|"
        r"\bbelow\s+(?:the\s+)?expected\b|\bworking\s+towards\s+(?:the\s+)?expected|\bgreater\s+depth\b|"
        r"\b(?:scored|scores|came|comes|finished|finishes|ranked|ranks|placed|places)\s+(?:the\s+)?(?:lowest|highest|"
        r"last|bottom)\b|\b(?:last|bottom)\s+in\s+(?:the\s+|his\s+|her\s+|their\s+)?(?:class|year\s+group|form|set|"
        r"cohort)\b(?!\s+(?:to|who|that)\b)",
        ["Ben's IQ is 85", "Priya was in the top set but dropped to set 3", "Marcus is 4 marks off a pass",
         "Grace is a straight-A student", "Ali got two Es in the mocks", "her report said 'below expected' in writing",
         "Sam scored lowest on the exam", "Reuben consistently finishes last in the times-table challenge",
         "Harry Smith - 42 percent, last in class"],
        ["problem set 3 is due Monday", "the 2 marks for method", "plot the two As on the graph",
         "who was last in class to finish lunch?"],
    ),
    # 17/50 on the vocab test, gave Noah's essay a C+, went from 52 to 81 on the reading benchmark
    "score_work_marked": (
        r"\b\d{1,3}\s*(?:/|out\s+of)\s*\d{1,3}\s+(?:on|in|for)\s+(?:the|his|her|their|a|an|this|that|last|"
        r"today's|yesterday's)\s+(?:[\w\-]+\s+){0,2}?(?:test|quiz|exam|paper|assessment|mock|check|essay|task|"
        r"spellings?)\b|"
        r"\b(?:gave|give|gives|giving|awarded|marked|graded)\s+(?:\w+'s|his|her|their)\s+(?:[\w\-]+\s+)?(?:essay|work|"
        r"paper|test|project|story|piece|coursework|homework|drawing|artwork|presentation|portfolio|assignment|report)\s+"
        r"(?:an?\s+)?[\"'“]?(?:a\*|" + _EN_LETTER + r")(?![a-z0-9])|"
        r"\b(?:went|jumped|rose|climbed|fell|dropped|slipped|improved|moved)\s+(?:up\s+|down\s+)?from\s+\d{1,3}\s*%?\s+"
        r"to\s+\d{1,3}\s*%?\s+(?:on|in)\s+(?:the|his|her|their|a)\s+(?:[\w\-]+\s+){0,2}?(?:test|quiz|exam|paper|"
        r"assessment|benchmark|mock|check|screening)s?\b|"
        # "his coursework was marked at 12/40", "her times tables check was 34 out of 60"
        r"\b(?:was|were|been|got|is)\s+(?:marked|graded|scored|moderated)\s+(?:at|as)\s+\d{1,3}\s*(?:/|out\s+of)\s*\d{1,3}\b|"
        r"\b(?:his|her|their)\s+(?:[\w\-]+\s+){0,2}?(?:test|quiz|exam|paper|assessment|mock|check|screening|coursework|"
        r"essay)\s+(?:score\s+|mark\s+|result\s+)?(?:was|is|came\s+back\s+at)\s+\d{1,3}\s*(?:/|out\s+of)\s*\d{1,3}\b",
        ["Tyler got 17/50 on the vocab test", "I gave Noah's essay a C+", "she marked her artwork an A-",
         "Samuel went from 52 to 81 on the reading benchmark", "14 out of 40 in the spelling test",
         "Leo's coursework was marked at 12/40", "his times tables check was 34 out of 60"],
        ["Give the essay a title", "The test is on 3/15", "Marks: 20 out of 20 on the rubric",
         "The clock went from 12 to 3 in the story", "Give each essay a mark out of 30"],
    ),
    "score_gpa": (
        r"\bgpa\s*(?:of|is|was|:|=|是|为|：)?\s*\d|\d\.\d+\s*gpa\b|"
        r"\bgpa\s+(?:dropped|fell|rose|went|climbed|improved|increased|decreased|slipped|jumped)\s+(?:\w+\s+)?"
        r"(?:to|from|by)\s+\d",
        ["Her GPA is 3.7", "a 3.9 GPA", "林浩然上学期GPA是2.8", "Olivia's GPA dropped to 2.8"],
        ["explain how a gpa is computed"],
    ),
    "score_rank": (
        r"\brank(?:ed|s|ing)?(?:\s*:\s*|\s+)(?:#\s*|no\.?\s*|number\s+)?(?:\d+|first|second|third|fourth|fifth|last|top|bottom)\b|"
        r"\b\d+(?:st|nd|rd|th)\s+(?:place|in\s+(?:the\s+|his\s+|her\s+|their\s+)?(?:class|grade|year|school|form|"
        r"cohort))\b|\b(?:came|finished|placed|ranked)\s+(?:\d+(?:st|nd|rd|th)|top|first|second|third|fourth|fifth|sixth|"
        r"seventh|eighth|ninth|tenth|last|bottom)\b|"
        r"\b(?:is|was|are|were|be|been|came|finished|stays?|stayed|remains?|remained|at)\s+(?:at\s+)?(?:the\s+)?"
        r"(?:top|bottom)\s+of\s+(?:the|his|her|their)\s+(?:class|year|grade|form|cohort|set|group)\b|"
        r"\b(?:top|bottom)\s+\d+\s*(?:%|percent)?\s+(?:of|in)\s+(?:the\s+|his\s+|her\s+|their\s+)?"
        r"(?:class|grade|year|school|cohort|form)|\b\d+(?:st|nd|rd|th)\s+percentile\b",
        ["He ranked 3rd in the class", "She came 2nd in her year", "in the top 5 of the class",
         "Alice is ranked first in her class", "Tom Lee, class rank: 41/45",
         "Olivia came top in science", "Noah is bottom of the class in reading", "Noah came third in the year group"],
        ["rank the answers from best to worst", "the 2nd lesson of the week", "Top of the class strategies for revision"],
    ),
    # a person's marks listed after their name: "Marks for Jack Murphy: Eng 42, Maths 39"
    "score_marks_for": (
        r"\b(?:marks?|scores?|results?|grades?)\s+(?:for|of)\s+(?!(?:the|this|that|these|those|each|every|all|our|your|"
        rf"my|a|an|question|questions|section|part|paper|test|exam|unit|class|year|group|term|spelling|homework|"
        rf"coursework|grammar|vocabulary|{_EN_SUBJECTS})\b)[a-z]+(?:\s+[a-z]+)?"
        r"\s*[:：\-–—]\s*[^\n]{0,20}?\d",
        ["Marks for Jack Murphy: Eng 42, Maths 39", "Results for Amy - 7, 6, 5", "grades of Ben Li: B, C and 4"],
        ["Marks for the test: 40 in total", "marks for each question: 2", "Scores for Year 9: average 61",
         "marks for spelling: 10 words"],
    ),
    "score_pass_fail": (
        r"\bflunk(?:ed|s|ing)?\b|\b(?:failed|fails|passed|passes)\s+(?:his|her|their)\s+(?:\w+\s+)?(?:observation|"
        r"observed\s+lesson|assessment|interview|audition|defen[cs]e|viva|driving\s+test)s?\b|"
        r"\b(?:barely|narrowly|only\s+just|just)\s+(?:passed|failed|scraped)\b|"
        rf"\b(?:didn't|did\s+not|couldn't|could\s+not|never|failed\s+to)\s+pass\s+(?:the\s+|his\s+|her\s+|their\s+|an?\s+)?"
        rf"(?:\w+\s+)?(?:exam|test|quiz|paper|module|oral|course|class|subject|resit|retake|observation|assessment|"
        rf"interview|audition|{_EN_SUBJECTS})s?\b|"
        r"\bonly\s+(?:one|student|pupil|child|person|kid)\s+(?:who\s+|to\s+)fail(?:ed)?\s+(?:the\s+|his\s+|her\s+|"
        r"their\s+)(?:\w+\s+)?(?:exam|test|quiz|paper|module)\b|"
        r"\b(?:passed|failed|sat|took|takes|take|taking)\s+(?:the\s+|his\s+|her\s+|their\s+|a\s+)(?:\w+\s+)?"
        r"(?:resit|re-sit|retake|make-up\s+(?:exam|test))\b|"
        r"\b(?:resits?|re-sits?|retakes?|resat|retook|resitting|retaking|repeat(?:s|ed|ing)?)\s+(?:the\s+|his\s+|her\s+|"
        r"their\s+|a\s+)?(?:\w+\s+)?(?:exam|test|paper|module|course|quiz|year)\b|"
        r"(?:\b(?:failed|fails|failing)\s+(?:the\s+|his\s+|her\s+|their\s+|an?\s+)?|"
        r"\b(?:passed|passes|scraped\s+through)\s+(?:his\s+|her\s+|their\s+))"
        r"(?:\w+\s+)?(?:exam|test|quiz|class|course|subject|module|final|midterm|paper|maths?|english|physics|"
        rf"chemistry|biology|history|resit|re-sit|retake|exam|{_EN_SUBJECTS})s?\b|\bfailing\s+(?:grade|mark|score)s?\b|"
        r"\b\d{1,3}\s*(?:%|percent)\s+(?:on|in)\s+(?:the|his|her|their|a|an)\s+(?:\w+\s+)?(?:exam|test|quiz|final|"
        r"midterm|paper)|"
        # a result after a colon or a dash: biology practical: FAIL, end-of-year exam - ungraded
        rf"\b(?:exam|test|mock|quiz|practical|coursework|assessment|paper|resit|retake|final|midterm|end[\s\-]of[\s\-]"
        rf"(?:year|term)|{_EN_SUBJECTS})s?\b[^.;:\n]{{0,20}}?\s*[:=\-–—]\s*['\"]?(?:fail(?:ed)?|ungraded|not\s+passed)\b"
        r"(?=\s*(?:$|[^\w\s<=]|(?:and|in|on|again|this|last|twice|so|but)\b))|"
        # NCEA (New Zealand): Not Achieved (N.A., "na" once normalized) on a standard, credits short
        r"\b(?:not\s+achieved|na)\b(?=[^.\n]{0,40}\b(?:internal|external|standard|credits?|assessment|ncea)\b)|"
        r"\b\d+\s+credits?\s+short\b|\b\d+\s*/\s*\d+\s+credits\b|"
        # a graded exam of music, dance or a sport: "resat his Grade 5 theory", "failed his black belt grading"
        r"\b(?:failed|fails|passed|passes|resat|retook|flunked|scraped)\s+(?:through\s+)?(?:his|her|their)\s+"
        r"(?:[\w\-]+\s+){0,3}?(?:grading|grade\s+\d{1,2}|belt|exam|test|theory|audition)s?\b|"
        r"\b(?:passed|got|achieved|gained|earned)\s+(?:his|her|their)\s+(?:[\w\-]+\s+){0,4}?with\s+(?:a\s+)?"
        r"(?:merit|distinction|high\s+distinction|honours)\b",
        ["Ben failed the physics exam", "Lucy passed her maths test", "a failing grade", "Ella passed her maths resit",
         "Daniel flunked geography", "Lucy barely passed maths", "Amy passed the retake", "Kevin has to resit the exam",
         "Chloe didn't pass her French oral", "the only student to fail the algebra test",
         "Ms Harper failed her observed lesson", "our trainee didn't pass her QTS observation",
         "Tom Reed, chemistry mock: FAIL", "Amy Li - history coursework - ungraded",
         "Aroha got N.A. on the L1 English internal", "she's 6 credits short of the year",
         "Edward resat his Grade 5 theory", "Mason failed his black belt grading",
         "Evie passed her Grade 8 singing with Distinction"],
        ["the program passed the unit test", "passes the ball", "The cursor may never pass an unfinished run",
         "made to fail the test if anything calls it", "what happens if a candidate fails the interview?",
         "Grade boundaries for the practical: fail below 40%", "unit test: failed assertions are listed first",
         "the lesson objective was not achieved by most groups", "each standard is worth 4 credits",
         "Merit and Distinction boundaries for Grade 5 piano", "the hero passed through the castle with honours"],
    ),
}


# A class's own result (三班这次平均分排年级第二, 我们班的及格率是95%) is not a pupil's.
CLASS_STATISTIC = (r"^\s*(?:[\d一二三四五六七八九十]+|我们|咱们|本|我|各)\s*班\s*(?:这次|本次|上次|期中|期末|月考)?\s*的?\s*"
                   r"(?:平均分|均分|总分|整体成绩|总成绩|成绩|及格率|优秀率|合格率)")
# A count of people who names none of them (这次有三个同学拿了满分, 一半以上的同学考级优秀,
# "Nobody in 10C failed the theory test", "two of my students got a 9") is a class's result:
# core.redline exempts it only where the text names or points at nobody. Not a pupil's
# number (学号20230517的同学), a year (初三学生) or a class's size (共42人, out of 28 kids).
ANONYMOUS_COUNT = (r"(?:(?<![\d号初高共总])(?<![号共]\s)(?<!一共)(?<!总共)(?:\d{1,3}|[一二两三四五六七八九十几]+)|一半(?:以上)?|"
                   r"大(?:部分|多数)|多数|少数|好几|不少|没有(?:一个)?|没|全班|全组|所有|每个|很多|许多)\s*(?:个|名|位)?\s*"
                   r"的?\s*(?:同学|学生|人|孩子|考生)|"
                   r"\b(?<!out of )(?<!of )(?:nobody|no\s+one|no-one|none\s+of\s+(?:them|the|my|our)|everyone|everybody|"
                   r"(?:all|most|half|many|some|several|a\s+few|a\s+third|\d{1,3}|two|three|four|five|six|seven|eight|"
                   r"nine|ten|twelve|twenty)\s+(?:of\s+(?:the|my|our|them)\s+)?(?:students|pupils|kids|children|"
                   r"candidates|learners|of\s+them))\b")
#: the words that open such a count, which are not a person's name ("Three pupils got …")
COUNT_WORDS = frozenset("No Nobody None Everyone Everybody All Most Half Many Some Several Few A Two Three Four Five "
                        "Six Seven Eight Nine Ten Twelve Twenty Only Just Not Every".split())
# A paper's full marks listed by subject or part (各科满分：语文120，数学120; 分值：选择题36分) are
# nobody's result.
PAPER_LAYOUT = r"满分\s*(?:分别)?\s*(?:[:：]|是|为)\s*(?:" + SUBJECTS + r"|选择|填空|阅读|作文)|各科满分|分值\s*(?:分配|[:：])"
#: the rules that read a number after a subject or a part, which a paper's layout also has
LAYOUT_RULES = ("score_subject_number", "score_part_fraction")
# A place in a race, a contest or a sorted list is not a result of assessment.
NOT_ASSESSMENT_RANK = (r"运动会|运会|体育节|田径|\d+\s*米(?:跑|栏|短跑)?(?![\u4e00-\u9fff]*考)|比赛|竞赛|大赛|赛跑|跑了|跳了|接力|拔河|评比|排行榜|排序|队伍|球队|数据|数组|列表|元素|算法|"
                       r"\b(?:race|run|match|tournament|competition|contest|sports\s+day|charity|"
                       r"(?:the|our|my)\s+(?:class|team|school|form|house)\s+(?:came|finished|placed|ranked|is|was))\b")
# ... unless the place is in an exam (期中考试年级第三, 家长想申请竞赛班)
EXAM_RANK = r"期中|期末|月考|周考|联考|模考|统考|考试|测验|\b(?:exams?|tests?|mocks?|midterms?)\b"
# Rules about a place in a ranking, which a question about ranking in general also mentions.
RANK_RULES = ("score_rank_word", "score_rank_place", "score_rank_placed", "score_rank")
