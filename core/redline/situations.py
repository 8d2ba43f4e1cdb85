"""Health and family situations that are a sentence, not a term: a measurement of a
pupil's body (视力 4.3), an injury (broke his arm), a finding (体检报告显示…), money
trouble at home (家里欠了很多债). Regular expressions over normalized text, each a named
rule of the table in core.redline with its own examples, like core/redline/scores.py.
"""

_BODY_EN = (r"arm|leg|wrist|ankle|knee|foot|feet|hand|finger|thumb|collarbone|back|neck|shoulder|nose|toe|hip|elbow|"
            r"jaw|rib|skull|tooth|teeth|acl|ligament|cruciate|hamstring|achilles|tendon|meniscus|cartilage|muscle|"
            r"groin|calf|spine|vertebra")

#: a number of months or weeks (三个月, 5 个多月, 20 周), as a pregnancy is counted
_MONTHS = r"\s*[\d一二两三四五六七八九十]+\s*(?:个\s*多?\s*月|周)"

HEALTH_RULES = {
    # 视力只有 4.3, 左眼视力 0.6, 视力下降, 左耳听力受损, 体检报告显示…, 心脏有杂音
    "health_measure_or_finding": (
        r"视力\s*(?:只有|才|是|为|[:：]|仅|左眼|右眼|双眼)?\s*(?:左眼|右眼|双眼)?\s*[0-5]\.\d|"
        r"(?:视力|听力|视觉|嗓子|心脏|肺|肝|肾|胃|眼睛|耳朵)\s*(?:有些?|有点|一直|明显|严重)?\s*"
        r"(?:下降|减退|受损|损伤|损失|丧失|不好|很差|有问题|出问题|异常|有杂音|杂音|衰退|障碍|感染|发炎)|"
        r"(?:左|右|双)(?:耳|眼)[^，,。.;；]{0,4}(?:失明|失聪|听不见|看不见|看不清|受损|弱视|听力|视力)|"
        r"(?:体检|检查|化验|诊断|检测)[^，,。.;；]{0,6}?(?:显示|发现|查出|提示|异常|不合格|有问题)|"
        r"(?:摔|扭|撞|烫|烧|割|咬|划|砸|碰|崴|抓)(?:伤|断|破|骨折)了|缝了\s*(?:\d+|几)?\s*针|摔了(?:一)?跤|(?:摔|跌|晕)倒了|"
        # pain in a part of the body: 肚子疼, 头一直疼, 牙痛
        r"(?:头|肚子|胃|牙|嗓子|喉咙|腿|脚|膝盖|腰|背|眼睛|耳朵|胸口|心口|肚)\s*(?:很|有点|一直|特别|总是|老是|经常)?\s*"
        r"(?:疼|痛)(?![苦快心])|"
        # a named illness by its ending (鼻窦炎, 后遗症), or caught, diagnosed, taken to hospital
        r"[\u4e00-\u9fff]{1,4}炎(?![热黄帝凉夏日])|(?<![对病])[\u4e00-\u9fff]{1,4}(?<!对)症(?![状候下])|"
        r"(?:得了|患了|患有|染上了?|感染了|查出了?|确诊为?|被诊断为?)[^，,。.;；]{0,6}?(?:病|炎|症|流|感冒|瘤|癌)|"
        r"(?:去|到|在|送|进了?|住进了?|送进了?|带去|带到)\s*(?:了)?\s*医院(?!参观|实习)|"
        r"不想活|想死|(?:想|要)\s*[\"“‘']?\s*消失(?!的)|情绪低落|不耐受|住了\s*[^，,。.;；]{0,3}\s*院|住过院|"
        r"(?:经常|总是|老是|动不动就|常常)\s*(?:哭|发脾气|做噩梦|头晕|晕倒|流鼻血|睡不着)|"
        r"(?:强迫|抑郁|焦虑|自闭|自伤|自残|自杀|轻生|厌食|暴食|多动|攻击|暴力)\s*(?:倾向|症状|行为|情绪|表现)",
        ["马超的体检报告显示心脏有杂音", "陈浩视力只有 4.3", "孙悦左耳听力受损", "他的视力下降得厉害", "小李摔伤了",
         "右眼视力 0.6", "小雨今天肚子疼", "高明有鼻窦炎", "李倩得了甲流", "他被家长带去医院了", "林楠乳糖不耐受",
         "方圆有强迫倾向", "井然上周住了三天院", "管虎最近经常哭", "易烊有轻度听力损失", "贝贝在家摔了一跤，头上缝了针",
         '卢子墨上学期说过想"消失"'],
        ["准备体检通知，提醒家长带孩子空腹", "实验课注意安全，不要烫伤", "英语听力只拿了 12 分", "视力表怎么挂",
         "录音里有杂音", "夏天天气炎热", "对症下药", "他心疼妈妈", "得了一等奖", "病症状的描述",
         "魔术里硬币要消失的一瞬间", "想消失的恐龙是哪一种"],
    ),
    # hurting oneself said without the word: 用小刀划手臂, 割手腕, "cutting herself", "cuts on his arms"
    "health_self_harm": (
        r"(?:用|拿)[^，,。.;；]{0,4}(?:刀|刀片|圆规|剪刀|针)[^，,。.;；]{0,3}(?:划|割|刻|扎)\s*(?:自己的?)?"
        r"(?:手臂|手腕|胳膊|大腿|腿|手)|(?:划|割|刻)(?:自己的?)?(?:手臂|手腕|胳膊|大腿)|"
        r"\b(?:cutting|cuts|cut|burning|burns|scratching|scratches|hurting|hurts|hurt|harming|harms|harmed)\s+"
        r"(?:herself|himself|themselves|themself)\b(?!\s+(?:a|an|some|the|another)\b)|"
        r"\b(?:cuts|scars|burns|scratches)\s+on\s+(?:her|his|their)\s+(?:fore)?(?:arms?|wrists?|legs?|thighs?)\b",
        ["梁雅婷跟我说她在用小刀划手臂", "他拿刀片割自己的手腕", "她又划手臂了", "Ruby has been cutting herself",
         "I noticed cuts on his forearms in PE", "Sam said he hurt himself on purpose"],
        ["用美工刀划开纸箱", "手工课用剪刀剪纸", "用圆规画圆", "Tom cut himself a slice of cake",
         "he burned himself a copy of the CD"],
    ),
    # a pregnancy said without the word: 怀上了, 孕 12 周, 产检
    "health_pregnancy": (
        rf"怀上了|怀了(?:二胎|三胎|孩子|宝宝|{_MONTHS})|有喜了|显怀|孕吐|产检|孕{_MONTHS}|孕(?:早|中|晚)期|"
        # "is expecting a baby / twins / her second", "expecting - due in April", "baby is due"
        r"\b(?:is|she's|they're|are)\s+expecting\s+(?:a\s+baby|a\s+little\s+one|twins|triplets|again|"
        r"(?:her|their)\s+(?:first|second|third|1st|2nd|3rd)\b)|"
        r"\bexpecting\s*[-–—,(:]\s*(?:she's\s+|she\s+is\s+|baby\s+)?due\b|\bbaby\s+(?:is\s+)?due\b",
        ["小周老师怀上了", "她孕 20 周了", "王老师这周要去产检", "陈老师最近孕吐厉害",
         "Mrs Khan is expecting - due in April, keep it quiet", "Ms Reed is expecting her second",
         "her baby is due in March"],
        ["讲讲怀孕的生物学知识点", "怀了一颗感恩的心", "孕育了新的希望", "the head is expecting the reports by Friday",
         "I'm not sure what she is expecting; the essay is due in April", "the coursework is due in May"],
    ),
    # What people say instead of the word (EUPHEMISM_RULES: the rules' verdict stands, as the
    # judge reads these as ordinary words): the pregnancy emoji, 有了（三个月）, autism's
    # 星星的孩子 said of someone, a psychiatric hospital by its address or its name
    "health_euphemism": (
        r"[\U0001F930\U0001FAC3\U0001FAC4]|"
        rf"有(?:了|咗)(?:[\"'”’」』]\s*[，,、]?|[，,、])\s*(?:已经|都|快|才|大约|大概|差不多|约|啱啱)?{_MONTHS}|"
        r"(?:是|成了|属于)\s*[\"'“‘「『]?(?:来自)?星星的孩子|"
        r"宛平南路\s*600|(?:北京)?安定医院|回龙观医院|北医六院|(?:广州)?芳村(?:精神病?)?医院|惠爱医院",
        ["刘老师“有了”，三个月，先别在组里说", "朱老师 🤰 五个月了", "她有了，已经两个月", "周咏琳「有咗」，大约三个月", "蒋一诺是“星星的孩子”",
         "孔令仪被送去了宛平南路600号", "他爸爸在回龙观医院住了半年"],
        ["我们有了三个月的准备时间", "这个项目有了新进展", "关爱星星的孩子主题班会", "宛平南路上的银杏很好看"],
    ),
    # broke his arm, sprained her ankle, in hospital, off sick
    "health_injury_en": (
        rf"\b(?:broke|broken|fractured|sprained|twisted|injured|hurt|dislocated|cut|burned|burnt|tore|torn|ruptured|"
        rf"pulled|strained)\s+"
        rf"(?:his|her|their|my|a|an)\s+(?:\w+\s+)?(?:{_BODY_EN})s?\b|\b(?:is|was|are|were|been|stays?|stayed)\s+in\s+"
        rf"hospital\b|\b(?:off|home|away|out)\s+(?:sick|ill)\b|\bwas\s+sick\b|"
        rf"\b(?:eyesight|hearing|vision)\s+(?:is|was|has|getting|got)\s+(?:\w+\s+)?(?:poor|bad|worse|deteriorat\w*|"
        rf"impaired|damaged|weak)|\bhad\s+(?:his|her|their)\s+(?:\w+\s+)?(?:tonsils|appendix|adenoids|teeth|tooth)\s+"
        rf"(?:out|removed)|\b(?:lactose|gluten)\s+intoleran|"
        rf"\breferred\s+to\s+(?:a\s+|an\s+|the\s+)?(?:camhs|paediatric\w*|pediatric\w*|psycholog\w*|psychiatr\w*|"
        rf"specialist|clinic|hospital|occupational\s+therap\w*|speech\s+(?:and\s+language\s+)?therap\w*|counsell\w*)|"
        # has a tic disorder, with a rare syndrome, diagnosed with a kidney disease
        rf"\b(?:has|have|had|with|diagnosed\s+with|suffers\s+from|suffering\s+from)\s+(?:an?\s+)?(?:\w+\s+){{0,2}}"
        rf"(?:disorder|syndrome|disease|infection|illness)\b|\b(?:is|was)\s+in\s+rehab\b|"
        rf"\bin\s+a\s+(?:cast|sling|brace|splint|neck\s+brace)\b",
        ["Oscar broke his arm at the weekend", "Mia sprained her ankle in PE", "Leo is in hospital", "Zoe was off sick",
         "her eyesight is very poor", "Millie had her tonsils out", "Ben is lactose intolerant",
         "Toby has been referred to CAMHS", "Reggie has a tic disorder", "Billy's mum is in rehab",
         "Georgia's leg is in a cast"],
        ["the vase was broken", "a field trip to the hospital", "sick of the rain", "cut a piece of paper"],
    ),
}

_FAITHS_ZH = (r"伊斯兰教|基督教|天主教|佛教|道教|犹太教|东正教|印度教|锡克教|摩门教|耶和华见证人|穆斯林|基督徒|天主教徒|佛教徒|"
              r"犹太人|锡克教徒|印度教徒")
_ETHNIC_ZH = r"回族|维吾尔族|维族|藏族|蒙古族|壮族|苗族|彝族|满族|朝鲜族|哈萨克族|土家族|侗族|瑶族|白族|傣族|黎族|少数民族"
_FAITHS_EN = (r"muslims?|sikhs?|jewish|jews|hindus?|buddhists?|catholics?|jehovah'?s\s+witness(?:es)?|mormons?|"
              r"christians?|evangelicals?|(?:greek\s+|russian\s+)?orthodox|irish\s+travell?ers?|travell?ers?(?=\s+and|\s*[,.;]|$)|roma|gypsies|gypsy")

FAMILY_RULES = {
    # A family's faith or origin (a special category of personal data): 阿依古丽家信伊斯兰教,
    # 林子涵家是回族, 要吃清真, 赶上斋月; "Rohan's family are Sikh", "his parents are Jehovah's
    # Witnesses", "she's fasting for Ramadan". A faith in a lesson has no family before it
    # (信仰伊斯兰教的国家, "Most people in Punjab are Sikh").
    "family_faith_or_origin": (
        rf"(?:(?<![国大专作画行玩农商皇儒道佛法名科学])家|家里|家人|全家|一家人?|父母|爸妈|爸爸|妈妈|父亲|母亲|他|她|孩子)\s*"
        rf"(?:都|也|一直|从小|世代|祖辈)?\s*(?:信|信仰|信奉|皈依|笃信|是)\s*(?:了)?\s*(?:虔诚的)?\s*(?:{_FAITHS_ZH}|{_ETHNIC_ZH})|"
        rf"(?<!是否)(?<!是不是)(?<![否是]需)(?:吃|要|只吃|只能吃|需要|要求)\s*清真|(?<!请)(?:封斋|把斋|守斋)|(?:赶上|正值|正在|在过|在守)\s*斋月|"
        rf"(?:\b(?:family|families|parents|mum|mom|dad|father|mother|he|she|they)|\bhe's|\bshe's|\bthey're)\s+"
        rf"(?:(?:is|are|was|were|'s|'re)\s+)?(?:all\s+|both\s+)?(?:(?:a|an|devout|practising|practicing|strict|"
        rf"observant|very)\s+)*(?:{_FAITHS_EN})\b|"
        rf"\b(?:he|she|they|he's|she's|they're|is|are)\s+(?:\w+\s+)?fasting\s+(?:for|during|in)\s+ramadan|"
        rf"\b(?:he|she|they|family|parents)\s+(?:only\s+)?(?:eats?|keeps?|needs?|has|have)\s+(?:only\s+)?(?:halal|kosher)\b",
        ["阿依古丽家信伊斯兰教，午餐注意清真", "林子涵家是回族", "钱多多家是耶和华见证人", "何子轩家里信伊斯兰教",
         "他斋月期间封斋", "Rohan's family are Sikh", "Mikey's family are Irish Travellers", "her parents are devout Catholics",
         "she's fasting for Ramadan this month", "he only eats halal"],
        ["信仰伊斯兰教的国家主要分布在西亚", "这个国家信仰佛教", "讲讲回族的传统节日", "Most people in Punjab are Sikh",
         "The RE unit covers Sikh festivals", "食堂设有清真窗口", "the family is going to Spain for half term",
         "halal options are on the canteen menu every day", "the school's Christian ethos", "是否需要清真餐"],
    ),
    # 家里欠了很多债, 家庭很困难, 家境贫寒, 爸爸还不起贷款
    "family_money": (
        r"欠[^，,。.;；]{0,5}债|(?:还|交|付|上|念|读)不起|(?<![大专国作画行玩农商])(?:家里|家境|家庭|家中|家)\s*"
        r"(?:的)?(?:条件|经济|情况|生活)?\s*(?:很|非常|特别|比较|十分|太)?\s*(?:困难|贫困|贫寒|拮据|穷|揭不开锅|没钱|负担重|差)",
        ["何静家里欠了很多债", "林峰家里很困难", "他家很穷", "蒋涛家里条件很差，交不起学费"],
        ["家庭作业很困难", "家长会在周五", "大家很困难地完成了任务"],
    ),
    # 坐了牢, 进了看守所, 被警察抓走
    "family_custody": (
        r"坐(?:了|过)\s*(?:\d+\s*年)?\s*牢|(?:进|关进|蹲)了?\s*(?:监狱|看守所|局子|少管所)|被(?:警察)?抓(?:走|了)|劳改|"
        r"判了\s*\d+\s*年",
        ["曹阳爸爸因为诈骗坐了牢", "他舅舅进了看守所"],
        ["坐在教室前排", "抓了一把糖"],
    ),
    # violence at home said in words, not by the term 家暴: 他爸喝了酒就打他, "his stepdad hits him"
    "family_violence": (
        r"(?:爸爸?|妈妈?|父亲|母亲|继父|继母|后爸|后妈|爷爷|奶奶|舅舅|叔叔|男朋友)[^，,。.;；!！?？]{0,8}?"
        r"(?:打他|打她|打孩子|打骂|动手打|拿皮带|用皮带抽|往死里打|掐他|掐她)|"
        r"\b(?:step-?(?:dad|father|mum|mom|mother)|dad|father|mum|mom|mother|parents?|uncle|mum's\s+boyfriend|"
        r"mom's\s+boyfriend)\s+(?:\w+\s+)?(?:hits|hit|beats|beat|punches|punched|slaps|slapped|kicks|kicked|hurts|"
        r"chokes|choked|belts|whips)\s+(?:him|her|them|me)\b",
        ["周雨轩说他爸喝了酒就打他", "黄晓妍继父经常打骂她", "Kevin told me his stepdad hits him when he's drunk",
         "Ava says her mum's boyfriend slapped her"],
        ["打他一个措手不及", "爸爸打球很厉害", "the batter hit him with the ball", "my dad hits the gym daily"],
    ),
    # a parent gone from home, said in words: "his wife has left", "her dad walked out", 妈妈离家出走了
    "family_parent_left": (
        r"(?:\b(?:his|her|their)|'s)\s+(?:wife|husband|partner|mum|mom|mother|dad|father)\s+(?:has\s+|had\s+)?"
        r"(?:left\b(?!\s+(?:for|to|the|early|late|at|a|an|his|her|their|its|it|them|us|me|my|our|school|home|work|in|on|"
        r"after|before|with|this|that|some|by|from|already|again|yet)\b)|walked\s+out\b|moved\s+out\b)|"
        r"(?:爸爸?|妈妈?|父亲|母亲)\s*(?:已经|早就|去年|前年)?\s*(?:离家出走|抛下|丢下)(?:了|他们|他|她|孩子)",
        ["Ring Mr Duffy — his wife has left and he's asked if Erin can stay late", "her dad walked out in March",
         "Tom's mum has moved out", "她妈妈离家出走了", "他爸爸早就丢下他们了"],
        ["her mum has left for work", "his dad left the keys at reception", "her mum left early",
         "his mum left a message", "their dad has left already", "妈妈不要他玩手机"],
    ),
    # raised by grandparents or relatives, parents seldom home
    "family_left_behind": (
        r"(?:跟|和|由)(?:着)?\s*(?:爷爷|奶奶|外公|外婆|姥姥|姥爷|祖父母|外祖父母|亲戚|叔叔|舅舅|姑姑|姨妈|伯伯)[^，,。.;；]{0,6}?"
        r"(?:生活|住|长大|抚养|带大|照顾)|(?:父母|爸妈|爸爸|妈妈)\s*(?:很少|不常|从不|几年没|好几年没|一年才|过年才)\s*回",
        ["侯佳跟着爷爷奶奶生活，父母很少回来", "他由外婆抚养"],
        ["周末和爷爷奶奶去公园", "跟叔叔学下棋"],
    ),
}
