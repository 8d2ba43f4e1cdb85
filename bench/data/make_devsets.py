"""Deterministic generator of the recall dev sets (bench/data/recall_dev_zh.jsonl, recall_dev_en.jsonl).

    python bench/data/make_devsets.py          # rewrites both files

Hand-written vocabulary per teacher (topics, their paraphrases, concrete details, the kinds of
artifacts that teacher asks for) and many phrasings per artifact kind and per query style,
combined with a fixed seed. Relevance labels are not guessed: a query is generated from a
specification (topic, kind, and optionally class / version), and `relevant` is every memory of
that user that matches the specification. Nothing here is derived from any public benchmark.
Plain Python, no dependencies.
"""

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------------------------
# Chinese
# ---------------------------------------------------------------------------------------------

# topic: (name, [paraphrases that avoid the name], [concrete details])
ZH_TEACHERS = [
    {
        "user": "zh-t1", "subject": "数据结构", "classes": ["高一3班", "高一5班", "高二1班"],
        "kinds": ["quiz", "exam", "lesson", "slides", "homework", "review", "lab_cs"],
        "topics": [
            ("链表", ["单向结点串起来那一章", "指针next那部分", "结点插入删除那块"], ["头插法与尾插法", "删除倒数第k个结点", "快慢指针判环", "链表反转"]),
            ("栈", ["后进先出那个结构", "括号匹配那课", "push/pop那节"], ["括号匹配", "表达式求值", "单调栈", "用数组模拟"]),
            ("队列", ["先进先出那节", "循环数组那块", "排队模型那课"], ["循环队列判满", "双端队列", "用两个栈实现", "银行排队模拟"]),
            ("二叉树", ["前中后序那章", "左右孩子那部分", "递归遍历那节"], ["前中后序遍历", "层序遍历", "求树高", "由遍历序列还原"]),
            ("二叉搜索树", ["BST", "左小右大的那种树", "有序树查找那节"], ["插入与查找", "删除有两个孩子的结点", "中序有序性", "退化成链的情况"]),
            ("堆", ["优先队列那课", "大根小根那部分", "上浮下沉那节"], ["建堆O(n)", "堆排序", "TopK问题", "上浮与下沉"]),
            ("哈希表", ["散列那章", "hash冲突那节", "键值映射那部分"], ["开放定址法", "拉链法", "装载因子", "字符串哈希"]),
            ("图的遍历", ["BFS和DFS那章", "深搜广搜", "邻接表走图那课"], ["邻接矩阵与邻接表", "BFS求最短步数", "DFS连通块", "迷宫问题"]),
            ("最短路径", ["Dijkstra那节", "单源最短路", "带权图找最近那课"], ["Dijkstra", "Floyd", "负权边为何不行", "路径还原"]),
            ("排序算法", ["冒泡快排那一章", "各种sort比较", "排序那单元"], ["冒泡与选择", "快速排序划分", "归并排序", "稳定性比较"]),
            ("递归", ["函数自己调自己那节", "汉诺塔那课", "递归出口那部分"], ["汉诺塔", "斐波那契", "递归树与复杂度", "尾递归"]),
            ("时间复杂度", ["大O那章", "算法效率分析", "复杂度估算那节"], ["大O记号", "循环嵌套分析", "均摊分析", "常见复杂度比较"]),
            ("并查集", ["union-find", "合并查找集合那课", "朋友圈问题那节"], ["路径压缩", "按秩合并", "连通分量计数", "朋友圈问题"]),
            ("动态规划", ["DP那章", "状态转移那部分", "填表法那课"], ["爬楼梯", "背包问题", "最长公共子序列", "状态设计"]),
        ],
        "neg_topics": ["红黑树", "KMP字符串匹配", "B树", "线段树", "拓扑排序", "最小生成树", "跳表", "AVL旋转"],
    },
    {
        "user": "zh-t2", "subject": "高中数学", "classes": ["高一2班", "高一7班"],
        "kinds": ["quiz", "exam", "lesson", "slides", "homework", "review", "feedback"],
        "topics": [
            ("集合", ["交并补那章", "韦恩图那块", "元素与集合关系"], ["集合的表示", "交集并集补集", "韦恩图", "含参集合问题"]),
            ("函数单调性", ["增减性那节", "函数增减那课", "单调区间那部分"], ["定义法证明", "复合函数单调性", "含参单调区间", "图像判断"]),
            ("指数函数", ["a的x次方那章", "底数大于1那块", "指数增长那节"], ["图像与性质", "比较大小", "指数方程", "实际增长模型"]),
            ("对数函数", ["log那章", "换底公式那节", "对数运算那部分"], ["对数运算法则", "换底公式", "图像与定义域", "对数不等式"]),
            ("三角函数", ["正弦余弦那章", "sin cos那块", "角的弧度制那节"], ["弧度制", "诱导公式", "图像变换", "周期与最值"]),
            ("平面向量", ["向量那章", "数量积那节", "箭头那部分"], ["线性运算", "数量积", "坐标表示", "夹角与垂直"]),
            ("数列", ["等差等比那章", "通项求和那块", "an那部分"], ["等差数列", "等比数列", "错位相减", "裂项求和"]),
            ("不等式", ["基本不等式那节", "均值不等式", "一元二次不等式那课"], ["一元二次不等式", "基本不等式求最值", "含参讨论", "恒成立问题"]),
            ("导数", ["求导那章", "切线斜率那节", "极值最值那块"], ["导数几何意义", "求单调区间", "极值与最值", "恒成立与参数"]),
            ("立体几何", ["空间几何那章", "线面关系那块", "三视图那节"], ["线面平行", "线面垂直", "三视图", "体积计算"]),
            ("概率", ["古典概型那章", "掷骰子那节", "随机事件那部分"], ["古典概型", "互斥与对立", "几何概型", "频率估计概率"]),
            ("解三角形", ["正弦定理余弦定理", "三角形边角那节", "测量问题那课"], ["正弦定理", "余弦定理", "面积公式", "实际测量"]),
            ("函数零点", ["零点存在那节", "二分法那课", "方程根的分布"], ["零点存在定理", "二分法", "根的分布", "数形结合"]),
        ],
        "neg_topics": ["圆锥曲线", "复数", "排列组合", "二项式定理", "统计回归", "椭圆", "空间向量", "数学归纳法"],
    },
    {
        "user": "zh-t3", "subject": "初中语文", "classes": ["初一4班", "初一6班"],
        "kinds": ["quiz", "lesson", "slides", "homework", "feedback", "writing", "review"],
        "topics": [
            ("《春》", ["朱自清写春天那篇", "春草春花那课", "盼望着盼望着那篇"], ["比喻拟人", "春花图与春雨图", "朗读节奏", "结构梳理"]),
            ("《济南的冬天》", ["老舍写济南那篇", "小山摇篮那课", "温晴冬天那篇"], ["拟人手法", "对比写法", "景物特点", "语言品味"]),
            ("《论语》十二章", ["孔子语录那课", "学而时习之那篇", "论语那几则"], ["重点实词", "成语积累", "学习方法", "背诵默写"]),
            ("《狼》", ["蒲松龄那篇", "屠户遇狼那课", "聊斋那篇文言"], ["文言翻译", "情节梳理", "一词多义", "寓意理解"]),
            ("《背影》", ["朱自清写父亲那篇", "买橘子那课", "父亲爬月台那篇"], ["细节描写", "父爱主题", "四次流泪", "朴实语言"]),
            ("《从百草园到三味书屋》", ["鲁迅童年那篇", "百草园那课", "三味书屋那篇"], ["景物描写", "对比结构", "雪地捕鸟", "童年情趣"]),
            ("文言虚词", ["之乎者也那块", "虚词用法那节", "而以其之那部分"], ["之的用法", "而的用法", "以的用法", "其的用法"]),
            ("记叙文写作", ["写人记事作文", "叙事作文那块", "作文六要素那节"], ["六要素", "细节描写", "详略安排", "开头结尾"]),
            ("病句修改", ["改病句那块", "语病那节", "句子毛病那部分"], ["成分残缺", "搭配不当", "语序不当", "不合逻辑"]),
            ("古诗四首", ["观沧海那几首", "几首古诗那课", "次北固山下那组"], ["意象分析", "情感把握", "名句默写", "炼字赏析"]),
            ("名著导读《朝花夕拾》", ["鲁迅散文集那次导读", "名著阅读那块", "朝花那本"], ["篇目梳理", "人物形象", "阅读任务单", "读书笔记"]),
            ("说明文阅读", ["说明方法那块", "说明文那单元", "说明顺序那节"], ["说明方法", "说明顺序", "语言准确性", "说明对象"]),
            ("现代诗朗诵", ["诗歌朗读那块", "朗诵比赛那节", "读诗那课"], ["停连重音", "节奏语调", "情感处理", "朗诵评分"]),
        ],
        "neg_topics": ["《岳阳楼记》", "《桃花源记》", "议论文写作", "《藤野先生》", "对联", "《西游记》导读", "新闻写作", "《出师表》"],
    },
    {
        "user": "zh-t4", "subject": "高中物理", "classes": ["高二4班", "高二8班"],
        "kinds": ["quiz", "exam", "lesson", "slides", "homework", "lab", "review"],
        "topics": [
            ("牛顿第二定律", ["F=ma那章", "力和加速度那节", "受力分析求加速度那块"], ["连接体问题", "瞬时加速度", "超重失重", "斜面模型"]),
            ("匀变速直线运动", ["v-t图像那章", "加速度公式那节", "追及相遇那块"], ["位移公式", "v-t图像", "追及相遇", "自由落体"]),
            ("摩擦力", ["静摩擦滑动摩擦那节", "粗糙面那课", "摩擦方向判断"], ["静摩擦方向", "动摩擦因数", "叠放物块", "传送带"]),
            ("圆周运动", ["向心力那章", "转圈那节", "离心那部分"], ["向心加速度", "竖直面圆周", "汽车过拱桥", "圆锥摆"]),
            ("万有引力", ["天体运动那章", "卫星那节", "开普勒那块"], ["开普勒定律", "卫星变轨", "第一宇宙速度", "天体质量计算"]),
            ("机械能守恒", ["动能势能转化那章", "能量守恒那节", "功能关系那块"], ["守恒条件", "动能定理", "弹簧模型", "功能关系"]),
            ("动量守恒", ["碰撞那章", "冲量那节", "反冲那部分"], ["动量定理", "弹性碰撞", "子弹打木块", "反冲运动"]),
            ("电场", ["库仑力那章", "电场线那节", "电势那块"], ["库仑定律", "电场强度叠加", "电势与电势能", "带电粒子偏转"]),
            ("恒定电流", ["欧姆定律那章", "电路那节", "闭合电路那块"], ["闭合电路欧姆定律", "电表改装", "动态电路", "伏安法测电阻"]),
            ("磁场", ["洛伦兹力那章", "安培力那节", "磁感线那块"], ["安培力", "洛伦兹力", "带电粒子圆周", "磁场边界问题"]),
            ("电磁感应", ["楞次定律那章", "感应电流那节", "切割磁感线那块"], ["楞次定律", "法拉第定律", "导体棒切割", "自感"]),
            ("机械振动", ["单摆那章", "简谐运动那节", "弹簧振子那块"], ["简谐运动", "单摆周期", "受迫振动", "振动图像"]),
            ("平抛运动", ["水平抛出那节", "抛体那章", "类平抛那块"], ["分解思想", "落点与时间", "斜面平抛", "类平抛"]),
        ],
        "neg_topics": ["光的折射", "热力学第一定律", "交变电流", "原子核衰变", "光电效应", "气体实验定律", "多普勒效应", "相对论"],
    },
    {
        "user": "zh-t5", "subject": "班主任工作", "classes": ["初二3班", "初二年级"],
        "kinds": ["meeting", "notice", "speech", "plan", "summary", "survey"],
        "topics": [
            ("手机管理", ["带手机那件事", "电子产品那块", "手机收纳那次"], ["手机统一保管", "周末使用约定", "家校配合", "违规处理办法"]),
            ("期中考试动员", ["考前动员那次", "期中前打气", "复习动员那回"], ["复习计划", "考试心态", "诚信考试", "目标设定"]),
            ("运动会", ["秋季运动会那事", "田径赛那次", "入场式那块"], ["报名安排", "入场式", "后勤分工", "安全提醒"]),
            ("防溺水安全教育", ["游泳安全那次", "水边安全那事", "防溺水那回"], ["六不准", "家长告知书", "案例讨论", "签字回执"]),
            ("文明宿舍评比", ["寝室评比那事", "宿舍卫生那块", "内务检查那次"], ["评分细则", "每周检查", "流动红旗", "整改反馈"]),
            ("家长会", ["和家长见面那次", "家长座谈那回", "开家长会那事"], ["班级情况汇报", "学习习惯", "家校沟通方式", "青春期话题"]),
            ("心理健康周", ["心理活动周那次", "减压那次活动", "情绪管理那回"], ["情绪管理", "压力释放", "同伴互助", "心理委员培训"]),
            ("班干部竞选", ["选班委那次", "竞选班干部那事", "班委换届那回"], ["竞选流程", "演讲要求", "投票办法", "职责分工"]),
            ("秋季研学", ["研学旅行那次", "外出参观那事", "博物馆研学那回"], ["行程安排", "分组与安全", "研学任务单", "费用说明"]),
            ("值日与卫生", ["打扫卫生那块", "值日安排那事", "教室卫生那次"], ["值日表", "包干区", "检查评分", "轮换办法"]),
            ("网络安全教育", ["防网络诈骗那次", "上网安全那回", "网络沉迷那块"], ["防诈骗", "个人信息保护", "游戏沉迷", "网络文明"]),
            ("学习方法分享", ["学习经验交流那次", "学霸分享那回", "学法指导那块"], ["错题本", "时间管理", "预习复习", "小组互助"]),
            ("元旦联欢", ["新年晚会那事", "元旦活动那次", "联欢会那回"], ["节目征集", "场地布置", "经费预算", "流程串词"]),
        ],
        "neg_topics": ["消防演练", "禁毒教育", "毕业典礼", "校园欺凌", "春游", "劳动周", "青春期讲座", "读书节"],
    },
]

ZH_KIND_WORDS = {  # words a teacher uses for each artifact kind (first = canonical)
    "quiz": ["小测", "随堂测验", "quiz", "小测验", "随堂小卷子"],
    "exam": ["单元测试卷", "单元卷", "试卷", "卷子", "测试卷"],
    "lesson": ["教案", "教学设计", "备课稿"],
    "slides": ["课件", "PPT", "幻灯片"],
    "homework": ["作业", "课后练习", "练习题", "分层作业"],
    "review": ["讲评稿", "错题讲评", "讲评课材料"],
    "feedback": ["整体反馈", "评语", "反馈意见"],
    "writing": ["作文题", "写作任务单", "作文指导"],
    "lab": ["实验方案", "实验指导书", "实验报告模板"],
    "lab_cs": ["上机实验", "编程练习", "OJ题单"],
    "meeting": ["主题班会方案", "班会课设计", "班会方案"],
    "notice": ["家长通知", "致家长的一封信", "群通知"],
    "speech": ["发言稿", "讲话稿", "讲稿"],
    "plan": ["活动方案", "策划案", "安排表"],
    "summary": ["工作总结", "小结", "总结材料"],
    "survey": ["调查问卷", "问卷", "意见征集表"],
}

ZH_VERS = {
    "quiz": ["A卷", "B卷", "基础版", "提高版"], "exam": ["A卷", "B卷"], "homework": ["基础层", "提高层"],
    "lesson": ["第一课时", "第二课时"], "slides": ["第一课时", "第二课时"], "review": ["第一次", "第二次"],
    "feedback": ["第一次", "第二次"], "writing": ["第一次", "第二次"], "lab": ["分组版", "演示版"],
    "lab_cs": ["第一周", "第二周"], "meeting": ["第一次", "第二次"], "notice": ["第一版", "正式版"],
    "speech": ["长版", "精简版"], "plan": ["初稿", "定稿"], "summary": ["月度", "阶段"], "survey": ["学生版", "家长版"],
}

DIFFS = ["基础", "中等", "中等偏上", "偏难", "拔高"]
FMTS = ["Word", "PDF", "A3双面", "A4单面", "Markdown"]
EXTRAS = ["答案单独放在最后一页", "题目按难度递增排列", "最后一题设为选做", "每题标注分值", "附评分细则",
          "留出作答空白", "页眉写上班级和日期", "选择题选项打乱顺序", "附一页易错点提示", "控制在一页纸以内"]


def zh_date(d):
    return f"{d.month}月{d.day}日"


def qmix(rng, n):
    a = max(1, n // 2 + rng.randint(-1, 1))
    b = max(0, (n - a) // 2)
    c = n - a - b
    parts = [f"选择题{a}道"]
    if b:
        parts.append(f"填空题{b}道")
    if c:
        parts.append(f"解答题{c}道")
    return "、".join(parts)


def zh_memory_text(rng, t, topic, kind, cls, ver, ts):
    """Return (input, summary, kind_word) for one memory."""
    name, aliases, details = topic
    d1, d2 = rng.sample(details, 2)
    n = rng.choice([5, 6, 8, 10, 12, 15, 20])
    mins = rng.choice([10, 15, 20, 25, 40, 45])
    diff = rng.choice(DIFFS)
    fmt = rng.choice(FMTS)
    extra = rng.choice(EXTRAS)
    kw = rng.choice(ZH_KIND_WORDS[kind])
    v = f"（{ver}）" if ver else ""
    vs = f"这次要{ver}。" if ver else ""
    vc = f"，{ver}" if ver else ""
    due = zh_date(ts + timedelta(days=rng.randint(1, 6)))
    subj = t["subject"]
    I = {
        "quiz": [
            f"帮我给{cls}出一份{name}的{kw}{v}，{n}道题，{mins}分钟做完，难度{diff}。",
            f"{cls}这周讲完{name}了，想搞个{kw}检查一下，重点考{d1}和{d2}。{vs}",
            f"能不能出一个{name}的{kw}？{n}题左右，{cls}基础一般，难度{diff}就行。{vs}",
            f"明天{cls}第一节要测{name}，帮我准备{n}道题，要附答案。{v}",
            f"{name}学完了，{cls}需要一个{mins}分钟的{kw}{v}，侧重{d1}。",
        ],
        "exam": [
            f"{name}单元结束了，帮我给{cls}组一份{kw}{v}，满分100，90分钟。",
            f"出一套{name}的{kw}{v}，{cls}用，难度{diff}，{due}要印。",
            f"教研组让每个班做{name}单元检测，{cls}的{kw}{v}麻烦你先出个初稿。",
            f"我要一份{name}的{kw}，{cls}，题量跟期中差不多，{vs}考{d1}多一点。",
        ],
        "lesson": [
            f"帮我写{name}的{kw}{v}，{cls}用，45分钟一节课。",
            f"下周{cls}上{name}，{kw}{v}帮我设计一下，想突出{d1}。",
            f"{name}这节课我想换个上法，写一份{kw}{v}，{cls}学生比较活跃。",
            f"给我一份{name}{kw}{v}的框架，要有导入、新授、练习、小结，{cls}。",
        ],
        "slides": [
            f"做一份{name}的{kw}{v}，{cls}上课用，大概15页。",
            f"{name}那节课的{kw}帮我做一下{v}，要有{d1}的例子，{cls}。",
            f"我需要{name}的{kw}{v}，配合{cls}的教案，图多字少。",
            f"{cls}公开课讲{name}，{kw}{v}帮我弄得好看一点。",
        ],
        "homework": [
            f"给{cls}布置{name}的{kw}{v}，{n}道题，半小时能写完。",
            f"{name}讲完了，帮我出一份{kw}{v}，分基础和提高两部分，{cls}。",
            f"{cls}今晚的{kw}{v}，内容是{name}，侧重{d1}，不要太多。",
            f"周末{kw}：{name}，{cls}，题量{n}题左右。{vs}",
        ],
        "review": [
            f"{cls}{name}那次测完了，帮我准备一份{kw}{v}，错得多的是{d1}。",
            f"{name}的测验批完了，{cls}普遍{d1}出问题，写个{kw}{v}。",
            f"帮我把{cls}{name}测验的典型错误整理成{kw}{v}，一节课讲完。",
        ],
        "feedback": [
            f"{cls}这次{name}的作业交上来了，帮我写一段给全班的{kw}{v}，不点名。",
            f"想在班群里发一段{name}学习情况的{kw}{v}，{cls}，语气鼓励为主。",
            f"{cls}{name}单元学完，写一段{kw}{v}，说说共性问题和改进建议。",
        ],
        "writing": [
            f"结合{name}给{cls}出一个{kw}{v}，600字左右。",
            f"学完{name}，想让{cls}练一次写作，帮我设计{kw}{v}，侧重{d1}。",
            f"{cls}下周作文课，围绕{name}出{kw}{v}，附评分标准。",
        ],
        "lab": [
            f"{name}的{kw}{v}帮我写一下，{cls}下周进实验室。",
            f"{cls}要做{name}相关的实验，{kw}{v}，器材尽量用现有的。",
            f"帮我设计{name}的{kw}{v}，{cls}，4人一组，40分钟。",
        ],
        "lab_cs": [
            f"{cls}机房课练{name}，帮我出一份{kw}{v}，{n}道题，用Python。",
            f"{name}讲完了，{cls}上机要做{kw}{v}，题目要能在OJ上自动判。",
            f"给{cls}准备{name}的{kw}{v}，从易到难，{n}题。",
        ],
        "meeting": [
            f"下周一班会课主题是{name}，帮我写个{kw}{v}，{cls}，40分钟。",
            f"{cls}想开一次{name}的班会，{kw}{v}帮我设计，要有学生互动。",
            f"{name}这个主题班会我想让学生自己主持，{kw}{v}怎么写？{cls}。",
        ],
        "notice": [
            f"关于{name}，帮我写一份{kw}{v}发给{cls}家长，说清楚{d1}。",
            f"{cls}家长群要发{name}的{kw}{v}，简短点，{due}前需要回执。",
            f"帮我起草{name}的{kw}{v}，对象是{cls}家长，语气客气些。",
        ],
        "speech": [
            f"{name}上我要讲几分钟，帮我写个{kw}{v}，面向{cls}。",
            f"帮我准备{name}的{kw}{v}，大约5分钟，{cls}，重点讲{d1}。",
            f"{cls}{name}需要我发言，{kw}{v}帮我写一下，别太官腔。",
        ],
        "plan": [
            f"{name}的{kw}{v}帮我做一下，{cls}，{due}之前要交给德育处。",
            f"{cls}要搞{name}，帮我出一份{kw}{v}，包括分工和时间。",
            f"帮我把{name}整理成{kw}{v}，{cls}，写清{d1}和{d2}。",
        ],
        "summary": [
            f"{name}结束了，帮我写一份{kw}{v}，{cls}，交学校存档。",
            f"{cls}这阵子{name}做了不少事，整理成{kw}{v}，800字左右。",
            f"写一份{name}的{kw}{v}，{cls}，要有成效和不足。",
        ],
        "survey": [
            f"想了解{cls}在{name}方面的情况，帮我设计一份{kw}{v}，10题以内。",
            f"{name}做个{kw}{v}吧，{cls}，用问卷星发。",
            f"帮我出一份{name}的{kw}{v}，对象{cls}，匿名填写。",
        ],
    }
    S = {
        "quiz": [
            f"为{cls}出了{name}{kw}{v}：{qmix(rng, n)}，限时{mins}分钟，难度{diff}，覆盖{d1}、{d2}；{extra}。",
            f"生成{name}随堂小测一份（{cls}{vc}），共{n}题，重点考查{d1}，附答案。老师要求{extra}。",
            f"{name}小测已完成：{n}题，约{mins}分钟，{cls}使用，难度定为{diff}，导出{fmt}。",
        ],
        "exam": [
            f"组好{name}单元卷{v}（{cls}）：满分100分，90分钟，{qmix(rng, 22)}，难度{diff}，压轴题考{d1}；导出{fmt}。",
            f"给{cls}出了{name}{kw}{v}，共22题，{d1}和{d2}各占约三成，{extra}，计划{due}印刷。",
        ],
        "lesson": [
            f"写好{name}{kw}{v}（{cls}，45分钟）：导入用生活情境，新授讲{d1}，随堂练习3题，小结与作业；重点难点为{d2}。",
            f"完成{name}教学设计{v}，{cls}，流程为情境导入—探究{d1}—例题—变式—小结，安排一次4人小组讨论。",
            f"{name}{kw}{v}已出：教学目标三条，重点{d1}、难点{d2}，附板书设计，{cls}使用。",
        ],
        "slides": [
            f"做了{name}{kw}{v}，共{rng.randint(12, 22)}页，{cls}用，包含{d1}的例题和课堂小结页，{rng.choice(['PPTX', 'PDF', '16:9宽屏'])}格式。",
            f"{name}PPT{v}完成：封面+目标+{d1}讲解+{d2}例题+练习+小结，{cls}，配图为主。",
        ],
        "homework": [
            f"给{cls}出了{name}{kw}{v}：{n}题，预计30分钟，基础题{max(1, n - 3)}道、提高题3道，侧重{d1}，{extra}。",
            f"{name}课后练习{v}已生成，{cls}，{n}题，难度{diff}，附参考答案，{due}收。",
        ],
        "review": [
            f"整理了{cls}{name}测验的{kw}{v}：错误集中在{d1}和{d2}，每类配一道变式题，一课时讲完。",
            f"{name}讲评材料{v}完成，{cls}，列出5类典型错误，重点讲{d1}，附订正作业。",
        ],
        "feedback": [
            f"写了给{cls}全班的{name}{kw}{v}：肯定进步，指出{d1}普遍薄弱，建议多练{d2}，不点名，语气鼓励。",
            f"{name}学习情况反馈{v}（{cls}）已写好，约300字，适合发班级群。",
        ],
        "writing": [
            f"为{cls}设计了与{name}相关的{kw}{v}：题目两选一，600字，训练{d1}，附四档评分标准。",
            f"{name}写作任务{v}已出，{cls}，要求运用{d1}，课堂写作45分钟。",
        ],
        "lab": [
            f"写了{name}{kw}{v}（{cls}）：目的、器材、步骤、数据表格、误差分析，4人一组，涉及{d1}。",
            f"{name}实验方案{v}完成，{cls}，40分钟，器材用实验室现有的，最后讨论{d2}。",
        ],
        "lab_cs": [
            f"为{cls}出了{name}{kw}{v}：{n}题，由易到难，涉及{d1}、{d2}，每题给样例和测试数据，Python实现。",
            f"{name}上机题单{v}完成，{cls}，{n}题，可在OJ自动评测，最后一题考{d1}。",
        ],
        "meeting": [
            f"设计了{cls}{name}{kw}{v}：40分钟，情境导入、小组讨论{d1}、学生分享、班主任小结，最后形成班级约定。",
            f"{name}班会方案{v}完成，{cls}，学生主持，包括{d1}和{d2}两个环节。",
        ],
        "notice": [
            f"起草了{name}{kw}{v}，对象{cls}家长，说明{d1}，请于{due}前回执。",
            f"{name}家长通知{v}已写好，{cls}，约250字，语气客气，附{d2}说明。",
        ],
        "speech": [
            f"写了{name}{kw}{v}，约5分钟，面向{cls}，讲{d1}和{d2}，结尾鼓励为主。",
            f"{name}发言稿{v}完成，{cls}，三段式：现状、要求、期望，约900字。",
        ],
        "plan": [
            f"完成{name}{kw}{v}（{cls}）：时间安排、人员分工、{d1}、{d2}，{due}交德育处。",
            f"{name}活动方案{v}出好了，{cls}，含预算和安全预案，重点是{d1}。",
        ],
        "summary": [
            f"写了{name}{kw}{v}，{cls}，约800字：做法、成效、不足与改进，提到{d1}。",
            f"{name}工作小结{v}完成，{cls}，重点总结{d1}和{d2}。",
        ],
        "survey": [
            f"设计了{name}{kw}{v}，对象{cls}，匿名，10道题，涉及{d1}、{d2}，可导入问卷星。",
            f"{name}问卷{v}出好了，{cls}，8道选择加2道开放题。",
        ],
    }
    return rng.choice(I[kind]), rng.choice(S[kind]), kw, [d1, d2]


ZH_ACTIONS = {
    "assess": ["答案再发我一份", "能不能再出一套难度差不多的", "最后两道太难了，换成简单点的", "改成A3排版，我要打印",
               "学生说第3题有歧义，帮我看看", "照着这个结构给另一个班也出一份，题目换掉一半", "选择题的解析写详细一点",
               "再加两道拔高题", "分值重新分配一下，凑满100", "做成两栏排版"],
    "lesson": ["导入部分换个更生活化的例子", "时间分配再调一下，40分钟不够", "加一个小组讨论环节", "教学反思帮我补一段",
               "板书设计简化一点", "教研组长说目标写得太空，改具体点"],
    "slides": ["字太多了，每页精简一下", "再加几页例题", "动画全去掉，教室电脑太卡", "配色换成学校模板的蓝色",
               "最后加一页课堂小结", "能不能导出成PDF"],
    "review": ["错题再按知识点归一下类", "改成一节课讲得完的长度", "每类错误再配一道练习"],
    "feedback": ["语气再温和一点", "再短一点，发家长群用", "加一句对下阶段的期望"],
    "writing": ["评分标准再细化一下", "再给两篇示范开头", "题目换一个更贴近生活的"],
    "lab": ["器材清单再核对一下", "数据记录表格改一下", "安全注意事项加几条"],
    "bzr": ["再精简一点", "改得口语化一些", "时间改到下周三", "加上安全注意事项", "格式改成学校要求的样式",
            "发家长群的版本再短一点", "帮我再润色一遍"],
}
ZH_KIND_GROUP = {"quiz": "assess", "exam": "assess", "homework": "assess", "lab_cs": "assess", "lesson": "lesson",
                 "slides": "slides", "review": "review", "feedback": "feedback", "writing": "writing", "lab": "lab",
                 "meeting": "bzr", "notice": "bzr", "speech": "bzr", "plan": "bzr", "summary": "bzr", "survey": "bzr"}
ZH_REFS = ["上次那份", "之前那个", "前几天做的", "你上回帮我弄的", "之前说的那个", "那次的", "我们之前做过的", ""]
ZH_FILLERS = [  # the utterance before the follow-up (teacher or assistant), pasted in front of / after it
    "好的，收到，谢谢。", "嗯，刚开完教研会回来，这会儿才有空。", "这周课有点多，事情一件接一件，你帮我盯着点。",
    "先不急，下周之前给我就行。", "上一版我看过了，整体没什么问题，就是细节还要再抠一抠。", "辛苦啦！",
    "我刚才在改作业，改得头昏眼花，现在终于有空了。", "学校下午临时通知要交材料，所以比较赶，麻烦你快一点。",
    "另外教务处那边说打印机周四才修好，所以电子版先给我。", "你先别管格式，内容对就行，格式我自己调。",
    "今天值周，中午才有时间看手机，回复慢了不好意思。", "年级组长也要看一下，所以要写得正式一点。",
    "下午第三节是我的课，我得先去准备一下，你先弄着。",
    "好的，已经按您的要求调整完了，页眉加上了班级和日期，如果还有需要修改的地方请随时告诉我。",
    "以上就是修改后的版本，主要改动在第二部分，删掉了两处重复的内容，您看看是否合适。",
    "我们年级这学期在搞集体备课，每周三下午都要交一份材料，我这周的还没交，所以有点着急。",
    "昨天跟备课组的老师聊了一下，大家觉得上一轮的东西难度偏高，学生反馈也不太好，想调整一下。",
    "刚才家长群里有人问起来，我才想起这件事，之前答应了这周内处理好的。",
    "这个学期马上过半了，很多东西要回头整理一遍，方便期末复习的时候直接拿来用。",
    "不好意思刚才被学生叫走了，我们接着说。", "嗯嗯，这个思路可以。", "对，就是这个意思，你理解得没错。",
]
ZH_CHITCHAT = ["今天天气真冷", "帮我润色一下这段话", "谢谢，辛苦了", "你好", "在吗", "明天几点提醒我开会",
               "把这句话翻译成英文", "给我讲个笑话放松一下", "帮我写个请假条", "周报怎么写比较好",
               "这段话有没有错别字", "你是谁", "帮我算一下这个月的课时", "推荐几本教育类的书",
               "教师节快乐", "帮我起个公众号标题", "怎么调Word的行距", "把这个表格转成文字"]

# simplified -> traditional, enough for the few traditional-script queries
S2T = dict(zip(
    "这个试题课们说发给还么习练测验时间学数级过对问样张实现会长讲评语写图树链队栈与历动态规划据结构录单复难简后帮变专业当应该钟节义运电"
    "较为内难册档边点两员导组层读书观诗词谁调换页页报纸释带机脑广关无总结问卷园鸟晚议师请开阅现岁轻"
    "话转递归并随讨环论贴细润进选择项标准类错误订识证乱记计设场费预览压协让谢独线维区径杂检验灯见馈头图尽么给气级产权",
    "這個試題課們說發給還麼習練測驗時間學數級過對問樣張實現會長講評語寫圖樹鏈隊棧與歷動態規劃據結構錄單複難簡後幫變專業當應該鐘節義運電"
    "較為內難冊檔邊點兩員導組層讀書觀詩詞誰調換頁頁報紙釋帶機腦廣關無總結問卷園鳥晚議師請開閱現歲輕"
    "話轉遞歸併隨討環論貼細潤進選擇項標準類錯誤訂識證亂記計設場費預覽壓協讓謝獨線維區徑雜檢驗燈見饋頭圖盡麼給氣級產權"))
ZH_TYPOS = [("试卷", "试券"), ("教案", "教按"), ("作业", "做业"), ("链表", "连表"), ("一下", "一吓"), ("答案", "答按"),
            ("课件", "课见"), ("那个", "拿个"), ("再", "在"), ("的", "得"), ("班会", "班汇"), ("已经", "以经")]


def to_trad(s):
    return "".join(S2T.get(c, c) for c in s)


# ---------------------------------------------------------------------------------------------
# English
# ---------------------------------------------------------------------------------------------

EN_TEACHERS = [
    {
        "user": "en-t1", "subject": "computer science", "classes": ["Period 2", "Period 5", "AP CS A"],
        "kinds": ["quiz", "test", "lesson", "slides", "homework", "lab"],
        "topics": [
            ("linked lists", ["the node-and-pointer unit", "that chapter on next pointers", "singly linked structures"], ["reversing a list", "inserting at the head", "detecting a cycle", "removing the k-th node"]),
            ("recursion", ["functions that call themselves", "the Towers of Hanoi unit", "base case stuff"], ["base cases", "Fibonacci", "recursion trees", "Towers of Hanoi"]),
            ("sorting algorithms", ["bubble/merge sort unit", "the sort comparison stuff", "ordering arrays"], ["bubble sort", "merge sort", "quicksort partitioning", "stability"]),
            ("binary search", ["halving search", "the search-a-sorted-array lesson", "log n lookup"], ["off-by-one bugs", "lower bound", "searching rotated arrays", "loop invariants"]),
            ("hash maps", ["dictionaries unit", "key-value tables", "hashing lesson"], ["collisions", "load factor", "word counting", "chaining"]),
            ("stacks and queues", ["LIFO/FIFO unit", "push and pop lesson", "the bracket matching stuff"], ["bracket matching", "queue with two stacks", "undo history", "circular buffers"]),
            ("Big-O notation", ["complexity analysis", "runtime analysis unit", "growth rates lesson"], ["nested loops", "logarithmic time", "best vs worst case", "comparing growth rates"]),
            ("graph traversal", ["BFS/DFS unit", "walking a graph", "breadth-first and depth-first"], ["adjacency lists", "shortest path in steps", "connected components", "maze solving"]),
            ("object-oriented design", ["classes and objects unit", "OOP lesson", "inheritance stuff"], ["encapsulation", "inheritance", "interfaces", "UML diagrams"]),
            ("2D arrays", ["grids and matrices unit", "nested array lesson", "row-column stuff"], ["row-major traversal", "image filters", "tic-tac-toe boards", "transposing"]),
            ("binary trees", ["tree traversal unit", "left/right child lesson", "in-order pre-order stuff"], ["in-order traversal", "tree height", "BST insertion", "level-order traversal"]),
        ],
        "neg_topics": ["dynamic programming", "regular expressions", "SQL joins", "heaps", "tries", "networking basics", "binary numbers"],
    },
    {
        "user": "en-t2", "subject": "history", "classes": ["Grade 10A", "Grade 10C"],
        "kinds": ["quiz", "test", "lesson", "slides", "homework", "essay"],
        "topics": [
            ("the Industrial Revolution", ["factories and steam unit", "the textile mills lesson", "early industrialization"], ["steam power", "child labor", "urbanization", "the cotton trade"]),
            ("World War I", ["the Great War unit", "trench warfare lesson", "1914-1918"], ["causes of the war", "trench warfare", "the Treaty of Versailles", "alliances"]),
            ("the French Revolution", ["1789 unit", "the Bastille lesson", "revolutionary France"], ["the Estates-General", "the Terror", "Napoleon's rise", "Declaration of the Rights of Man"]),
            ("the Cold War", ["US-Soviet rivalry unit", "the iron curtain lesson", "superpower standoff"], ["the Berlin Wall", "the Cuban Missile Crisis", "containment", "the space race"]),
            ("the Renaissance", ["Italian city-states unit", "the Medici lesson", "rebirth of classical art"], ["humanism", "patronage", "the printing press", "Leonardo and Michelangelo"]),
            ("ancient Rome", ["Roman Republic unit", "the Caesar lesson", "SPQR stuff"], ["the Republic's institutions", "Julius Caesar", "fall of the Western Empire", "Roman roads"]),
            ("the Civil Rights Movement", ["the 1950s-60s freedom struggle", "the Montgomery lesson", "desegregation unit"], ["the Montgomery bus boycott", "Brown v. Board", "the March on Washington", "nonviolent protest"]),
            ("the Age of Exploration", ["voyages of discovery unit", "the Columbus lesson", "caravels and trade routes"], ["the Columbian Exchange", "Magellan", "spice trade", "navigation technology"]),
            ("imperialism in Africa", ["the Scramble unit", "the Berlin Conference lesson", "colonial Africa"], ["the Berlin Conference", "resistance movements", "economic motives", "map analysis"]),
            ("the Great Depression", ["the 1929 crash unit", "Dust Bowl lesson", "the New Deal stuff"], ["the stock market crash", "the Dust Bowl", "the New Deal", "unemployment data"]),
            ("the Reformation", ["Luther unit", "the 95 theses lesson", "Protestant split"], ["Martin Luther", "the printing press", "the Counter-Reformation", "religious wars"]),
        ],
        "neg_topics": ["the Meiji Restoration", "the Ottoman Empire", "the American Revolution", "the Mongol Empire", "decolonization in India", "the Crusades", "the Silk Road"],
    },
    {
        "user": "en-t3", "subject": "chemistry", "classes": ["Chem 1 Block A", "Chem 1 Block D"],
        "kinds": ["quiz", "test", "lesson", "slides", "homework", "lab"],
        "topics": [
            ("stoichiometry", ["mole ratio calculations", "the grams-to-moles unit", "limiting reagent stuff"], ["mole ratios", "limiting reagents", "percent yield", "molar mass"]),
            ("balancing equations", ["equation balancing", "the coefficients lesson", "conservation of mass practice"], ["coefficients", "combustion reactions", "redox balancing", "conservation of mass"]),
            ("the periodic table", ["periodic trends unit", "groups and periods lesson", "Mendeleev stuff"], ["atomic radius trends", "electronegativity", "ionization energy", "element families"]),
            ("chemical bonding", ["ionic vs covalent unit", "Lewis structure lesson", "electron sharing"], ["Lewis structures", "ionic bonds", "VSEPR shapes", "polarity"]),
            ("acids and bases", ["pH unit", "neutralization lesson", "indicator stuff"], ["pH scale", "titration", "indicators", "strong vs weak acids"]),
            ("gas laws", ["PV=nRT unit", "Boyle and Charles lesson", "pressure-volume stuff"], ["Boyle's law", "Charles's law", "ideal gas law", "partial pressures"]),
            ("reaction rates", ["kinetics unit", "catalyst lesson", "how fast reactions go"], ["collision theory", "catalysts", "temperature effect", "rate graphs"]),
            ("solutions and molarity", ["concentration unit", "dilution lesson", "mol per liter stuff"], ["molarity", "dilution", "solubility curves", "preparing solutions"]),
            ("atomic structure", ["protons and electrons unit", "electron configuration lesson", "isotopes stuff"], ["isotopes", "electron configuration", "Bohr model", "average atomic mass"]),
            ("thermochemistry", ["enthalpy unit", "calorimetry lesson", "heat of reaction"], ["calorimetry", "Hess's law", "endothermic vs exothermic", "specific heat"]),
            ("chemical equilibrium", ["Le Chatelier unit", "reversible reactions lesson", "equilibrium shifts"], ["Le Chatelier's principle", "equilibrium constant", "shifts with pressure", "ICE tables"]),
        ],
        "neg_topics": ["organic nomenclature", "nuclear chemistry", "electrochemistry", "polymers", "spectroscopy", "intermolecular forces", "entropy"],
    },
]

EN_KIND_WORDS = {
    "quiz": ["quiz", "pop quiz", "exit quiz", "short quiz"],
    "test": ["unit test", "test", "exam", "assessment"],
    "lesson": ["lesson plan", "plan for the lesson", "lesson outline"],
    "slides": ["slides", "slide deck", "PowerPoint", "deck"],
    "homework": ["homework", "worksheet", "practice set", "problem set"],
    "lab": ["lab handout", "lab", "lab worksheet"],
    "essay": ["essay prompt", "DBQ", "writing prompt"],
}
EN_VERS = {"quiz": ["version A", "version B"], "test": ["form A", "form B"], "homework": ["standard", "honors"],
           "lesson": ["day 1", "day 2"], "slides": ["day 1", "day 2"], "lab": ["first draft", "final"],
           "essay": ["first draft", "revised"]}
EN_ACTIONS = {
    "quiz": ["can you send me the answer key again", "make a second version with different numbers", "questions 4 and 5 were too hard, swap them for easier ones",
             "format it to fit on one page", "a student said question 3 is ambiguous, can you check", "add two challenge questions"],
    "test": ["I need the answer key", "can you make a makeup version", "rebalance the points so it adds to 100", "students said it was too long, trim it",
             "turn the short answers into multiple choice"],
    "lesson": ["swap the warm-up for something more hands-on", "timing is off, it runs over 50 minutes", "add a pair-share activity",
               "my department head wants clearer objectives", "add a differentiation section"],
    "slides": ["too much text, cut it down", "add a few worked examples", "remove the animations, the projector lags", "add a summary slide at the end", "export as PDF"],
    "homework": ["post the solutions", "make a shorter version", "add a couple of harder problems", "can you split it into two nights"],
    "lab": ["double-check the materials list", "the data table needs another column", "add more safety notes", "shorten the procedure"],
    "essay": ["tighten the rubric", "give me two sample thesis statements", "add a document about economic motives"],
}
EN_REFS = ["the", "that", "the one you made, the", "the last", "our earlier", "that old"]
EN_FILLERS = ["Thanks, that's great.", "OK got it.", "Just got out of a department meeting, sorry.", "No rush, end of the week is fine.",
              "I looked over the last draft and it's mostly fine, just a few details to fix.", "Busy week here, sorry for the slow reply.",
              "One more thing.", "I'm grading right now so keep it short.", "The copier is down until Thursday, so no hurry on printing.",
              "My co-teacher wants to see it too, so keep it tidy.", "Before I forget.", "Lunch duty today, I'll check back later.",
              "Here is the revised version: I moved the warm-up to the start and cut the second reading, let me know if anything else needs changing.",
              "Our department is doing common assessments this semester, so everything has to be aligned with the other sections.",
              "A parent emailed about this yesterday, which reminded me I promised to fix it this week.",
              "We're halfway through the semester and I want everything organized before finals review.",
              "Yes, that's exactly what I meant.", "Sorry, a student needed me. Back now."]
EN_CHITCHAT = ["thanks!", "hi there", "can you proofread this paragraph", "it's freezing today", "remind me about the staff meeting",
               "what's a good icebreaker", "help me write an out-of-office email", "tell me a joke", "how do I change line spacing in Word",
               "recommend a good book on classroom management", "are you there?", "write a polite reminder to my colleague"]
EN_TYPOS = [("quiz", "quzi"), ("the", "teh"), ("lesson", "leson"), ("answer", "anwser"), ("slides", "slieds"), ("worksheet", "workhseet"),
            ("again", "agian"), ("homework", "homwork")]


def art(phrase):
    """English indefinite article, or none for plurals/mass nouns."""
    first = phrase.split()[0].lower()
    if phrase.endswith("slides") or first in ("slides", "homework") or phrase.endswith("homework"):
        return phrase
    return ("an " if first[0] in "aeio" else "a ") + phrase


def en_memory_text(rng, t, topic, kind, cls, ver, ts):
    name, aliases, details = topic
    nb = bare(name)
    d1, d2 = rng.sample(details, 2)
    n = rng.choice([5, 6, 8, 10, 12, 15, 20])
    mins = rng.choice([10, 15, 20, 30, 45])
    kw = rng.choice(EN_KIND_WORDS[kind])
    v = f" ({ver})" if ver else ""
    due = ts + timedelta(days=rng.randint(1, 6))
    dues = due.strftime("%b %d").replace(" 0", " ")
    diff = rng.choice(["easy", "medium", "on-level", "challenging", "mixed"])
    I = {
        "quiz": [f"Make a {n}-question {kw}{v} on {name} for {cls}, about {mins} minutes.",
                 f"I need {art(kw)}{v} for {cls} tomorrow covering {name}, focus on {d1}.",
                 f"Can you write a quick {kw} on {name}? {cls} struggled with {d1}.{(' This is ' + ver + '.') if ver else ''}",
                 f"{cls} finishes {name} this week. Give me a {difficulty_word(diff)} {kw}{v}."],
        "test": [f"Put together {art(kw)}{v} on {name} for {cls}, 50 minutes, mix of multiple choice and free response.",
                 f"Unit's ending, I need the {nb} {kw}{v} for {cls} by {dues}.",
                 f"Draft {art(kw)}{v} covering {name} for {cls}; weight {d1} heavily."],
        "lesson": [f"Write {art(kw)}{v} for {name}, {cls}, 50-minute period.",
                   f"I'm teaching {name} to {cls} next week, can you plan the lesson{v}? Want to emphasize {d1}.",
                   f"Give me {art(kw)}{v} on {name} with a warm-up, direct instruction, practice and exit ticket, for {cls}."],
        "slides": [f"Make {art(kw)}{v} for {name}, {cls}, around 15 slides.",
                   f"I need {art(kw)}{v} on {name} with examples of {d1}, for {cls}.",
                   f"Can you build {art(kw)}{v} to go with my {nb} lesson for {cls}? Lots of visuals."],
        "homework": [f"Create {art(kw)}{v} on {name} for {cls}, {n} problems, 30 minutes max.",
                     f"{cls} needs {art(kw)}{v} tonight on {name}, focus on {d1}.",
                     f"Give me a weekend {kw}{v} on {name} for {cls}."],
        "lab": [f"Write {art(kw)}{v} on {name} for {cls}, groups of 3, one period.",
                f"{cls} has lab day next week on {name}; draft the {kw}{v} with what we have in the stockroom.",
                f"Design {art(kw)}{v} around {d1} ({name}) for {cls}."],
        "essay": [f"Write {art(kw)}{v} on {name} for {cls}, 800 words.",
                  f"I want {cls} to write about {name}; draft {art(kw)}{v} focusing on {d1}.",
                  f"Give me {art(kw)}{v} on {name} for {cls} with a rubric."],
    }
    S = {
        "quiz": [f"Wrote a {n}-question {nb} {kw}{v} for {cls}: {n - 2} multiple choice and 2 short answer, {mins} minutes, {diff} difficulty, focused on {d1} and {d2}; answer key at the end.",
                 f"Created {art(nb + ' quiz')}{v} for {cls} ({n} items, ~{mins} min) covering {d1}; teacher asked for it on one page."],
        "test": [f"Built the {nb} {kw}{v} for {cls}: 20 multiple choice, 3 free response, 100 points, 50 minutes; free response targets {d1}. Goes to print {dues}.",
                 f"Drafted {art(nb + ' unit test')}{v} for {cls}, {diff} overall, with sections on {d1} and {d2} and an answer key."],
        "lesson": [f"Planned a 50-minute {nb} lesson{v} for {cls}: warm-up, mini-lecture on {d1}, guided practice, pair work on {d2}, exit ticket.",
                   f"Wrote the {kw}{v} on {name} for {cls}: objectives, key vocabulary, activities and a differentiation note on {d1}."],
        "slides": [f"Made a {rng.choice([12, 13, 14, 15, 16, 17, 19, 20])}-slide {nb} deck{v} for {cls}: objectives, explanation of {d1}, two worked examples on {d2}, summary slide.",
                   f"Built {art(nb + ' ' + kw)}{v} for {cls}, visual-heavy, with a section on {d1}."],
        "homework": [f"Wrote {art(nb + ' ' + kw)}{v} for {cls}: {n} problems, about 30 minutes, mostly {d1} with two stretch problems on {d2}; solutions included.",
                     f"Created {nb} practice{v} for {cls}, {n} items, {diff}, due {dues}."],
        "lab": [f"Drafted the {nb} {kw}{v} for {cls}: purpose, materials, procedure, data table, analysis questions on {d1}; groups of 3.",
                f"Wrote a one-period lab{v} on {d1} ({name}) for {cls}, using stockroom materials, with safety notes."],
        "essay": [f"Wrote {art(nb + ' ' + kw)}{v} for {cls}: 800 words, must use three sources, focus on {d1}; 4-level rubric attached.",
                  f"Drafted {art(nb + ' writing prompt')}{v} for {cls} on {d1} vs {d2}, with a rubric."],
    }
    return rng.choice(I[kind]), rng.choice(S[kind]), kw, [d1, d2]


def difficulty_word(d):
    return {"easy": "quick, easy", "medium": "medium", "on-level": "standard", "challenging": "harder", "mixed": "mixed-difficulty"}[d]


# Hand-written memories of decisions and one-off requests (not artifacts of the templated kinds), each with a
# follow-up that needs it, plus hand-written negatives that sound like them but that the teacher never decided.
HAND = {
    "zh-t1": [
        ("链表这单元我们备课组讨论了，到底用C还是Python讲？", "商定：高一链表单元统一用Python讲，用类模拟结点，不讲C指针；C语言版本作为拓展材料放到选修课。", "我们之前定的，讲结点那部分用哪种语言来着？"),
        ("这学期小测太频繁了，学生有意见，帮我想个调整方案。", "决定从10月中旬起随堂小测改为每两周一次，每次不超过15分钟，成绩只作过程性记录不排名。", "小测频率那个事后来怎么定的？多久一次"),
        ("帮我给学校信息学兴趣小组写个招新海报文案。", "写了信息学兴趣小组招新文案：每周四下午第八节活动，面向高一，主打算法竞赛入门，报名截止9月20日。", "兴趣小组那个招人的文案改一下，活动改到周五了"),
        ("机房电脑装的是Python 3.8，有些新语法不能用，帮我整理一下要避开哪些。", "整理了Python 3.8不支持的写法：match-case、类型联合X|Y、内置泛型list[int]注解等不可用；已在上机题模板里替换。", "机房那个python版本的问题，哪些写法不能用来着"),
        ("帮我设计一个讲算法思想的开学第一课，不讲具体结构。", "开学第一课：用找教室、排队打饭等生活例子引出算法与效率，40分钟，最后留思考题：在图书馆怎么最快找到一本书。", "开学第一课那个找书的思考题，原话怎么说的"),
        ("图的遍历想让学生直观看到BFS和DFS的区别，有什么办法？", "决定用在线迷宫可视化动画对比BFS（一层层向外扩散）和DFS（一条路走到底），不用pygame自己写，课上先猜后看。", "对比BFS DFS那个动画，当时说不用pygame改用什么来着"),
        ("期中后想搞一次分组项目，帮我出几个选题。", "给出6个期中后分组项目选题：通讯录管理、迷宫求解、词频统计、地铁换乘查询、排行榜、撤销重做编辑器；3-4人一组，两周完成。", "有个学生问期中后那个小组project有哪几个题目可以选"),
    ],
    "zh-t2": [
        ("月考后想调整座位，分组做数学互助。", "制定数学互助小组方案：高一7班按4人异质分组，每组一名组长负责收错题本，每周五交流15分钟。", "7班那个互助小组是几个人一组来着"),
        ("备课组要我写一下本学期函数板块的教学进度。", "函数板块进度：9月集合与函数概念，10月指数与对数，11月三角函数前半；期中考到对数函数为止。", "期中考到哪一章？我们当时定的进度表里写的"),
        ("帮我整理一下高中数学常用的作图软件。", "推荐GeoGebra（函数图像、动态演示）和Desmos（课堂快速作图）；学校电脑已装GeoGebra经典版。", "画图像用的那个软件叫啥来着，学校装了的那个"),
        ("准备开一节数学文化拓展课。", "设计数学文化拓展课《从结绳计数到对数发明》：讲纳皮尔与对数的由来，配合计算尺实物演示，40分钟。", "讲纳皮尔的那节拓展课，计算尺还要准备吗"),
        ("错题本怎么要求学生写比较好？", "错题本规范：原题、错因（概念/计算/审题）、正解、同类题四栏，每周一收，每次抽查三分之一。", "错题本那几栏是哪几栏？我要打出来贴教室"),
        ("想搞个每日一题，帮我想想怎么安排。", "决定每天早读后投影一道每日一题，5分钟，10月起实施，难度中等，周五集中讲一次。", "每日一題是啥時候開始的，週幾講"),
    ],
    "zh-t3": [
        ("班里要开始每周摘抄，帮我定个规则。", "每周摘抄规则：每周至少摘抄3段，每段后写50字以上点评，周一交，优秀摘抄贴在班级文化墙。", "摘抄每段后面要写多少字点评？"),
        ("课前三分钟演讲想搞起来，怎么安排？", "课前三分钟演讲：按学号轮流，每节语文课一人，主题自选但要与读书相关，同学用三句话点评。", "上课前那个轮流上台讲话，按什么顺序来的"),
        ("给初一新生写一份语文学习建议。", "写了初一语文学习建议：每日阅读20分钟、积累本记好词好句、文言文课前朗读三遍、每周一篇随笔。", "给新生的那个学习建议，每天读书要求多少分钟"),
        ("学校读书月要推荐书目，帮我列一下。", "为初一推荐10本课外书，如《城南旧事》《草房子》《骆驼祥子》《昆虫记》，分必读3本、选读7本。", "推荐书单里必读的是哪三本"),
        ("想在班里搞一次成语接龙比赛。", "成语接龙比赛方案：分4组，每轮限时10秒，接错或重复淘汰，准备了120个成语的备用题库。", "成语那个比赛每轮限时几秒？"),
        ("学生字写得太乱，想开展练字活动。", "练字活动：每天午休前练字15分钟，统一用楷书字帖，每两周评一次书写之星。", "午休前练字那个，评比多久一次"),
    ],
    "zh-t4": [
        ("实验室打点计时器坏了好几个，测加速度的实验怎么办？", "决定用手机慢动作视频加刻度尺代替打点计时器测加速度，每组至少一部能拍240帧的手机。", "用手机拍视频代替那个计时器的办法，每组要几部手机"),
        ("物理竞赛辅导怎么安排？", "物理竞赛辅导：每周二、周四晚自习第二节，在物理实验室，先讲力学专题，11月底模拟赛。", "竞赛辅导是周几晚上，在哪个教室"),
        ("学生计算题老不写单位，怎么规范？", "计算题规范：每步带单位，结果用科学计数法保留两位有效数字，不写单位扣1分。", "计算题不写单位扣几分，我们定的规矩"),
        ("推荐一些物理科普视频给学生周末看。", "推荐5个物理科普视频系列，每集约10分钟，覆盖力学和电学，周末选看两集并写观后感。", "周末给学生看的那些科普视频，要不要写观后感"),
        ("想做个课堂演示用的自制教具。", "自制教具：用塑料瓶、气球和吸管做反冲小车演示动量守恒，材料成本不到10元。", "那个塑料瓶气球做的小车，演示的是哪个知识点来着"),
        ("帮我排一下期中物理复习计划。", "期中复习两周：第一周力学综合，第二周电场与电路；每天一道压轴题，周五限时训练45分钟。", "期中复习那两周，第二周复习什么"),
    ],
    "zh-t5": [
        ("班级公约需要重新修订一下。", "修订班级公约12条：早读7:20前到班、课间不追逐、午休保持安静、作业当天完成等，全班投票通过。", "班规那12条里，早上几点前要到教室"),
        ("想设置班级岗位，让每个人都有事做。", "设立人人有岗制度：共30个岗位，如电灯管理员、图书角管理员、绿植养护员，每月轮换一次。", "人人有岗那个多久换一次"),
        ("家校沟通用什么方式比较好？", "约定家校沟通方式：日常通知发班级群，个别情况电话联系，每月第一个周五下午为家长开放接待时间。", "家长来学校面谈是哪天？我们之前定的"),
        ("班级图书角怎么管理？", "图书角管理办法：每人捐书两本，借阅登记，一次最多借一本，两周内归还，图书管理员每周五盘点。", "图书角一次能借几本"),
        ("周末作业太多，学生反映累，怎么协调？", "与各科老师协商：周末书面作业总量控制在3小时内，由学习委员每周五统计各科布置情况。", "周末作业总量当时说控制在几个小时以内"),
        ("想搞个班级积分制。", "建立小组积分制：6人一组，纪律、卫生、作业、活动四项加减分，每月积分第一的小组可自选一次座位。", "积分第一名的组有什么奖励来着"),
    ],
    "en-t1": [
        ("Should we use Java or Python for the data structures unit?", "Decided: Periods 2 and 5 use Python for data structures; AP CS A stays in Java because of the exam.", "which language did we settle on for AP again?"),
        ("Help me set a late work policy for programming assignments.", "Late policy: 10% off per day, up to 3 days; one free 48-hour extension per quarter.", "how many free extensions do kids get each quarter?"),
        ("I want rules for pair programming.", "Pair programming: driver and navigator swap every 15 minutes, pairs rotate every two weeks, both names on the commit.", "how often do partners switch roles at the keyboard?"),
        ("Make a flyer for the coding club.", "Wrote the coding club flyer: Wednesdays after school in room 214, beginners welcome, first meeting Sept 17.", "what room is the club in again? I need to redo the poster"),
    ],
    "en-t2": [
        ("What citation format should I require?", "Citation rule: Chicago-style footnotes for essays; at least one primary source per paper.", "what citation style did I tell them to use?"),
        ("Help me plan the museum field trip.", "Planned the city history museum trip on Oct 24: two buses, permission slips due Oct 17, scavenger hunt worksheet.", "when were the permission slips due for the museum trip"),
        ("Suggest a debate format for class.", "Structured academic controversy: pairs argue both sides, 4-minute openings, then a consensus paragraph.", "how long were openings in that debate format we picked?"),
        ("I want to start Current Events Fridays.", "Current Events Friday: each student brings one article a month and links it to the unit theme in a 3-sentence summary.", "for the news article thing, how often does each kid bring one?"),
    ],
    "en-t3": [
        ("We need a goggles policy.", "Safety rule: goggles on whenever any chemical is out; first offense a warning, second means removal from that lab with an alternate assignment.", "what happens the second time someone takes their goggles off?"),
        ("What should the lab notebook requirements be?", "Lab notebooks: bound composition books, pen only, date and title on each entry, graded every three labs.", "how often do I grade the notebooks"),
        ("Help me with the stockroom reorder.", "Reorder list: 2 L of 1 M HCl, phenolphthalein, 200 weigh boats, pH paper; submitted to the department budget by Oct 3.", "did I already put weigh boats on the order?"),
        ("Let's set a retake policy.", "Retakes: one per unit test, corrections and a tutoring session first, max score 85%.", "what's the cap on a retake score again"),
    ],
}
HAND_NEG = {
    "zh-t1": ["我们之前定的机房使用规则是什么来着？", "信息学竞赛报名截止是哪天，我们之前说过的"],
    "zh-t2": ["数学建模活动我们之前定的是几个人一组？", "上次说的数学周记要求每周写多少字"],
    "zh-t3": ["班级日记那个轮流写的规则是什么", "我们之前定的古诗背诵打卡是每天几首"],
    "zh-t4": ["实验室借用登记的规则我们怎么定的", "上次说的物理错题本要分几栏"],
    "zh-t5": ["午餐排队的规定我们是怎么定的", "班级春游的费用当时说每人多少"],
    "en-t1": ["what did we decide about phones during labs?", "when is the hackathon sign-up deadline we set?"],
    "en-t2": ["what was the word limit we set for the research paper?", "which day did we pick for the mock trial?"],
    "en-t3": ["what did we decide about eating in the lab?", "how many extra credit points for the science fair?"],
}


# ---------------------------------------------------------------------------------------------
# Shared machinery
# ---------------------------------------------------------------------------------------------

START = datetime(2026, 9, 1, 7, 30)
MEM_END = datetime(2026, 11, 15, 18, 0)
Q_END = datetime(2026, 11, 29, 22, 0)


def rand_ts(rng, lo, hi):
    span = int((hi - lo).total_seconds() // 60)
    t = lo + timedelta(minutes=rng.randint(0, span))
    # school-ish hours
    return t.replace(hour=rng.choice([7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 19, 20, 21]), minute=rng.choice([0, 5, 12, 20, 30, 41, 45, 55]), second=0)


def build_memories(rng, t, n_target, text_fn, vers_table):
    """Plan (topic, kind, cls, ver) tuples with deliberate near-duplicates, then write them."""
    plan = []
    topics = list(t["topics"])
    kinds = t["kinds"]
    for _round in range(200):
        if len(plan) >= n_target:
            break
        for topic in topics:
            if len(plan) >= n_target:
                break
            kind = rng.choice(kinds)
            if kind == "writing" and not any(k in topic[0] for k in ("《", "写作", "朗诵")):
                continue
            if any(p[0] is topic and p[1] == kind for p in plan):
                continue
            if rng.random() < 0.42 and len(t["classes"]) > 1:
                if rng.random() < 0.7:
                    c1, c2 = rng.sample(t["classes"], 2)
                    plan.append((topic, kind, c1, ""))
                    plan.append((topic, kind, c2, ""))
                else:
                    c = rng.choice(t["classes"])
                    v1, v2 = vers_table[kind][:2]
                    plan.append((topic, kind, c, v1))
                    plan.append((topic, kind, c, v2))
            else:
                plan.append((topic, kind, rng.choice(t["classes"]), ""))
    assert len(plan) >= n_target, (t["user"], len(plan))
    plan = plan[:n_target]
    mems = []
    for topic, kind, cls, ver in plan:
        ts = rand_ts(rng, START, MEM_END - timedelta(days=3))
        inp, summ, kw, dets = text_fn(rng, t, topic, kind, cls, ver, ts)
        mems.append({"topic": topic[0], "aliases": topic[1], "kind": kind, "cls": cls, "ver": ver, "ts": ts,
                     "input": inp, "summary": summ, "kw": kw, "details": [d for d in dets if d in inp + summ]})
    # versioned pairs: second version later than the first
    mems.sort(key=lambda m: m["ts"])
    return mems


def add_hand(rng, user, mems):
    """Append the hand-written memories of a user; returns [(memory, query)] for their follow-ups."""
    out = []
    for i, (inp, summ, q) in enumerate(HAND.get(user, [])):
        m = {"topic": f"hand{i}", "aliases": [], "kind": "hand", "cls": "", "ver": "", "details": [], "kw": "",
             "ts": rand_ts(rng, START, MEM_END - timedelta(days=3)), "input": inp, "summary": summ}
        mems.append(m)
        out.append((m, q))
    mems.sort(key=lambda m: m["ts"])
    return out


def matches(m, spec):
    return all(m[k] == v for k, v in spec.items())


def dump(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------------------------
# Chinese queries
# ---------------------------------------------------------------------------------------------

def zh_query_text(rng, m, style, spec, single):
    """Text of a follow-up for memory m. Returns (text, overlap label)."""
    name, alias = m["topic"], rng.choice(m["aliases"])
    kw = m["kw"]
    syn = rng.choice([w for w in ZH_KIND_WORDS[m["kind"]] if w != kw] or [kw])
    act = rng.choice(ZH_ACTIONS[ZH_KIND_GROUP[m["kind"]]])
    ref = rng.choice(ZH_REFS)
    cls, ver = m["cls"], m["ver"]
    if style == "short":
        tag = cls if "cls" in spec else (ver if "ver" in spec else "")
        forms = [(f"{name}{kw}答案", "lexical"), (f"{tag}{name}{syn}", "lexical"), (f"{name}那份{syn}呢", "lexical"),
                 (f"{tag}{name}{kw}再发下", "lexical"), (f"{alias}的{syn}", "paraphrase"), (f"{ref}{alias}{syn}", "paraphrase")]
        if ZH_KIND_GROUP[m["kind"]] != "assess":
            forms = forms[1:]
        return rng.choice(forms)
    if style == "lexical":
        forms = [f"{ref}{name}{kw}，{act}。", f"把{name}的{kw}找出来，{act}", f"{name}{kw}那个，{act}，谢谢",
                 f"关于{name}的{kw}：{act}。", f"还记得{name}那份{kw}吗？{act}"]
        if "cls" in spec:
            forms = [f"{cls}那份{name}{kw}，{act}。", f"给{cls}做的{name}{kw}，{act}", f"{name}{kw}（{cls}的），{act}"]
        return rng.choice(forms), "lexical"
    if style == "paraphrase":
        forms = [f"{ref}{alias}的{syn}，{act}", f"你之前帮我弄过一个讲{alias}的{syn}，{act}", f"{alias}那个{syn}，{act}。",
                 f"就是那个{alias}相关的{syn}，{act}", f"之前做的{syn}（{alias}），{act}",
                 f"{ref}{alias}那份东西，{act}", f"讲{alias}时候用的材料，{act}", f"{alias}那次你弄的，{act}。"]
        if "cls" in spec:
            forms = [f"{cls}那个{alias}的{syn}，{act}", f"之前给{cls}弄的{syn}，讲{alias}的，{act}"]
        elif single and m["details"] and rng.random() < 0.45:
            d = rng.choice(m["details"])
            forms = [f"{ref}有{d}的那个{syn}，{act}", f"重点是{d}的那份{syn}，{act}。", f"就是讲{d}的那个，{syn}，{act}",
                     f"之前弄的{syn}里有一部分是{d}，那份{act}"]
        return rng.choice(forms), "paraphrase"
    if style == "near_duplicate":
        if "ver" in spec:
            forms = [f"{name}{kw}的{ver}，{act}", f"{ver}那份{name}{syn}，{act}。", f"不是另一版，是{name}{ver}那个，{act}",
                     f"{alias}的{syn}有两版，我说的是{ver}，{act}"]
        else:
            forms = [f"{cls}那份{name}{kw}，不是另一个班的，{act}", f"{name}{syn}我要{cls}的那版，{act}",
                     f"上次{cls}用的{name}{kw}，{act}。", f"{cls}的{name}{syn}（别拿错成别的班的），{act}"]
            if rng.random() < 0.5:
                forms = [f"{cls}那份讲{alias}的{syn}，不是另一个班的，{act}", f"{alias}那个，我要{cls}的{syn}，{act}",
                         f"给{cls}弄的{alias}的东西，{act}。"]
        return rng.choice(forms), "near_duplicate"
    raise ValueError(style)


ZH_CONTEXT = [  # longer utterances: the assistant's last reply or the teacher's own lead-in
    "好的，已经按您的要求调整完了，页眉加上了班级和日期，如果还有需要修改的地方请随时告诉我。",
    "以上就是修改后的版本，主要改动在第二部分，删掉了两处重复的内容，您看看是否合适。",
    "我们年级这学期在搞集体备课，每周三下午都要交一份材料，我这周的还没交，所以有点着急。",
    "昨天跟备课组的老师聊了一下，大家觉得上一轮的东西难度偏高，学生反馈也不太好，想调整一下。",
    "刚才家长群里有人问起来，我才想起这件事，之前答应了这周内处理好的，结果一忙就忘了。",
    "这个学期马上过半了，很多东西要回头整理一遍，方便期末复习的时候直接拿来用，省得到时候手忙脚乱。",
    "我下周要去市里听课，两天不在学校，代课老师会用到这些东西，所以得提前准备好放到共享盘里。",
    "已为您生成，共分为三个部分，每部分后面都附了参考答案和简要说明，打印时建议选择双面。",
    "学校下午临时通知要交材料，所以比较赶，麻烦你快一点，格式我晚上回家再慢慢调。",
    "教研组长上午来听了我的课，课后说了几条意见，我记了一下，大意是节奏要紧凑一些、练习要有梯度。",
    "上周的东西学生做完了，整体情况还可以，但有几个地方错得比较集中，我想趁热打铁再处理一下。",
    "抱歉，刚才那个问题先放一边，我临时想起来一件更急的事，明天早上第一节就要用。",
]
ZH_SHORT_AFTER = ["谢谢！", "辛苦了。", "不急，明天给我就行。", "尽量今天弄好。", "弄好发我。", "麻烦了。", "先这样。"]


def lengthen_zh(rng, q):
    """Two utterances pasted together: a longer one before the follow-up, sometimes a short one after."""
    if q[-1] not in "。？！?":
        q += "。"
    ctx = rng.sample(ZH_CONTEXT, 2)
    parts = [ctx[0], q]
    if len("".join(parts)) < 100:
        parts.insert(0, rng.choice(ZH_FILLERS) if len("".join(parts)) > 85 else ctx[1])
    elif rng.random() < 0.35:
        parts.insert(0, ctx[1])
        if rng.random() < 0.4:
            parts.insert(1, rng.choice(ZH_FILLERS))
    if rng.random() < 0.4:
        parts.append(rng.choice(ZH_SHORT_AFTER))
    return "".join(parts)


def zh_negative(rng, t, used_text):
    neg = rng.choice(t["neg_topics"])
    kind = rng.choice(t["kinds"])
    kw = rng.choice(ZH_KIND_WORDS[kind])
    cls = rng.choice(t["classes"])
    act = rng.choice(ZH_ACTIONS[ZH_KIND_GROUP[kind]])
    forms = [f"上次那份{neg}的{kw}，{act}", f"帮我给{cls}出一份{neg}的{kw}", f"{cls}下周讲{neg}，{kw}怎么准备比较好？",
             f"之前做的{neg}{kw}还在吗", f"我想要{neg}相关的{kw}，{cls}用", f"{neg}的{kw}，{act}。", f"{neg}{kw}"]
    if ZH_KIND_GROUP[kind] == "assess":
        forms += [f"{neg}{kw}答案发我", f"{neg}这块学生老是搞不懂，有什么好的讲法", f"出几道{neg}的题，{cls}，难度中等"]
    if t["subject"] == "班主任工作":
        forms += [f"{neg}那件事你还记得吗，当时怎么安排的", f"学校要搞{neg}，{cls}这边我该准备什么"]
    return rng.choice(forms)


def pick_spec(rng, mems, groups, style):
    """Choose the memory a follow-up is about and what the follow-up names (the spec the labels come from)."""
    dup_groups = [g for g in groups.values() if len(g) > 1]
    if style == "near_duplicate" and dup_groups:
        g = rng.choice(dup_groups)
        m = rng.choice(g)
        spec = {"topic": m["topic"], "kind": m["kind"]}
        spec["cls" if g[0]["cls"] != g[1]["cls"] else "ver"] = m["cls"] if g[0]["cls"] != g[1]["cls"] else m["ver"]
        return m, spec, style
    if style == "near_duplicate":
        style = "lexical"
    m = rng.choice(mems)
    spec = {"topic": m["topic"], "kind": m["kind"]}
    g = groups[(m["topic"], m["kind"])]
    if len(g) > 1 and rng.random() < 0.6:
        if g[0]["cls"] != g[1]["cls"]:
            spec["cls"] = m["cls"]
        else:
            spec["ver"] = m["ver"]
            style = "near_duplicate"
    elif rng.random() < 0.2:
        spec["cls"] = m["cls"]
    return m, spec, style


def part_of_month(ts, lang):
    k = 0 if ts.day <= 10 else 1 if ts.day <= 20 else 2
    if lang == "zh":
        return f"{ts.month}月" + "初中底"[k]
    return ["early", "mid", "late"][k] + " " + ts.strftime("%B")


def indirect(rng, mems, lang):
    """A follow-up naming class, time of month and one detail of the content, not the topic."""
    m = rng.choice([x for x in mems if x["details"]])
    d = rng.choice(m["details"])
    when = part_of_month(m["ts"], lang)
    rel = [x for x in mems if x["kind"] == m["kind"] and x["cls"] == m["cls"] and d in x["input"] + x["summary"]
           and part_of_month(x["ts"], lang) == when]
    if lang == "zh":
        syn = rng.choice(ZH_KIND_WORDS[m["kind"]])
        act = rng.choice(ZH_ACTIONS[ZH_KIND_GROUP[m["kind"]]])
        q = rng.choice([f"{when}给{m['cls']}弄的那份{syn}，里面有{d}的那个，{act}", f"{when}那个{syn}（{m['cls']}，有{d}），{act}",
                        f"我记得{when}给{m['cls']}做过一个{syn}，涉及{d}，{act}"])
    else:
        syn = rng.choice(EN_KIND_WORDS[m["kind"]])
        act = rng.choice(EN_ACTIONS[m["kind"]])
        q = rng.choice([f"The {syn} I made for {m['cls']} in {when}, the one with {d} - {act}.",
                        f"Back in {when} we did a {syn} for {m['cls']} that had {d} in it. {cap(act)}."])
    return q, rel


def finish_queries(rng, prefix, records_m, qs, variants):
    ts_of = {r["id"]: datetime.fromisoformat(r["ts"]) for r in records_m}
    out = []
    for user, q, rel, style in qs:
        q, extra = variants(rng, q)
        lo = max([ts_of[x["id"]] for x in rel], default=START + timedelta(days=10))
        ts = rand_ts(rng, lo + timedelta(days=2), Q_END)
        out.append((user, ts, q, sorted(x["id"] for x in rel), style + extra))
    out.sort(key=lambda x: (x[0], x[1]))
    return [{"type": "query", "id": f"{prefix}-q{i:04d}", "user": user, "ts": ts.isoformat(), "query": q, "relevant": rel,
             "style": style} for i, (user, ts, q, rel, style) in enumerate(out, 1)]


def zh_variants(rng, q):
    r = rng.random()
    if r < 0.065:
        return to_trad(q), "+traditional"
    if r < 0.12:
        cands = [p for p in ZH_TYPOS if p[0] in q]
        if cands:
            a, b = rng.choice(cands)
            return q.replace(a, b, 1), "+typo"
    return q, ""


def gen_zh(rng):
    records_m, qs = [], []
    mid = 0
    for t in ZH_TEACHERS:
        mems = build_memories(rng, t, 90 - len(HAND[t["user"]]), zh_memory_text, ZH_VERS)
        templated = list(mems)
        hand = add_hand(rng, t["user"], mems)
        for m in mems:
            mid += 1
            m["id"] = f"zh-m{mid:04d}"
            records_m.append({"type": "memory", "id": m["id"], "user": t["user"], "ts": m["ts"].isoformat(),
                              "input": m["input"], "summary": m["summary"]})
        alltext = "".join(m["input"] + m["summary"] for m in mems)
        for neg in t["neg_topics"]:
            assert neg not in alltext, (t["user"], neg)
        mems = templated
        for m, q in hand:
            qs.append((t["user"], q, [m], "decision"))
        for q in HAND_NEG[t["user"]]:
            qs.append((t["user"], q, [], "negative_decision"))
        groups = {}
        for m in mems:
            groups.setdefault((m["topic"], m["kind"]), []).append(m)
        styles = ["lexical"] * 10 + ["paraphrase"] * 16 + ["near_duplicate"] * 10
        rng.shuffle(styles)
        for style in styles:
            m, spec, style = pick_spec(rng, mems, groups, style)
            single = len(groups[(m["topic"], m["kind"])]) == 1
            length = rng.choices(["short", "mid", "long"], [0.2, 0.6, 0.2])[0]
            if length == "short" and style != "near_duplicate":
                q, style = zh_query_text(rng, m, "short", spec, single)
                for k in ("cls", "ver"):
                    if spec.get(k) and spec[k] not in q:
                        spec.pop(k)
            else:
                q, style = zh_query_text(rng, m, style, spec, single)
                if length == "long":
                    q = lengthen_zh(rng, q)
            qs.append((t["user"], q, [x for x in mems if matches(x, spec)], style))
        for _ in range(6):  # the topic is not named: only class, month and a detail of the content point to it
            q, rel = indirect(rng, mems, "zh")
            if rel:
                qs.append((t["user"], q, rel, "indirect"))
        for _ in range(3):  # one follow-up about two earlier artifacts
            a, b = rng.sample(mems, 2)
            if a["topic"] == b["topic"]:
                continue
            forms = [f"把{a['topic']}的{a['kw']}和{b['topic']}的{b['kw']}放一起，期中复习要用",
                     f"之前那两份：{a['topic']}{a['kw']}、{b['topic']}{b['kw']}，我要整合成一份",
                     f"{a['topic']}那份{a['kw']}跟{b['topic']}那份{b['kw']}格式统一一下"]
            rel = [x for x in mems if matches(x, {"topic": a["topic"], "kind": a["kind"]})
                   or matches(x, {"topic": b["topic"], "kind": b["kind"]})]
            qs.append((t["user"], rng.choice(forms), rel, "two_artifacts"))
        chit = rng.sample(ZH_CHITCHAT, 4)
        for i in range(11):
            if i < 4:
                qs.append((t["user"], chit[i], [], "negative_chitchat"))
            else:
                q = zh_negative(rng, t, alltext)
                style = "negative_on_topic"
                if i >= 9:
                    q, style = lengthen_zh(rng, q), "negative_on_topic_long"
                qs.append((t["user"], q, [], style))
    return records_m + finish_queries(rng, "zh", records_m, qs, zh_variants)


# ---------------------------------------------------------------------------------------------
# English queries
# ---------------------------------------------------------------------------------------------

def bare(name):
    return name[4:] if name.startswith("the ") else name


def cap(s):
    return s[0].upper() + s[1:]


def en_query_text(rng, m, style, spec, single):
    name, alias, kw = bare(m["topic"]), rng.choice(m["aliases"]), m["kw"]
    syn = rng.choice([w for w in EN_KIND_WORDS[m["kind"]] if w != kw] or [kw])
    act = rng.choice(EN_ACTIONS[m["kind"]])
    cls, ver = m["cls"], m["ver"]
    if style == "short":
        tag = (cls + " ") if "cls" in spec else ((ver + " ") if "ver" in spec else "")
        return rng.choice([(f"{name} {kw} key?", "lexical"), (f"{tag}{name} {syn}", "lexical"), (f"resend {name} {kw}", "lexical"),
                           (f"{alias} {syn}?", "paraphrase"), (f"that {syn} on {alias}", "paraphrase")])
    if style == "lexical":
        forms = [f"The {name} {kw}: {act}.", f"About the {name} {kw} - {act}.", f"Pull up the {name} {kw}, {act}.",
                 f"Remember the {name} {kw}? {cap(act)}."]
        if "cls" in spec:
            forms = [f"The {name} {kw} for {cls}: {act}.", f"For {cls}'s {name} {kw}, {act}."]
        return rng.choice(forms), "lexical"
    if style == "paraphrase":
        forms = [f"Remember the {syn} we did on {alias}? {cap(act)}.", f"That {syn} about {alias} - {act}.",
                 f"You made me something for {alias}, the {syn}. {cap(act)}.", f"The thing we made for {alias}: {act}.",
                 f"That {alias} material - {act}."]
        if "cls" in spec:
            forms = [f"{cls}'s {syn} on {alias}: {act}.", f"The {syn} on {alias} I used with {cls}, {act}."]
        elif single and m["details"] and rng.random() < 0.45:
            d = rng.choice(m["details"])
            forms = [f"The {syn} that covered {d} - {act}.", f"That one with the {d} part, the {syn}: {act}."]
        return rng.choice(forms), "paraphrase"
    if style == "near_duplicate":
        if "ver" in spec:
            return rng.choice([f"{cap(name)} {kw}, {ver} specifically: {act}.",
                               f"The {ver} of the {name} {syn}, not the other one. {cap(act)}."]), style
        if rng.random() < 0.5:
            return rng.choice([f"The {syn} on {alias} for {cls}, not the other section: {act}.",
                               f"{cls}'s version of that {alias} {syn} - {act}."]), style
        return rng.choice([f"The {name} {kw} for {cls}, not the other section: {act}.", f"{cls} version of the {name} {syn} - {act}.",
                           f"I need {cls}'s {name} {kw} again; {act}."]), style
    raise ValueError(style)


EN_CONTEXT = ["Here is the revised version: I moved the warm-up to the start and cut the second reading, let me know if anything else needs changing.",
              "Our department is doing common assessments this semester, so everything has to be aligned with the other sections.",
              "A parent emailed about this yesterday, which reminded me I promised to fix it this week.",
              "We're halfway through the semester and I want everything organized before finals review starts.",
              "I'm out at a district training Thursday and Friday, so the sub will be using whatever I leave in the shared drive.",
              "My department chair observed the class this morning and said the pacing should be tighter and the practice more scaffolded.",
              "Done! It has three sections, each followed by an answer key and short explanations; print double-sided to save paper.",
              "The kids finished last week's work and overall it went fine, but a few mistakes were really concentrated, so I want to deal with that now."]


def lengthen_en(rng, q):
    ctx = rng.sample(EN_CONTEXT, 2)
    parts = [ctx[0], q]
    if len(" ".join(parts)) < 110:
        parts.insert(0, rng.choice(EN_FILLERS))
    elif rng.random() < 0.3:
        parts.insert(0, ctx[1])
    if rng.random() < 0.4:
        parts.append(rng.choice(["Thanks!", "No rush.", "Today if possible.", "Appreciate it."]))
    while len(" ".join(parts)) > 300:
        parts.pop(0)
    return " ".join(parts)


def en_variants(rng, q):
    if rng.random() < 0.07:
        cands = [p for p in EN_TYPOS if p[0] in q]
        if cands:
            a, b = rng.choice(cands)
            return q.replace(a, b, 1), "+typo"
    return q, ""


def gen_en(rng):
    records_m, qs = [], []
    mid = 0
    for t in EN_TEACHERS:
        mems = build_memories(rng, t, 70 - len(HAND[t["user"]]), en_memory_text, EN_VERS)
        templated = list(mems)
        hand = add_hand(rng, t["user"], mems)
        for m in mems:
            mid += 1
            m["id"] = f"en-m{mid:04d}"
            records_m.append({"type": "memory", "id": m["id"], "user": t["user"], "ts": m["ts"].isoformat(),
                              "input": m["input"], "summary": m["summary"]})
        alltext = " ".join(m["input"] + " " + m["summary"] for m in mems).lower()
        for neg in t["neg_topics"]:
            assert neg.lower() not in alltext, (t["user"], neg)
        mems = templated
        for m, q in hand:
            qs.append((t["user"], q, [m], "decision"))
        for q in HAND_NEG[t["user"]]:
            qs.append((t["user"], q, [], "negative_decision"))
        groups = {}
        for m in mems:
            groups.setdefault((m["topic"], m["kind"]), []).append(m)
        styles = ["lexical"] * 8 + ["paraphrase"] * 8 + ["near_duplicate"] * 8
        rng.shuffle(styles)
        for style in styles:
            m, spec, style = pick_spec(rng, mems, groups, style)
            single = len(groups[(m["topic"], m["kind"])]) == 1
            length = rng.choices(["short", "mid", "long"], [0.2, 0.6, 0.2])[0]
            if length == "short" and style != "near_duplicate":
                q, style = en_query_text(rng, m, "short", spec, single)
                for k in ("cls", "ver"):
                    if spec.get(k) and spec[k] not in q:
                        spec.pop(k)
            else:
                q, style = en_query_text(rng, m, style, spec, single)
                if length == "long":
                    q = lengthen_en(rng, q)
            qs.append((t["user"], q, [x for x in mems if matches(x, spec)], style))
        for _ in range(4):
            q, rel = indirect(rng, mems, "en")
            if rel:
                qs.append((t["user"], q, rel, "indirect"))
        for _ in range(2):
            a, b = rng.sample(mems, 2)
            if a["topic"] == b["topic"]:
                continue
            q = rng.choice([f"Combine the {bare(a['topic'])} {a['kw']} and the {bare(b['topic'])} {b['kw']} into one review packet.",
                            f"For the midterm review I want the {bare(a['topic'])} {a['kw']} plus the {bare(b['topic'])} {b['kw']} merged."])
            rel = [x for x in mems if matches(x, {"topic": a["topic"], "kind": a["kind"]})
                   or matches(x, {"topic": b["topic"], "kind": b["kind"]})]
            qs.append((t["user"], q, rel, "two_artifacts"))
        chit = rng.sample(EN_CHITCHAT, 3)
        for i in range(8):
            if i < 3:
                qs.append((t["user"], chit[i], [], "negative_chitchat"))
                continue
            neg_full = rng.choice(t["neg_topics"])
            neg = bare(neg_full)
            kind = rng.choice(t["kinds"])
            kw = rng.choice(EN_KIND_WORDS[kind])
            cls = rng.choice(t["classes"])
            q = rng.choice([f"Can you send the {neg} {kw} again?", f"Make {art(kw)} on {neg_full} for {cls}.",
                            f"{cls} starts {neg_full} next week, what should the {kw} look like?",
                            f"The {neg} {kw} from before - {rng.choice(EN_ACTIONS[kind])}.",
                            f"Students keep getting confused about {neg_full}, any ideas?", f"{neg} {kw}"])
            style = "negative_on_topic"
            if i >= 6:
                q, style = lengthen_en(rng, q), "negative_on_topic_long"
            qs.append((t["user"], q, [], style))
    return records_m + finish_queries(rng, "en", records_m, qs, en_variants)


def main():
    dump(HERE / "recall_dev_zh.jsonl", gen_zh(random.Random(20261130)))
    dump(HERE / "recall_dev_en.jsonl", gen_en(random.Random(20261131)))


if __name__ == "__main__":
    main()
