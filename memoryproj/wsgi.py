import os
import threading

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproj.settings")
application = get_wsgi_application()


def _warm_up() -> None:
    # Each web worker loads the Chinese segmenter (and, with dense retrieval on, the
    # embedding model, and the red line's part-of-speech tagger) in the background as it
    # boots, so no teacher's first message waits for them.
    from core.redline import learned
    from search.engine import warm_up

    warm_up()
    learned.warm_up()


if os.environ.get("WARM_UP", "1") != "0":
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
