"""The README's commands run as printed: every `manage.py` line names a command that
exists and uses the project's own Python, every `make` target and benchmark script is
there, and what it says about the demo school and passwords is what the commands do."""

import re
import shlex

import pytest
from django.core.management import get_commands

from tests.procs import ROOT

README = (ROOT / "README.md").read_text()


def shell_lines() -> list[str]:
    """The lines of the README's ```bash blocks and its `inline` commands, continuations joined."""
    blocks = re.findall(r"```(?:bash|sh)\n(.*?)```", README, re.S)
    lines = []
    for block in blocks:
        lines += re.sub(r"\\\n\s*", " ", block).splitlines()
    lines += re.findall(r"`([^`\n]*manage\.py [^`\n]*)`", README)
    return [line.split("  #")[0].strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


MANAGE_LINES = [line for line in shell_lines() if "manage.py" in line]
assert len(MANAGE_LINES) >= 10, "the README's commands were not found"


@pytest.mark.parametrize("line", MANAGE_LINES)
def test_each_manage_py_line_runs_a_command_that_exists_with_the_projects_python(line):
    words = shlex.split(line.replace("|", " "))
    at = next(i for i, w in enumerate(words) if w == "manage.py")
    assert words[at - 1] == ".venv/bin/python", f"`{line}`: python alone is not the project's venv"
    assert words[at + 1] in get_commands(), f"`{line}`: no command {words[at + 1]!r}"


def test_make_targets_and_scripts_the_readme_names_exist():
    makefile = (ROOT / "Makefile").read_text()
    for target in set(re.findall(r"\bmake (\w[\w-]*)", README)):
        assert re.search(rf"^{target}:", makefile, re.M), target
    for script in set(re.findall(r"\b((?:bench|scripts)/[\w/]+\.(?:py|sh))", README)):
        assert (ROOT / script).exists(), script
    for path in set(re.findall(r"`((?:core|agents|threads|corememory|recall|knowledge|search|web)/[\w/]+\.\w+)`",
                               README)):
        assert (ROOT / path).exists(), path


def test_the_readme_says_how_to_reset_a_password_and_names_the_demo_school():
    assert ".venv/bin/python manage.py changepassword" in README
    assert "`demo`" in README
