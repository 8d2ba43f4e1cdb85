from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RecallConfig(AppConfig):
    name = "recall"
    verbose_name = _("情景记忆")
