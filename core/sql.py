"""Hand-written SQL for the read path, on SQLite and PostgreSQL alike.

Every new run reads all four memory layers (agents.layers.assemble_context). Through the
ORM, building and compiling each of those small querysets costs about ten times what the
database takes to answer it (≈ 0.3 ms against 0.03 ms on SQLite, nine of them a run), so
the read path's queries are written out by hand in the layers' selectors, and only
there: everything else uses the ORM.

How they are written:

- values always as `%s` parameters (Django's cursor turns them into SQLite's `?`),
  `placeholders(n)` for an IN list; a value compared with or written to a column is
  prepared by that column's model field (`prep`): SQLite keeps datetimes as naive UTC text;
- the columns a query reads are a `Columns` of one model, named by their fields, and come
  back through the fields' own converters, as values or as model instances (with the
  columns not read deferred): exactly what the ORM would have returned;
- the same school and owner filters as the ORM's (`agents.actor.Actor.owner_columns`,
  `where_equal`).

tests/recall/test_read_path.py holds each hand-written read to the ORM query it replaced,
and tests/core/test_sql.py these helpers, on both databases.
"""

import functools

from django.db import DEFAULT_DB_ALIAS, connection, connections


def fetch(sql: str, params) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def execute(sql: str, params) -> int:
    """Run a write; the number of rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def placeholders(count: int) -> str:
    return ", ".join(["%s"] * count)


def prep(model, field: str, value):
    """`value` as the database stores it in `model.field`."""
    return model._meta.get_field(field).get_db_prep_value(value, connection, prepared=False)


def where_equal(columns: dict) -> tuple[str, list]:
    """`"col" = %s AND …` for {column: value}, `IS NULL` for None (as the ORM's
    `filter(col=None)`), with its parameters."""
    terms, params = [], []
    for column, value in columns.items():
        if value is None:
            terms.append(f'"{column}" IS NULL')
        else:
            terms.append(f'"{column}" = %s')
            params.append(value)
    return " AND ".join(terms), params


class Columns:
    """Some columns of one model, by field name (none named: all of them, but those in
    `exclude`), in the model's field order: what a SELECT lists and how its values come back."""

    def __init__(self, model, *names: str, exclude: tuple[str, ...] = ()):
        self.model = model
        self.names = names
        self.exclude = exclude

    @functools.cached_property
    def fields(self) -> tuple:
        meta = self.model._meta
        named = self.names or [f.name for f in meta.concrete_fields if f.name not in self.exclude]
        wanted = {meta.get_field(name).attname for name in named}
        fields = tuple(f for f in meta.concrete_fields if f.attname in wanted)
        if len(fields) != len(wanted):
            raise ValueError(f"{self.model.__name__}: not all of {named} are columns")
        return fields

    @functools.cached_property
    def attnames(self) -> tuple[str, ...]:
        return tuple(f.attname for f in self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def select(self, alias: str = "") -> str:
        qualify = f'"{alias}".' if alias else ""
        return ", ".join(f'{qualify}"{f.column}"' for f in self.fields)

    def values(self, rows, start: int = 0) -> list[tuple]:
        """Each row's values of these columns (from position `start` on, in `attnames`
        order), as the ORM returns them."""
        db = connections[DEFAULT_DB_ALIAS]
        end = start + len(self.fields)
        converters = _converters(db, self)
        if not converters:
            return [tuple(row[start:end]) for row in rows]
        out = []
        for row in rows:
            values = list(row[start:end])
            for index, functions, col in converters:
                value = values[index]
                for function in functions:
                    value = function(value, col, db)
                values[index] = value
            out.append(tuple(values))
        return out

    def instances(self, rows, start: int = 0) -> list:
        """Model instances of these columns of each row: the columns not read are deferred."""
        return [self.model.from_db(DEFAULT_DB_ALIAS, self.attnames, values) for values in self.values(rows, start)]


_converters_found: dict = {}


def _converters(db, columns: Columns) -> tuple:
    """(position, converters, column expression) of the columns that have converters on
    this backend: what the ORM's compiler applies to each value it reads. They depend on
    the backend and the database's settings only, never on one connection's state, so
    every thread's connection uses the ones found first."""
    key = (db.alias, db.vendor, columns)
    found = _converters_found.get(key)
    if found is None:
        found = []
        for index, field in enumerate(columns.fields):
            col = field.cached_col
            functions = db.ops.get_db_converters(col) + col.get_db_converters(db)
            if functions:
                found.append((index, tuple(functions), col))
        found = _converters_found[key] = tuple(found)
    return found
