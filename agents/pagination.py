"""List paging with bounds: a huge offset is a 422, never a database overflow."""

from ninja import Field, Schema
from ninja.pagination import LimitOffsetPagination

PAGE_MAX = 100
OFFSET_MAX = 10**9


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    class Input(Schema):
        limit: int = Field(20, ge=1, le=PAGE_MAX)
        offset: int = Field(0, ge=0, le=OFFSET_MAX)
