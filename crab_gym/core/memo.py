"""``cached_read``: memoise a method on its object, so the results die with the object.

``functools.cache`` on a method keeps one class-wide cache keyed by ``self``: every object it ever saw stays
alive with every result, for the life of the process. Our state views are made anew each step, so that was a
leak of one view (with its file contents, UI dumps and query rows) per step.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

_MEMO = "_cached_reads"


def cached_read(fn: F) -> F:
    """Cache ``fn(self, *args, **kwargs)`` in ``self.__dict__``: once per object and arguments (hashable)."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        memo = self.__dict__.get(_MEMO)
        if memo is None:
            memo = self.__dict__[_MEMO] = {}
        key = (name, args, frozenset(kwargs.items())) if kwargs else (name, args)
        try:
            return memo[key]
        except KeyError:
            pass
        value = memo[key] = fn(self, *args, **kwargs)
        return value

    return cast(F, wrapper)  # functools.wraps keeps fn's signature, which mypy cannot see
