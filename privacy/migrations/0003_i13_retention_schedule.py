"""Schedule the retention sweep (privacy.tasks.retention_sweep) hourly on the memory queue."""

from django.db import migrations

NAME = "privacy retention sweep"


def schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME, defaults={"func": "privacy.tasks.retention_sweep", "schedule_type": "H", "repeats": -1}
    )


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("privacy", "0002_i13_teacher_memory"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
