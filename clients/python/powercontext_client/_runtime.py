"""What the generated models and operations lean on: the UNSET marker, field descriptors, strict
decoding of response bodies and encoding of request bodies. Standard library only."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar, Dict, Mapping, NamedTuple, Optional, Tuple


class Unset:
    """The marker of a field that is absent (not sent, or not in the response)."""

    _instance: ClassVar[Optional["Unset"]] = None

    def __new__(cls) -> "Unset":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET = Unset()

#: Models by name, for descriptors that refer to a model defined later in the module.
MODELS: Dict[str, type] = {}


class ResponseShapeError(ValueError):
    """A success response whose body does not have the declared shape (`path` names the field)."""

    def __init__(self, path: str, expected: str, value: Any) -> None:
        super().__init__(f"{path}: expected {expected}, got {type(value).__name__}")
        self.path = path


Decoder = Callable[[Any, str], Any]


class T:
    """Type descriptors: each decodes a JSON value strictly or raises `ResponseShapeError`."""

    @staticmethod
    def _scalar(name: str, check: Callable[[Any], bool]) -> Decoder:
        def decode(value: Any, path: str) -> Any:
            if not check(value):
                raise ResponseShapeError(path, name, value)
            return value

        return decode

    STR: Decoder
    INT: Decoder
    FLOAT: Decoder
    BOOL: Decoder
    ANY: Decoder

    @staticmethod
    def nullable(inner: Decoder) -> Decoder:
        return lambda value, path: None if value is None else inner(value, path)

    @staticmethod
    def list(item: Decoder) -> Decoder:
        def decode(value: Any, path: str) -> Any:
            if not isinstance(value, list):
                raise ResponseShapeError(path, "an array", value)
            return [item(v, f"{path}[{i}]") for i, v in enumerate(value)]

        return decode

    @staticmethod
    def dict(values: Decoder) -> Decoder:
        def decode(value: Any, path: str) -> Any:
            if not isinstance(value, dict):
                raise ResponseShapeError(path, "an object", value)
            return {k: values(v, f"{path}.{k}") for k, v in value.items()}

        return decode

    @staticmethod
    def model(name: str) -> Decoder:
        return lambda value, path: MODELS[name].from_dict(value, path)


T.STR = T._scalar("a string", lambda v: isinstance(v, str))
T.INT = T._scalar("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
T.FLOAT = T._scalar(
    "a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
)
T.BOOL = T._scalar("a boolean", lambda v: isinstance(v, bool))
T.ANY = lambda value, path: value


class Field(NamedTuple):
    """One field of a model: attribute name, JSON key, decoder, whether it is required."""

    attr: str
    key: str
    decode: Decoder
    required: bool


class Model:
    """Base of the generated dataclasses: strict `from_dict`, `to_dict` without absent fields."""

    _FIELDS: ClassVar[Tuple[Field, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        MODELS[cls.__name__] = cls

    @classmethod
    def from_dict(cls, data: Any, path: str = "body") -> Any:
        """Builds the model from a decoded JSON object; fields this client does not know are
        ignored (servers may add fields), missing required ones raise `ResponseShapeError`."""
        if not isinstance(data, dict):
            raise ResponseShapeError(path, f"an object ({cls.__name__})", data)
        values: Dict[str, Any] = {}
        for f in cls._FIELDS:
            if f.key in data:
                values[f.attr] = f.decode(data[f.key], f"{path}.{f.key}")
            elif f.required:
                raise ResponseShapeError(f"{path}.{f.key}", "a required field", None)
        model = cls(**values)
        known = {f.key for f in cls._FIELDS}
        object.__setattr__(model, "_extra", {k: v for k, v in data.items() if k not in known})
        return model

    @property
    def extra(self) -> Dict[str, Any]:
        """Fields of the response this client's contract does not name (newer servers add some)."""
        return dict(getattr(self, "_extra", {}))

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object of the model (absent fields left out)."""
        return {
            f.key: encode(getattr(self, f.attr))
            for f in self._FIELDS
            if getattr(self, f.attr) is not UNSET
        }


def encode(value: Any) -> Any:
    """A request value as JSON data: models become objects, absent fields are dropped."""
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {k: encode(v) for k, v in value.items() if v is not UNSET}
    return value


def _body(request: Optional[Model], model: type, fields: Dict[str, Any]) -> Dict[str, Any]:
    """The body of a call made with a request model, or with keyword arguments (not both)."""
    given = {k: v for k, v in fields.items() if v is not UNSET}
    if request is not None:
        if given:
            raise TypeError(f"pass either a {model.__name__} or keyword arguments, not both")
        if not isinstance(request, model):
            raise TypeError(f"expected a {model.__name__}, got {type(request).__name__}")
        return request.to_dict()
    by_attr = {f.attr: f for f in model._FIELDS}  # type: ignore[attr-defined]
    missing = [f.attr for f in by_attr.values() if f.required and f.attr not in given]
    if missing:
        raise TypeError(f"missing required argument(s): {', '.join(missing)}")
    return {by_attr[k].key: encode(v) for k, v in given.items()}


class Operation(NamedTuple):
    """One operation of the contract: id, method, path, request model name, and the decoder of
    each declared status that has a body (`ready` also declares 503)."""

    id: str
    method: str
    path: str
    request: Optional[str]
    responses: Dict[int, Decoder]


def dataclass_fields(model: type) -> Tuple[str, ...]:
    """Attribute names of a generated model (for tests and introspection)."""
    return tuple(f.name for f in dataclasses.fields(model))
