from django import template
from django.utils import timezone
from django.utils.formats import date_format

from web.errors import friendly_error
from web.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text):
    """Model output as sanitized HTML (see web.markdown)."""
    return render_markdown(text)


@register.filter
def friendly(code):
    """A stable error code as a sentence a teacher understands."""
    return friendly_error(code)


@register.filter
def short_time(value):
    """Today: 14:05; this year: 6月12日 14:05 / Jun 12 14:05; older: the full date."""
    if not value:
        return ""
    local = timezone.localtime(value)
    today = timezone.localdate()
    if local.date() == today:
        return date_format(local, "H:i")
    if local.year == today.year:
        return date_format(local, "MONTH_DAY_FORMAT") + date_format(local, " H:i")
    return date_format(local, "SHORT_DATE_FORMAT")


@register.filter
def money(value):
    """Costs are fractions of a cent per run: four decimals."""
    return f"{float(value or 0):.4f}"


@register.filter
def tokens(value):
    """A token count with thousands separators."""
    return f"{int(value or 0):,}"
