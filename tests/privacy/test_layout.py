"""The privacy app sits above the layers (like web/): it may import every layer, and no
layer, nor agents, search, core or web, imports it."""

from pathlib import Path

from tests.core.test_layout import ROOT, _imports

BELOW = ("core", "agents", "threads", "corememory", "recall", "knowledge", "search", "web")


def test_no_app_below_privacy_imports_it():
    offenders = [
        str(path.relative_to(ROOT))
        for app in BELOW
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts and "privacy" in _imports(path)
    ]
    assert offenders == []


def test_privacy_imports_no_circle_back_through_web():
    # web/ is imported only for the teacher-page decorator; web must never need privacy.
    assert "privacy" not in _imports(ROOT / "web" / "views.py")
    assert Path(ROOT / "privacy" / "__init__.py").exists()
