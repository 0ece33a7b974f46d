"""`PowerContextClient`: a synchronous client of the PowerContext HTTP contract (standard library
only: `http.client` for the transport, `urllib.parse` for URLs).

Every call is sent exactly once: nothing is retried (a timeout or a dropped connection after a
mutation leaves it unknown whether it was applied; read it back before sending it again), and
redirects are not followed (following one would send the request a second time): a 3xx answer is
reported as a `ResponseError` or the error its envelope names.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import urllib.parse
from typing import Any, Dict, Optional, Tuple

from ._generated import ERROR_CLASSES, OPERATIONS, Operations
from ._runtime import ResponseShapeError
from .errors import ClientTimeoutError, ConnectionFailedError, PowerContextError, ResponseError

#: Server when neither `base_url` nor `POWERCONTEXT_CLIENT_SERVER_URL` is given.
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
#: Seconds a call may take when neither `timeout` nor `POWERCONTEXT_CLIENT_TIMEOUT` is given.
DEFAULT_TIMEOUT = 10.0

REQUEST_ID_HEADER = "X-PowerContext-Request-ID"

#: Codes of a non-2xx answer without an error envelope (a proxy, or a server shutting down).
_STATUS_FALLBACK = {401: "unauthorized", 413: "payload_too_large", 503: "runtime_not_ready"}


def _env(name: str) -> Optional[str]:
    value = os.environ.get(f"POWERCONTEXT_CLIENT_{name}")
    return None if value is None or value == "" else value


class PowerContextClient(Operations):
    """A synchronous client of a PowerContext server: one method per contract operation.

    `base_url` defaults to `POWERCONTEXT_CLIENT_SERVER_URL`, else `http://127.0.0.1:8000` (a path
    prefix behind a proxy is kept); `token` to `POWERCONTEXT_CLIENT_API_TOKEN` (sent as
    `Authorization: Bearer …`); `timeout` (seconds, for connecting and for each read of the
    response) to `POWERCONTEXT_CLIENT_TIMEOUT`, else 10. Each method takes the request's fields as
    keyword arguments (or one request dataclass), plus `request_id` and `timeout` for that call,
    and returns the response dataclass. Failures raise a `PowerContextError` subclass.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> None:
        url = base_url if base_url is not None else (_env("SERVER_URL") or DEFAULT_BASE_URL)
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or parsed.netloc == "":
            raise ValueError(f"base_url must be an absolute http(s) URL, got {url!r}")
        if parsed.query or parsed.fragment:
            raise ValueError("base_url must not have a query or a fragment")
        self.base_url = url.rstrip("/")
        self.token = token if token is not None else _env("API_TOKEN")
        if timeout is None:
            raw = _env("TIMEOUT")
            timeout = float(raw) if raw is not None else DEFAULT_TIMEOUT
        if not timeout > 0:
            raise ValueError("timeout must be a positive number of seconds")
        self.timeout = float(timeout)

    def __enter__(self) -> "PowerContextClient":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release (`urllib` opens a connection per call); kept for `with` blocks."""

    def _call(
        self, operation: str, body: Any, request_id: Optional[str], timeout: Optional[float]
    ) -> Any:
        op = OPERATIONS[operation]
        headers: Dict[str, str] = {"Accept": "application/json"}
        data = None
        if op.method != "GET":
            data = json.dumps(body if body is not None else {}, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        if request_id is not None:
            headers[REQUEST_ID_HEADER] = request_id
        limit = self.timeout if timeout is None else timeout
        try:
            status, response_headers, raw = self._send(op.method, op.path, data, headers, limit)
        except (socket.timeout, TimeoutError) as err:
            raise ClientTimeoutError(
                f"no complete response within {limit} s",
                request_id=request_id,
                details={"timeout_s": limit},
            ) from err
        except (OSError, http.client.HTTPException) as err:
            raise ConnectionFailedError(
                f"cannot reach {self.base_url}: {err}",
                request_id=request_id,
                details={"reason": type(err).__name__},
            ) from err
        # A declared status is an answer (`ready` declares 503); an undeclared 2xx is refused.
        if status in op.responses or 200 <= status < 300:
            return self._success(op, status, response_headers, raw)
        raise _error_from(status, response_headers, raw)

    def _send(
        self, method: str, path: str, data: Optional[bytes], headers: Dict[str, str], limit: float
    ) -> Tuple[int, Any, bytes]:
        """One request on a fresh connection; redirects are answers, not followed."""
        url = urllib.parse.urlsplit(self.base_url)
        connection_class = (
            http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        )
        conn = connection_class(url.hostname or "", url.port, timeout=limit)
        try:
            try:
                conn.request(method, url.path + path, body=data, headers=headers)
            except (BrokenPipeError, ConnectionResetError):
                # The server may answer before reading the whole body (413) and close: its answer
                # is still there to read, so read it instead of reporting a broken connection.
                pass
            response = conn.getresponse()
            return response.status, response.headers, response.read()
        finally:
            conn.close()

    @staticmethod
    def _success(op: Any, status: int, headers: Any, raw: bytes) -> Any:
        request_id = headers.get(REQUEST_ID_HEADER)
        decode = op.responses.get(status)
        if decode is None:
            raise ResponseError(
                f"{op.id} answered HTTP {status}, which the contract does not declare",
                status=status,
                request_id=request_id,
                details={"status": status},
            )
        if "json" not in (headers.get("Content-Type") or ""):
            return raw.decode("utf-8")
        try:
            return decode(json.loads(raw.decode("utf-8")), "body")
        except (ValueError, ResponseShapeError) as err:
            raise ResponseError(
                f"{op.id}: the response body does not have the declared shape ({err})",
                status=status,
                request_id=request_id,
                details={"path": getattr(err, "path", None)},
            ) from err


def _error_from(status: int, headers: Any, raw: bytes) -> PowerContextError:
    """The exception of a non-2xx answer, rebuilt from the error envelope."""
    header_id = headers.get(REQUEST_ID_HEADER)
    try:
        body = json.loads(raw.decode("utf-8"))
    except ValueError:
        body = None
    envelope = body.get("error") if isinstance(body, dict) else None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("message"), str):
        code = _STATUS_FALLBACK.get(status, "internal_error")
        text = raw[:200].decode("utf-8", "replace")
        return ERROR_CLASSES[code](
            f"unexpected HTTP {status} response without an error envelope" + (f": {text}" if text else ""),
            status=status,
            request_id=header_id,
        )
    request_id = envelope.get("request_id") if isinstance(envelope.get("request_id"), str) else header_id
    details = envelope.get("details") if isinstance(envelope.get("details"), dict) else None
    code = envelope.get("code")
    if isinstance(code, str) and code in ERROR_CLASSES:
        return ERROR_CLASSES[code](
            envelope["message"], status=status, request_id=request_id, details=details
        )
    return ERROR_CLASSES["internal_error"](
        envelope["message"],
        status=status,
        request_id=request_id,
        details={**(details or {}), "server_code": code},
    )
