"""Test settings: the memory queue runs inline and the scripted provider is allowed.

django-q2 reads its settings at import, so sync mode has to be set here rather than
with override_settings.
"""

import os

os.environ.setdefault("TESTING", "1")

from memoryproj.settings import *  # noqa: E402,F403
from memoryproj.settings import Q_CLUSTER  # noqa: E402

Q_CLUSTER = {**Q_CLUSTER, "sync": True}
ALLOW_SCRIPTED_PROVIDER = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False

# Two test runs against one PostgreSQL server (two checkouts, CI beside a developer) must
# not fight over one test database: each run gets its own name unless PG_TEST_NAME says.
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3" and not os.environ.get("PG_TEST_NAME"):  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": f"test_memory_{os.getpid()}_{os.urandom(3).hex()}"}  # noqa: F405

# The real embedding model costs 30-100 ms per indexed entry on these machines: tests that
# exercise dense retrieval turn it on themselves (tests/search/test_dense.py), with the
# real model; everything else searches lexically.
RECALL_DENSE = False
