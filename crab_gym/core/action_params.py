"""An action parameter's limits and checks, and their pydantic form.

:class:`Bounds` and :class:`ParamCheck` sit in a parameter's ``Annotated`` type without pydantic (a phone's
first observation needs none); :func:`build_params_model` turns an action's parameters into a pydantic model
when the action is first validated or described.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

if TYPE_CHECKING:
    import pydantic

    from crab_gym.core.actions import ParamSpec


@dataclass(frozen=True)
class Bounds:
    """A parameter's limits in its ``Annotated`` type, as pydantic's ``Field(ge=..., le=..., min_length=...,
    max_length=...)`` gives them, without importing pydantic until an action's model is built (a phone's
    first observation needs none). The action space reads them too (crab_gym.spaces)."""

    ge: float | None = None
    le: float | None = None
    min_length: int | None = None
    max_length: int | None = None


@dataclass(frozen=True)
class ParamCheck:
    """A parameter's check in its ``Annotated`` type, run on the value after its type's own (pydantic's
    ``AfterValidator``); it returns the value or raises ValueError."""

    fn: Callable[[Any], Any]


def build_params_model(name: str, params: Sequence[ParamSpec]) -> type[pydantic.BaseModel]:
    """A pydantic model named ``name`` with one field per parameter, closed to unknown keys.

    Built when an action is first validated or described, not at decoration: each model takes milliseconds
    to build, and a process that drives one device needs none of the other devices' models. :class:`Bounds`
    and :class:`ParamCheck` in the annotations become pydantic's ``Field`` and ``AfterValidator``.
    """
    import pydantic

    fields: dict[str, Any] = {
        p.name: (
            pydantic_type(p.annotation),
            pydantic.Field(... if p.required else p.default, description=p.description),
        )
        for p in params
    }
    return pydantic.create_model(name, __config__=pydantic.ConfigDict(extra="forbid"), **fields)


def pydantic_type(annotation: Any) -> Any:
    """``annotation`` with every :class:`Bounds` and :class:`ParamCheck` in it (nested in tuples, lists and
    unions too) replaced by the pydantic metadata it stands for."""
    import pydantic

    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        meta: list[Any] = []
        for m in annotation.__metadata__:
            if isinstance(m, Bounds):
                meta.append(
                    pydantic.Field(**{k: v for k, v in dataclasses.asdict(m).items() if v is not None})
                )
            elif isinstance(m, ParamCheck):
                meta.append(pydantic.AfterValidator(m.fn))
            else:
                meta.append(m)
        return Annotated[(pydantic_type(args[0]), *meta)]
    if not args or origin is Literal:
        return annotation
    new = tuple(pydantic_type(a) for a in args)
    if all(n is a for n, a in zip(new, args, strict=True)):
        return annotation
    if origin in (Union, types.UnionType):
        return Union[new]  # noqa: UP007 - a union built from a tuple of types
    return origin[new]
