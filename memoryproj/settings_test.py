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
