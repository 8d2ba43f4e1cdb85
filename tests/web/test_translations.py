"""Both catalogues are complete: every translatable string in the code has an English
translation and a Chinese entry, and the compiled .mo files say the same as the .po files."""

import gettext
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.procs import ROOT

LOCALES = {"en": ROOT / "locale/en/LC_MESSAGES", "zh_Hans": ROOT / "locale/zh_Hans/LC_MESSAGES"}
SOURCE_DIRS_IGNORED = {".git", ".venv", "var", "staticfiles", "tests", "locale", "bench", "node_modules"}


def po_entries(path: Path) -> list[dict]:
    """A small .po reader: msgctxt, msgid, msgid_plural, msgstr / msgstr[n], flags."""
    entries = []
    for block in path.read_text().strip().split("\n\n"):
        entry, key = {"flags": ""}, None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] = line
            elif line.startswith("#"):
                continue
            elif match := re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) "(.*)"$', line):
                key = match.group(1)
                entry[key] = match.group(2)
            elif line.startswith('"') and key:
                entry[key] += line[1:-1]
        entries.append(entry)
    return [e for e in entries if e.get("msgid")]


def decode(text: str) -> str:
    """A .po string's C escapes (\\n, \\", \\\\) are JSON's too."""
    return json.loads(f'"{text}"')


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_every_entry_of_the_catalogue_is_translated_and_none_is_fuzzy(language):
    entries = po_entries(LOCALES[language] / "django.po")
    assert len(entries) > 100
    untranslated = [e["msgid"] for e in entries
                    if not all(v for k, v in e.items() if k.startswith("msgstr")) or "fuzzy" in e["flags"]]
    assert untranslated == []


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_compiled_catalogue_says_what_the_po_file_says(language):
    catalogue = gettext.GNUTranslations(open(LOCALES[language] / "django.mo", "rb"))
    for entry in po_entries(LOCALES[language] / "django.po"):
        msgid = decode(entry["msgid"])
        if "msgctxt" in entry:
            got = catalogue.pgettext(decode(entry["msgctxt"]), msgid)
        elif "msgid_plural" in entry:
            got = catalogue.ngettext(msgid, decode(entry["msgid_plural"]), 1)
        else:
            got = catalogue.gettext(msgid)
        want = decode(entry.get("msgstr", entry.get("msgstr[0]", "")))
        assert got == want, f"{language}: {msgid!r} is compiled as {got!r}; run manage.py compilemessages"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="gettext tools missing: apt-get install gettext")
def test_the_catalogues_cover_every_translatable_string_in_the_code(tmp_path):
    """makemessages on a copy of the code must find no string the committed catalogue lacks."""
    copy = tmp_path / "src"
    shutil.copytree(ROOT, copy, ignore=lambda d, names: [n for n in names if n in SOURCE_DIRS_IGNORED
                                                          or n.endswith((".pyc", ".mo"))])
    (copy / "locale/en/LC_MESSAGES").mkdir(parents=True)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memoryproj.settings_test", "VAR_DIR": str(tmp_path / "var")}
    subprocess.run([sys.executable, "manage.py", "makemessages", "-l", "en", "--no-location"], cwd=copy, env=env,
                   check=True, capture_output=True, timeout=120)
    found = {(e.get("msgctxt"), e["msgid"]) for e in po_entries(copy / "locale/en/LC_MESSAGES/django.po")}
    committed = {(e.get("msgctxt"), e["msgid"]) for e in po_entries(LOCALES["en"] / "django.po")}
    missing = sorted(decode(msgid) for _, msgid in found - committed)
    assert missing == [], "new strings: run makemessages -l en -l zh_Hans, translate them, then compilemessages"
