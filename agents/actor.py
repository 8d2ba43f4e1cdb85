"""Who is acting: a school, and within it a teacher or an API client's end user.

Memory is private per owner. A teacher owns their memory; an API client owns the
school-wide scope (no user) or, when it passes `user`, that end user's scope.
"""

from dataclasses import dataclass

from django.db.models import Q

from core.errors import AppError
from core.text import validate_text

END_USER_MAX = 128


@dataclass(frozen=True)
class Actor:
    tenant: "object"
    user: "object | None" = None  # a logged-in teacher / school admin
    end_user: str = ""  # an API client's opaque end-user id
    via_api_key: bool = False

    def with_end_user(self, end_user: str | None) -> "Actor":
        if not end_user:
            return self
        if not self.via_api_key:
            # A teacher's session always acts as that teacher.
            return self

        end_user = validate_text(end_user, field="user").strip()
        if not end_user:
            # A blank id must not silently widen to the whole school's memory.
            raise AppError("invalid_user", "user must not be blank", status=422)
        if len(end_user) > END_USER_MAX:
            raise AppError("invalid_user", f"user must be at most {END_USER_MAX} characters", status=422)
        return Actor(tenant=self.tenant, user=None, end_user=end_user, via_api_key=True)

    @property
    def owner_id(self):
        return self.user.pk if self.user is not None else None

    def owner_fields(self) -> dict:
        """Field values that stamp a new row with this owner."""
        return {"tenant": self.tenant, "owner": self.user, "end_user": self.end_user}

    def owner_columns(self) -> dict:
        """The column values of a row of this school and owner: the one definition behind
        `owner_q`, the hand-written reads (core.sql.where_equal) and `owns`."""
        return {"tenant_id": self.tenant.pk, "owner_id": self.owner_id, "end_user": self.end_user}

    def owner_q(self, prefix: str = "") -> Q:
        """A filter that keeps rows of this school and owner only."""
        return Q(**{f"{prefix}{column}": value for column, value in self.owner_columns().items()})

    def owns(self, row) -> bool:
        """Whether `row` (a model instance, or anything with the owner columns as
        attributes) belongs to this school and owner."""
        return all(getattr(row, column) == value for column, value in self.owner_columns().items())
