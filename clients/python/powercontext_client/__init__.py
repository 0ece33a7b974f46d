"""PowerContext client: a synchronous client of the PowerContext HTTP contract (standard library
only). See docs/python-client.md.

    from powercontext_client import PowerContextClient, RevisionConflictError

    pc = PowerContextClient("http://127.0.0.1:8000")
    result = pc.remember(scope_id="project:acme/api", entries=[{"kind": "fact", "text": "…"}])
"""

from ._generated import *  # noqa: F401,F403  (wire dataclasses, error classes, OPERATIONS)
from ._generated import __all__ as _generated_all
from ._runtime import UNSET, ResponseShapeError, Unset
from .client import DEFAULT_BASE_URL, DEFAULT_TIMEOUT, PowerContextClient
from .errors import ClientTimeoutError, ConnectionFailedError, PowerContextError, ResponseError

__all__ = [
    "PowerContextClient",
    "PowerContextError",
    "ConnectionFailedError",
    "ClientTimeoutError",
    "ResponseError",
    "ResponseShapeError",
    "UNSET",
    "Unset",
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT",
    *_generated_all,
]
