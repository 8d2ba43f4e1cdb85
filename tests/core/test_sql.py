"""The helpers of the read path's hand-written SQL (core/sql.py) give what the ORM gives,
on SQLite and PostgreSQL alike."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.actor import Actor
from core import sql
from threads.models import Thread

TABLE = Thread._meta.db_table
STATE = sql.Columns(Thread, "summary_upto_at", "title", "id")


@pytest.fixture
def threads(agent, teacher):
    at = timezone.now().replace(microsecond=123456) - timedelta(days=3)
    school_wide = Actor(tenant=agent.tenant, via_api_key=True)
    owners = ((school_wide, "学校", at), (Actor(tenant=agent.tenant, user=teacher), "教师", None),
              (school_wide.with_end_user("u1"), "终端用户", at + timedelta(hours=1)))
    return [Thread.objects.create(**actor.owner_fields(), agent=agent, title=title, summary_upto_at=cursor)
            for actor, title, cursor in owners]


def test_columns_are_listed_in_the_models_order_and_unknown_ones_refused():
    assert STATE.attnames == ("id", "title", "summary_upto_at")
    assert STATE.select("t") == '"t"."id", "t"."title", "t"."summary_upto_at"'
    assert "rolling_summary" not in sql.Columns(Thread, exclude=("rolling_summary",)).attnames
    with pytest.raises(Exception):
        sql.Columns(Thread, "no_such_field").fields


def test_values_and_instances_are_what_the_orm_reads(threads):
    rows = sql.fetch(f'SELECT {STATE.select()} FROM "{TABLE}" ORDER BY "title"', [])
    expected = list(Thread.objects.order_by("title").values_list(*STATE.attnames))
    assert STATE.values(rows) == expected
    assert any(value[2] is not None and value[2].tzinfo is not None for value in expected)
    instances = STATE.instances(rows)
    assert [(t.pk, t.title, t.summary_upto_at) for t in instances] == expected
    assert "rolling_summary" in instances[0].get_deferred_fields()


def test_a_prepared_datetime_compares_like_the_orms(threads):
    middle = threads[0].summary_upto_at + timedelta(minutes=30)
    rows = sql.fetch(f'SELECT "id" FROM "{TABLE}" WHERE "summary_upto_at" > %s',
                     [sql.prep(Thread, "summary_upto_at", middle)])
    expected = Thread.objects.filter(summary_upto_at__gt=middle).values_list("id", flat=True)
    assert [row[0] for row in rows] == list(expected) == [threads[2].pk]


def test_where_equal_keeps_exactly_the_rows_owner_q_keeps(threads, agent, teacher, second_teacher):
    school_wide = Actor(tenant=agent.tenant, via_api_key=True)
    actors = [school_wide, school_wide.with_end_user("u1"), Actor(tenant=agent.tenant, user=teacher),
              Actor(tenant=agent.tenant, user=second_teacher)]
    for actor in actors:
        where, params = sql.where_equal(actor.owner_columns())
        rows = sql.fetch(f'SELECT "id" FROM "{TABLE}" WHERE {where}', params)
        assert {row[0] for row in rows} == set(Thread.objects.filter(actor.owner_q()).values_list("id", flat=True))
        assert {row[0] for row in rows} == {t.pk for t in threads if actor.owns(t)}
    assert sql.where_equal({"owner_id": None, "end_user": ""}) == ('"owner_id" IS NULL AND "end_user" = %s', [""])
