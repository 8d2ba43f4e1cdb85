"""Public ids: a short prefix and random base32, never a sequential integer in a URL."""

import secrets

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def public_id(prefix: str, length: int = 16) -> str:
    return prefix + "".join(secrets.choice(_ALPHABET) for _ in range(length))


def new_tenant_id() -> str:
    return public_id("sch_")


def new_agent_id() -> str:
    return public_id("ag_")


def new_run_id() -> str:
    return public_id("run_")


def new_thread_id() -> str:
    return public_id("th_")


def new_memory_op_id() -> str:
    return public_id("mop_")
