"""The client's exceptions: one class per error code of the contract (generated, in
`_generated.py`) under `PowerContextError`, plus the two failures the client detects itself."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Optional


class PowerContextError(Exception):
    """A failed call. Branch on the class or on `code`, never on `status` or the message.

    `code` is the contract's error code (or `connection_failed` / `timeout`), `status` the HTTP
    status (0 when no response came), `request_id` the server's request id (from the envelope,
    else the `X-PowerContext-Request-ID` header; for client-side failures the caller's own id, if
    any), `details` the envelope's details or None.
    """

    code_name: ClassVar[str] = "internal_error"

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        status: int = 0,
        request_id: Optional[str] = None,
        details: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.code: str = code if code is not None else self.code_name
        self.message = message
        self.status = status
        self.request_id = request_id
        self.details = details

    def __str__(self) -> str:
        rid = "" if self.request_id is None else f" (request {self.request_id})"
        return f"{self.code}: {self.message}{rid}"


class ConnectionFailedError(PowerContextError):
    """No HTTP response: refused, reset, DNS, TLS (`details["reason"]`). A mutation may or may not
    have been applied: read it back before sending it again."""

    code_name = "connection_failed"


class ClientTimeoutError(PowerContextError, TimeoutError):
    """No complete response within the timeout (`details["timeout_s"]`). A mutation may or may not
    have been applied: read it back before sending it again."""

    code_name = "timeout"


class ResponseError(PowerContextError):
    """A declared success status whose body is not the declared shape, or a 2xx status the
    operation does not declare (code `internal_error`, `details` says what)."""

    code_name = "internal_error"
