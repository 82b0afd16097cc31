"""Actions: typed, documented functions a device performs, described once for policies and LLMs alike.

`@action` turns a function ``fn(target, **params)`` into an :class:`ActionSpec`. Its parameters come from the
type hints, their descriptions from the Google-style ``Args:`` section of the docstring. The spec validates
parameters with pydantic and reports faults as :class:`InvalidAction` messages an LLM can act on, and it
renders itself as an OpenAI-style tool schema.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, overload

import docstring_parser

from crab_gym.core.action_params import Bounds, ParamCheck, build_params_model
from crab_gym.core.action_schema import clean_schema, expected, short_repr

if TYPE_CHECKING:  # pydantic is imported when an action's model is first built (params_model)
    import pydantic

__all__ = [
    "REQUIRED",
    "ActionSpec",
    "Bounds",
    "ParamCheck",
    "Direction",
    "Distance",
    "InvalidAction",
    "ParamSpec",
    "Point",
    "Typable",
    "TypedText",
    "action",
    "build_params_model",
]


class InvalidAction(ValueError):
    """Bad action parameters; the message names the action, the parameter and what would be valid."""


Unit = Annotated[float, Bounds(ge=0, le=1)]
"""A float in [0, 1]."""

Point = tuple[Unit, Unit]
"""A screen position (x, y), each coordinate normalised to [0, 1] of the screen's width and height."""

Direction = Literal["up", "down", "left", "right"]
"""Direction of a scroll or swipe."""

Distance = Literal["short", "medium", "long"]
"""How far a scroll or swipe goes."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _no_control_characters(text: str) -> str:
    """Typed text is text: C0/C1 control characters other than newline and tab are keys, not text (a NUL
    would also cut an adb command short)."""
    bad = _CONTROL.search(text)
    if bad:
        raise ValueError(
            f"control character U+{ord(bad.group()):04X} at index {bad.start()} cannot be typed "
            "(only newline and tab; press keys for the rest)"
        )
    return text


Typable = ParamCheck(_no_control_characters)
"""Metadata for a text parameter that is typed on a device: rejects control characters."""

TypedText = Annotated[str, Bounds(min_length=1, max_length=1024), Typable]
"""Text typed at the current focus (one parameter type on every device, so one action space entry)."""


class _Required:
    """Sentinel type for a parameter without a default."""

    _instance: _Required | None = None

    def __new__(cls) -> _Required:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "REQUIRED"

    def __reduce__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""Default of a :class:`ParamSpec` that must be given."""


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of an action: its name, type annotation, description and default."""

    name: str
    annotation: Any
    description: str
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        """Whether the caller must give this parameter."""
        return self.default is REQUIRED


@dataclass(frozen=True, eq=False)
class ActionSpec:
    """A validated, self-describing action; call it as ``spec(target, **params)``."""

    name: str
    description: str
    fn: Callable[..., Any]
    params: tuple[ParamSpec, ...]
    model: type[pydantic.BaseModel] | None = field(default=None, repr=False)
    """The pydantic model that validates the parameters; None: built from ``params`` when first needed (see
    :meth:`params_model`), as a process that makes one device's env builds no other device's models."""
    rebuild: tuple[Callable[..., ActionSpec], tuple[Any, ...]] | None = field(default=None, repr=False)
    """For a spec derived at run time from another (a wrapper's variant): a module-level function and its
    picklable arguments that build it again, so the spec pickles by recipe instead of by reference."""

    @property
    def param_names(self) -> tuple[str, ...]:
        """Names of the parameters, in signature order."""
        return tuple(p.name for p in self.params)

    def validate(self, params: Mapping[str, Any], *, ignore_extra: bool = False) -> dict[str, Any]:
        """Validated python values (defaults filled in, points as tuples), or :class:`InvalidAction`.

        With ``ignore_extra`` unknown keys are dropped instead of rejected (a policy's action dict carries
        every parameter of every action).
        """
        if not isinstance(params, Mapping):
            raise InvalidAction(
                f"{self.name}: parameters must be a mapping of name to value "
                f"({self._signature_hint()}); got {short_repr(params)}"
            )
        if ignore_extra:
            names = set(self.param_names)
            params = {k: v for k, v in params.items() if k in names}
        model_class = self.params_model()
        from pydantic import ValidationError  # imported by params_model

        try:
            model = model_class.model_validate(dict(params))
        except ValidationError as exc:
            raise InvalidAction(self._explain(exc, params)) from None
        return {name: getattr(model, name) for name in self.param_names}

    def params_model(self) -> type[pydantic.BaseModel]:
        """The pydantic model of the parameters (``model``, or one built from ``params`` and kept)."""
        if self.model is not None:
            return self.model
        model = build_params_model(f"{self.name}_params", self.params)
        object.__setattr__(self, "model", model)  # frozen: a cache, not a change of value
        return model

    def __call__(self, target: Any, **params: Any) -> Any:
        """Validate ``params`` and run the action on ``target`` (the device or backend)."""
        return self.fn(target, **self.validate(params))

    def parameters_schema(self) -> dict[str, Any]:
        """JSON schema of the parameters object: inlined, untitled, closed to unknown keys."""
        schema = clean_schema(self.params_model().model_json_schema())
        schema.setdefault("properties", {})
        schema["required"] = [p.name for p in self.params if p.required]
        schema["additionalProperties"] = False
        return schema

    def tool_schema(self) -> dict[str, Any]:
        """The action as a tool in the OpenAI function-calling format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters_schema(),
            },
        }

    def __reduce__(self) -> tuple[Any, ...]:
        if self.rebuild is not None:
            return self.rebuild
        # By reference: the decorated name in the defining module holds this spec (the pydantic model and
        # the wrapped function are not importable by themselves).
        module, qualname = self.fn.__module__, self.fn.__qualname__
        if _import_spec(module, qualname) is not self:
            raise pickle.PicklingError(
                f"action {self.name!r} cannot be pickled: {module}.{qualname} is not this ActionSpec "
                "(define actions with @action at module or class level)"
            )
        return (_import_spec, (module, qualname))

    def _signature_hint(self) -> str:
        if not self.params:
            return "it takes no parameters"
        return "parameters: " + ", ".join(
            p.name if p.required else f"{p.name} (optional)" for p in self.params
        )

    def _explain(self, exc: pydantic.ValidationError, given: Mapping[str, Any]) -> str:
        """One readable sentence per faulty parameter, from pydantic's errors (loc, msg, input)."""
        props = self.parameters_schema()["properties"]
        reasons: dict[str, str] = {}
        for err in exc.errors():
            loc = err["loc"]
            pname = str(loc[0]) if loc else ""
            if pname in reasons:
                continue
            if err["type"] == "extra_forbidden":
                reasons[pname] = f"unknown parameter {pname!r}; {self._signature_hint()}"
            elif err["type"] == "missing" and len(loc) == 1:
                reasons[pname] = f"parameter {pname!r} is required: {expected(props.get(pname, {}))}"
            else:
                where = " ".join(f"item {part}" if isinstance(part, int) else repr(part) for part in loc[1:])
                detail = f"at {where}: {err['msg']}" if where else err["msg"]
                reasons[pname] = (
                    f"parameter {pname!r} must be {expected(props.get(pname, {}))}; "
                    f"got {short_repr(given.get(pname))} ({detail})"
                )
        return f"{self.name}: " + "; ".join(reasons.values())


def _import_spec(module: str, qualname: str) -> Any:
    """The object named ``qualname`` in ``module``, or None (used to pickle specs by reference)."""
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


@overload
def action(fn: Callable[..., Any], *, name: str | None = None) -> ActionSpec: ...
@overload
def action(fn: None = None, *, name: str | None = None) -> Callable[[Callable[..., Any]], ActionSpec]: ...
def action(
    fn: Callable[..., Any] | None = None, *, name: str | None = None
) -> ActionSpec | Callable[[Callable[..., Any]], ActionSpec]:
    """Make an :class:`ActionSpec` from ``fn(target, ...)``; usable as ``@action`` or ``@action(name=...)``.

    Every parameter after the first needs a type hint and an ``Args:`` entry in the docstring, else
    ``TypeError`` at decoration time. Parameters with defaults become optional.
    """

    def build(f: Callable[..., Any]) -> ActionSpec:
        return _build_spec(f, name or f.__name__)

    return build(fn) if fn is not None else build


def _build_spec(fn: Callable[..., Any], name: str) -> ActionSpec:
    where = f"action {name!r} ({fn.__module__}.{fn.__qualname__})"
    if not fn.__doc__ or not fn.__doc__.strip():
        raise TypeError(f"{where} needs a docstring: it is the description agents read")
    doc = docstring_parser.parse(fn.__doc__, style=docstring_parser.DocstringStyle.GOOGLE)
    description = "\n\n".join(part for part in (doc.short_description, doc.long_description) if part)
    arg_docs = {p.arg_name: (p.description or "").strip() for p in doc.params}
    sig_params = list(inspect.signature(fn).parameters.values())
    if not sig_params:
        raise TypeError(f"{where} must take the target (device) as its first parameter")
    # Evaluate every hint but the target's: the target type may only exist for type checkers.
    raw = dict(inspect.get_annotations(fn))
    raw.pop(sig_params[0].name, None)
    hints = {
        k: eval(v, fn.__globals__) if isinstance(v, str) else v  # noqa: S307 - annotations of our own code
        for k, v in raw.items()
        if k != "return"
    }
    params: list[ParamSpec] = []
    for p in sig_params[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise TypeError(f"{where}: parameter {p.name!r} must be a plain named parameter, not {p.kind}")
        if p.name not in hints:
            raise TypeError(f"{where}: parameter {p.name!r} needs a type hint")
        if not arg_docs.get(p.name):
            raise TypeError(
                f"{where}: parameter {p.name!r} needs a description under 'Args:' in the docstring"
            )
        default = REQUIRED if p.default is p.empty else p.default
        params.append(ParamSpec(p.name, hints[p.name], arg_docs[p.name], default))
    stale = set(arg_docs) - {p.name for p in params} - {sig_params[0].name}
    if stale:
        raise TypeError(f"{where}: docstring documents unknown parameter(s) {sorted(stale)}")
    return ActionSpec(name=name, description=description, fn=fn, params=tuple(params))
