"""One application error type. A client error is a 4xx JSON body with a stable `code`."""


class AppError(Exception):
    status = 400

    def __init__(self, code: str, message: str = "", *, status: int | None = None, **extra):
        super().__init__(message or code)
        self.code = code
        self.message = message or code
        if status is not None:
            self.status = status
        self.extra = extra

    def as_body(self) -> dict:
        return {"code": self.code, "message": self.message, **self.extra}


class NotFound(AppError):
    status = 404

    def __init__(self, what: str = "object"):
        super().__init__("not_found", f"{what} not found")
