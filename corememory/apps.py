from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreMemoryConfig(AppConfig):
    name = "corememory"
    verbose_name = _("核心记忆")
