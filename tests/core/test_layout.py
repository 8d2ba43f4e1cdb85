"""The layout keeps its promises: a walk over every import (module level and inside
functions) of the project's apps.

- the core app imports no other project app;
- no memory layer app imports another layer app;
- `agents` (the runner, the queue, the platform models) imports no layer app: it reaches
  layers only through settings.MEMORY_LAYERS;
- the app-level import graph has no circle.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = "core"
LAYERS = {"threads", "corememory", "recall", "knowledge"}
APPS = {CORE, "agents", "search", "web", "memoryproj", *LAYERS}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _graph() -> dict[str, set[str]]:
    graph = {app: set() for app in APPS}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            graph[app] |= {name for name in _imports(path) if name in APPS and name != app}
    return graph


def test_every_app_is_walked():
    for app in APPS:
        assert (ROOT / app / "__init__.py").exists(), app
    # The walk sees real edges: a layer does import the core and agents.
    graph = _graph()
    assert {CORE, "agents"} <= graph["threads"]


def test_the_core_imports_no_project_app():
    assert _graph()[CORE] == set()


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_no_layer_imports_another_layer(layer):
    assert not (_graph()[layer] & (LAYERS - {layer}))


def test_agents_and_search_import_no_layer():
    graph = _graph()
    assert not graph["agents"] & LAYERS
    assert not graph["search"] & LAYERS


def test_no_import_circle_between_apps():
    graph = _graph()
    state: dict[str, int] = {}

    def visit(app, trail):
        if state.get(app) == 1:
            raise AssertionError("import circle: " + " -> ".join([*trail, app]))
        if state.get(app) == 2:
            return
        state[app] = 1
        for other in sorted(graph[app]):
            visit(other, [*trail, app])
        state[app] = 2

    for app in sorted(graph):
        visit(app, [])
