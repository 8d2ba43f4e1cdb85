"""No code path creates a CoreFact except a person confirming a candidate or typing a
fact (seed §4, review #10). Checked two ways: statically over the whole code base, and
by running the memory job with a model that is very sure of itself."""

import ast
from pathlib import Path

import pytest

from corememory import services
from corememory.models import CoreCandidate, CoreFact

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".venv", "venv", "node_modules", "migrations", "tests", ".git", "var", "staticfiles", "bench"}
CREATING = {"create", "bulk_create", "get_or_create", "update_or_create", "acreate", "abulk_create",
            "aget_or_create", "aupdate_or_create"}
ALLOWED_CREATORS = {("corememory/services.py", "_fact_create")}
ALLOWED_CALLERS = {("corememory/services.py", "candidate_confirm"), ("corememory/services.py", "fact_add")}


def source_files():
    for path in ROOT.rglob("*.py"):
        relative = path.relative_to(ROOT)
        if not SKIP_DIRS.intersection(relative.parts[:-1]):
            yield relative.as_posix(), ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def enclosing_functions(tree):
    """Map each node to the name of the innermost function around it."""
    owner = {}

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            owner[child] = name
            visit(child, name)

    visit(tree, None)
    return owner


def names_in(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def fact_aliases(tree) -> set[str]:
    aliases = {"CoreFact"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            aliases |= {a.asname for a in node.names if a.name == "CoreFact" and a.asname}
    return aliases


def creation_sites():
    sites = []
    for path, tree in source_files():
        owner, aliases = enclosing_functions(tree), fact_aliases(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                direct = isinstance(func, ast.Name) and func.id in aliases
                via_manager = isinstance(func, ast.Attribute) and func.attr in CREATING and names_in(func.value) & aliases
                by_name = any(isinstance(a, ast.Constant) and a.value == "CoreFact" for a in node.args)
                if direct or via_manager or by_name:
                    sites.append((path, owner.get(node)))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    "corememory_corefact" in node.value.lower() and "insert" in node.value.lower():
                sites.append((path, owner.get(node)))
    return sites


def test_only_one_function_in_the_code_base_creates_a_core_fact():
    sites = creation_sites()
    assert sites, "the scan found no creation site at all: it is broken"
    assert set(sites) == ALLOWED_CREATORS


def test_that_function_is_called_only_by_the_confirm_and_add_services():
    callers = set()
    for path, tree in source_files():
        owner = enclosing_functions(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)) and (getattr(node, "id", None) == "_fact_create"
                                                                or getattr(node, "attr", None) == "_fact_create"):
                callers.add((path, owner.get(node)))
    assert callers == ALLOWED_CALLERS


def test_the_admin_cannot_add_a_fact_by_form(client, school_admin, django_user_model):
    client.force_login(school_admin)
    assert client.get("/admin/corememory/corefact/add/").status_code == 403
    root = django_user_model.objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(root)
    assert client.get("/admin/corememory/corefact/add/").status_code == 403


@pytest.mark.parametrize("confidence", [1.0, "100%"])
def test_a_whole_memory_job_with_a_certain_model_leaves_no_confirmed_fact(
        teacher_api, agent, memory_jobs, extract_replies, monkeypatch, confidence):
    created = []
    real = services._fact_create
    monkeypatch.setattr(services, "_fact_create", lambda **kw: created.append(kw) or real(**kw))
    extract_replies([{"fact": "教高二", "confidence": confidence},
                     {"fact": "出题偏好选择题多一些", "confidence": confidence}])
    with memory_jobs():
        teacher_api.run(agent, "我教高二，出题偏好选择题多一些")
    assert CoreCandidate.objects.count() == 2
    assert not CoreFact.objects.exists()
    assert created == []
