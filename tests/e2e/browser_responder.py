"""Scripted model replies for the browser tests. The server and the memory worker import
this by name (SCRIPTED_RESPONDER), so it must stay free of test-only imports.

Replies are chosen from the teacher's request (the text after the input label), never
from the history around it, so the same request gets the same reply in any thread."""

import json
import re

from agents.providers.base import ProviderError
from agents.providers.scripted import default_responder

EXAM = """# 数据结构期中试卷

## 一、选择题（每题 5 分）
1. 栈的特点是 **后进先出**。下列哪种结构也是线性表？
2. 二叉树第 *k* 层最多有几个结点？

## 二、简答题
- 简述栈和队列的区别。
- 什么是哈希冲突？

```python
def push(stack, x):
    stack.append(x)
```
"""

SWAPPED = """## 二、简答题（已换两道）
- 比较顺序表和链表的优缺点。
- 简述快速排序的平均时间复杂度。
"""

HOSTILE = """标题里有脚本 <script>window.__xss = 1</script>

图片 <img src="x" onerror="window.__xss = 2"> 也只是文字。

[点我](javascript:window.__xss=3)
"""

CONTINUED = "已在上次产物上继续：把选择题改成了 10 道。"
# Extraction (the memory worker): a fact per class the teacher mentions, as a JSON list.
FACTS = {
    "高二（3）班": "老师教高二（3）班的数据结构，试卷用 100 分制。",
    "高一（1）班": "下学期老师改教高一（1）班。",
    "期末考试": "期末考试老师也用 100 分制。",
}

# The input label, with the run's fence nonce: "[用户问题 ⟦kqfwmzrah⟧]".
LABEL = re.compile(r"\[(?:用户问题|User request) ⟦[a-z0-9]+⟧\]\n")


def request_of(messages) -> str:
    prompt = messages[-1]["content"] if messages else ""
    parts = LABEL.split(prompt)
    return parts[-1] if len(parts) > 1 else prompt


def respond(messages, purpose):
    prompt = messages[-1]["content"] if messages else ""
    request = request_of(messages)
    if purpose == "chat":
        if "[上次产物" in prompt or "[Previous artifact" in prompt:
            return CONTINUED
        if "出一份数据结构试卷" in request:
            return EXAM
        if "简答题换两道" in request:
            # Says whether the thread's history reached the model (the page kept the thread).
            knows = "出一份数据结构试卷" in prompt.replace(request, "")
            return ("接着上一份试卷：\n\n" if knows else "（不知道是哪份试卷）\n\n") + SWAPPED
        if "XSS" in request:
            return HOSTILE
        if "超时" in request:
            return ProviderError("provider_timeout", "scripted timeout")
        return default_responder(messages, purpose)
    if purpose == "extract":
        facts = [{"fact": fact, "confidence": 0.8} for key, fact in FACTS.items() if key in prompt]
        return json.dumps(facts, ensure_ascii=False) if facts else "NONE"
    return default_responder(messages, purpose)
