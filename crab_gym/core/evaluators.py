"""Checks: named boolean functions of a sub-env's state, combinable with ``&``, ``|`` and ``~``.

``@evaluator(env="ubuntu")`` registers ``fn(state, **kwargs) -> bool`` as an :class:`EvaluatorFactory`;
calling the factory with keyword arguments binds them into a :class:`Check`. A check reads the state of the
sub-envs it needs from a (possibly lazy) mapping, so one cached state per device serves every check of a step.
Checks made from registered evaluators serialise to JSON and back.
"""

from __future__ import annotations

import importlib
import inspect
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

__all__ = [
    "EVALUATORS",
    "EVALUATOR_MODULES",
    "Check",
    "CheckResult",
    "EvaluatorFactory",
    "check_from_json",
    "evaluator",
    "get_evaluator",
]

Op = Literal["leaf", "and", "or", "not"]


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a check: whether it passed, and the error that made it fail, if one did."""

    passed: bool
    error: str | None = None


_RESULTS = {True: CheckResult(True), False: CheckResult(False)}  # shared: results are immutable


class _StateMemo(Mapping[str, Any]):
    """Fetches each sub-env state from the underlying mapping at most once."""

    __slots__ = ("_states", "_seen")

    def __init__(self, states: Mapping[str, Any]) -> None:
        self._states = states
        self._seen: dict[str, Any] = {}

    def __getitem__(self, env: str) -> Any:
        try:
            return self._seen[env]
        except KeyError:
            value = self._seen[env] = self._states[env]
            return value

    def __iter__(self) -> Any:
        return iter(self._states)

    def __len__(self) -> int:
        return len(self._states)


@dataclass(frozen=True, eq=False)
class Check:
    """A boolean condition on sub-env states: a leaf bound to one sub-env, or a combination of checks.

    Equal checks (same evaluator and kwargs, or same combination) compare and hash equal, so a graph can
    evaluate a check shared by several nodes once per update.
    """

    name: str
    description: str
    env: str | None = None
    fn: Callable[..., bool] | None = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    evaluator: str | None = None
    op: Op = "leaf"
    children: tuple[Check, ...] = ()
    if TYPE_CHECKING:  # set once by __post_init__ with object.__setattr__; not fields at run time
        _key: tuple[Any, ...] = field(init=False)
        _hash: int = field(init=False)
        _envs: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        if self.op == "leaf":
            if self.env is None or self.fn is None:
                raise ValueError(f"leaf check {self.name!r} needs both env and fn")
            ident: Any = self.evaluator or self.fn
            key: tuple[Any, ...] = ("leaf", self.env, ident, _freeze(self.kwargs))
        else:
            if not self.children or (self.op == "not" and len(self.children) != 1):
                raise ValueError(f"check {self.name!r}: bad children for op {self.op!r}")
            key = (self.op, self.children)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))
        envs = (
            frozenset([self.env])
            if self.op == "leaf"
            else frozenset().union(*(c.envs for c in self.children))
        )
        object.__setattr__(self, "_envs", envs)

    # -- identity -------------------------------------------------------------------------------------

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Check):
            return NotImplemented
        return self._hash == other._hash and self._key == other._key

    def __repr__(self) -> str:
        return f"Check({self.name})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt through the constructor, so the hash is recomputed in the receiving process (string
        # hashes differ between processes). A registered leaf goes by name: its module attribute is the
        # factory, not the function, so the function cannot be pickled by reference.
        if self.op == "leaf" and self.evaluator is not None:
            assert self.fn is not None
            return (_rebuild_leaf, (self.fn.__module__, self.evaluator, dict(self.kwargs)))
        fields = (self.name, self.description, self.env, self.fn, self.kwargs, self.evaluator, self.op)
        return (Check, (*fields, self.children))

    @property
    def envs(self) -> frozenset[str]:
        """Names of the sub-envs whose state this check reads."""
        return self._envs

    # -- evaluation -----------------------------------------------------------------------------------

    def evaluate(self, states: Mapping[str, Any]) -> bool:
        """Whether the check passes; an exception inside an evaluator counts as not passed."""
        return self.evaluate_verbose(states).passed

    def evaluate_verbose(
        self, states: Mapping[str, Any], cache: dict[Check, CheckResult] | None = None
    ) -> CheckResult:
        """Pass/fail plus the error, if an evaluator raised.

        ``states[env]`` is read only for sub-envs a check actually reaches (``&``/``|`` short-circuit),
        each at most once. ``cache`` maps checks to results already computed in this round (the graph's
        per-update cache). Errors reading a state propagate: a broken device is not a failed check.
        A missing sub-env raises ``KeyError``.
        """
        if not isinstance(states, _StateMemo):
            states = _StateMemo(states)
        if cache is None:
            cache = {}
        return self._run(states, cache)

    def _run(self, states: Mapping[str, Any], cache: dict[Check, CheckResult]) -> CheckResult:
        hit = cache.get(self)
        if hit is not None:
            return hit
        if self.op == "leaf":
            result = self._run_leaf(states)
        elif self.op == "not":
            inner = self.children[0]._run(states, cache)
            # An errored check is unknown, not false: its negation does not pass either.
            result = _RESULTS[not inner.passed] if inner.error is None else CheckResult(False, inner.error)
        else:
            want = self.op == "or"  # the value that decides the combination early
            errors = []
            result = _RESULTS[not want]
            for child in self.children:
                sub = child._run(states, cache)
                if sub.error:
                    errors.append(sub.error)
                if sub.passed == want:
                    result = _RESULTS[want]
                    break
            if not result.passed and errors:
                result = CheckResult(False, "; ".join(errors))
        cache[self] = result
        return result

    def _run_leaf(self, states: Mapping[str, Any]) -> CheckResult:
        assert self.env is not None and self.fn is not None
        try:
            state = states[self.env]
        except KeyError:
            raise KeyError(
                f"check {self.name} needs the state of sub-env {self.env!r}, which the states do not provide"
            ) from None
        try:
            return _RESULTS[bool(self.fn(state, **self.kwargs))]
        except Exception as exc:  # an evaluator bug or an odd state must not crash the episode
            return CheckResult(False, f"{self.name} raised {type(exc).__name__}: {exc}")

    # -- combinators ----------------------------------------------------------------------------------

    def __and__(self, other: Check) -> Check:
        if not isinstance(other, Check):
            return NotImplemented
        return _combine("and", self, other)

    def __or__(self, other: Check) -> Check:
        if not isinstance(other, Check):
            return NotImplemented
        return _combine("or", self, other)

    def __invert__(self) -> Check:
        return Check(name=f"~{self.name}", description=f"not {_wrap(self)}", op="not", children=(self,))

    # -- serialisation --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: ``{"evaluator", "kwargs"}`` for a leaf, ``{"and"|"or": [...]}`` or ``{"not": ...}``."""
        if self.op == "leaf":
            if self.evaluator is None:
                raise ValueError(
                    f"check {self.name} was not made by a registered @evaluator, so it cannot be serialised"
                )
            return {"evaluator": self.evaluator, "kwargs": dict(self.kwargs)}
        if self.op == "not":
            return {"not": self.children[0].to_json()}
        return {self.op: [c.to_json() for c in self.children]}


def _wrap(check: Check) -> str:
    """A check's description, parenthesised when it is itself an and/or combination."""
    return f"({check.description})" if check.op in ("and", "or") else check.description


def _combine(op: Literal["and", "or"], a: Check, b: Check) -> Check:
    children = tuple(c for x in (a, b) for c in (x.children if x.op == op else (x,)))
    symbol = " & " if op == "and" else " | "
    return Check(
        name="(" + symbol.join(c.name for c in children) + ")",
        description=f" {op} ".join(_wrap(c) for c in children),
        op=op,
        children=children,
    )


def _freeze(value: Any) -> Any:
    """A hashable stand-in for kwargs values (lists, dicts and sets included)."""
    if isinstance(value, Mapping):
        return tuple(sorted(((k, _freeze(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(_freeze(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return ("unhashable", type(value).__qualname__, repr(value))
    return value


class EvaluatorFactory:
    """A registered evaluator; ``factory(**kwargs)`` binds the arguments into a :class:`Check`."""

    def __init__(self, fn: Callable[..., bool], env: str, name: str | None = None) -> None:
        self.fn = fn
        self.env = env
        self.name = name or fn.__name__
        self.qualified_name = f"{env}.{self.name}"
        params = list(inspect.signature(fn).parameters.values())
        if not params:
            raise TypeError(
                f"evaluator {self.qualified_name} must take the sub-env state as its first parameter"
            )
        self._signature = inspect.Signature(params[1:])
        first_line = (inspect.getdoc(fn) or "").strip().splitlines()
        self.template = first_line[0] if first_line else ""
        names = {p.name for p in params[1:]}
        for _, fname, _, _ in string.Formatter().parse(self.template):
            root = (fname or "").split(".")[0].split("[")[0]
            if fname is not None and root not in names:
                raise TypeError(
                    f"evaluator {self.qualified_name}: docstring field {{{fname}}} is not a parameter "
                    f"(parameters: {', '.join(sorted(names)) or 'none'})"
                )

    def __call__(self, **kwargs: Any) -> Check:
        try:
            bound = self._signature.bind(**kwargs)
        except TypeError as exc:
            raise TypeError(f"evaluator {self.qualified_name}{self._signature}: {exc}") from None
        bound.apply_defaults()
        args = dict(bound.arguments)
        name = f"{self.name}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
        description = self.template.format(**args) if self.template else name
        return Check(
            name=name,
            description=description,
            env=self.env,
            fn=self.fn,
            kwargs=args,
            evaluator=self.qualified_name,
        )

    def __repr__(self) -> str:
        return f"EvaluatorFactory({self.qualified_name}{self._signature})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_load_factory, (self.fn.__module__, self.qualified_name))


def _load_factory(module: str, qualified_name: str) -> EvaluatorFactory:
    """The registered factory, importing the module that registers it if needed (for unpickling)."""
    if qualified_name not in EVALUATORS:
        importlib.import_module(module)
    return get_evaluator(qualified_name)


def _rebuild_leaf(module: str, qualified_name: str, kwargs: dict[str, Any]) -> Check:
    return _load_factory(module, qualified_name)(**kwargs)


EVALUATORS: dict[str, EvaluatorFactory] = {}
"""Every registered evaluator, keyed by ``"<env>.<function name>"``."""

EVALUATOR_MODULES: dict[str, tuple[str, ...]] = {}
"""Per env, modules that register its evaluators and that :func:`get_evaluator` imports for a name not yet
registered (filled by whoever defers importing them, e.g. the task templates)."""


@overload
def evaluator(fn: Callable[..., bool], *, env: str, name: str | None = None) -> EvaluatorFactory: ...
@overload
def evaluator(
    fn: None = None, *, env: str, name: str | None = None
) -> Callable[[Callable[..., bool]], EvaluatorFactory]: ...
def evaluator(
    fn: Callable[..., bool] | None = None, *, env: str, name: str | None = None
) -> EvaluatorFactory | Callable[[Callable[..., bool]], EvaluatorFactory]:
    """Register ``fn(state, **kwargs) -> bool`` for sub-env ``env``; returns its :class:`EvaluatorFactory`.

    The docstring's first line, formatted with the kwargs, is the check's description (feedback to agents).
    Registering another function under a taken ``env.name`` raises ``ValueError``.
    """

    def register(f: Callable[..., bool]) -> EvaluatorFactory:
        factory = EvaluatorFactory(f, env, name)
        old = EVALUATORS.get(factory.qualified_name)
        if old is not None and old.fn is f and old.env == env:
            return old  # registering the same function twice is harmless
        if old is not None and _origin(old.fn) != _origin(f):  # same origin: a module reload replaces it
            raise ValueError(
                f"evaluator {factory.qualified_name} is already registered by {_origin(old.fn)}; "
                f"rename {_origin(f)} or pass name=..."
            )
        EVALUATORS[factory.qualified_name] = factory
        return factory

    return register(fn) if fn is not None else register


def _origin(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def get_evaluator(qualified_name: str) -> EvaluatorFactory:
    """The registered evaluator ``"<env>.<name>"``, or ``KeyError`` listing what is registered."""
    if qualified_name not in EVALUATORS:
        for module in EVALUATOR_MODULES.get(qualified_name.partition(".")[0], ()):
            importlib.import_module(module)
    try:
        return EVALUATORS[qualified_name]
    except KeyError:
        known = ", ".join(sorted(EVALUATORS)) or "none (import the sub-env's evaluators module first)"
        raise KeyError(f"no evaluator {qualified_name!r}; registered: {known}") from None


def check_from_json(obj: Mapping[str, Any]) -> Check:
    """Rebuild a :class:`Check` from :meth:`Check.to_json` output."""
    if not isinstance(obj, Mapping) or len(obj) not in (1, 2):
        raise ValueError(f"not a serialised check: {obj!r}")
    if "evaluator" in obj:
        kwargs = obj.get("kwargs", {})
        if not isinstance(kwargs, Mapping):
            raise ValueError(f"check {obj['evaluator']}: 'kwargs' must be an object, got {kwargs!r}")
        return get_evaluator(obj["evaluator"])(**kwargs)
    if "not" in obj:
        return ~check_from_json(obj["not"])
    for op in ("and", "or"):
        if op in obj:
            parts = obj[op]
            if not isinstance(parts, list) or len(parts) < 2:
                raise ValueError(f"check {op!r} needs a list of at least 2 checks, got {parts!r}")
            checks = [check_from_json(p) for p in parts]
            result = checks[0]
            for c in checks[1:]:
                result = (result & c) if op == "and" else (result | c)
            return result
    raise ValueError(f"not a serialised check (expected 'evaluator', 'and', 'or' or 'not'): {obj!r}")
