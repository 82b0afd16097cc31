"""LazyTasks: a task set whose tasks are built when first read, for large sets whose ids, platforms and
need of the user are known without building them (the rl-phone set: 512 tasks, one drawn per episode)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar, overload

from crab_gym.core.tasks import Task

__all__ = ["LazyTasks"]

K = TypeVar("K", bound=Hashable)


class LazyTasks(Sequence[Task], Generic[K]):
    """Tasks by (hashable) key, built by ``build(key)`` at the first read of each and kept (the same key
    gives the same object, in this set and in those cut from it). ``id_of``, ``platforms_of`` and
    ``needs_user_of`` answer for a key without building: they must agree with the built task's ``id``,
    ``platforms`` and ``needs_user``."""

    def __init__(
        self,
        keys: Sequence[K],
        build: Callable[[K], Task],
        id_of: Callable[[K], str],
        platforms_of: Callable[[K], tuple[str, ...]],
        needs_user_of: Callable[[K], bool],
        _built: dict[K, Task] | None = None,
    ) -> None:
        self._keys = tuple(keys)
        self._build, self._id_of = build, id_of
        self._platforms_of, self._needs_user_of = platforms_of, needs_user_of
        self._built: dict[K, Task] = {} if _built is None else _built

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, i: int) -> Task: ...

    @overload
    def __getitem__(self, i: slice) -> LazyTasks[K]: ...

    def __getitem__(self, i: int | slice) -> Task | LazyTasks[K]:
        if isinstance(i, slice):
            return self._sub(range(len(self._keys))[i])
        key = self._keys[i]  # IndexError past either end, as a list's
        task = self._built.get(key)
        if task is None:
            task = self._built[key] = self._build(key)
        return task

    def __iter__(self) -> Iterator[Task]:
        return (self[k] for k in range(len(self._keys)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable cache, compared by content: as a list

    def __repr__(self) -> str:
        return f"LazyTasks({len(self)} tasks)"

    @property
    def ids(self) -> tuple[str, ...]:
        """The tasks' ids, in order, none built."""
        return tuple(self._id_of(k) for k in self._keys)

    def fitting(self, devices: Collection[str]) -> LazyTasks[K]:
        """The tasks every platform of which is among ``devices``, still unbuilt."""
        wanted = set(devices)
        return self._sub(k for k, key in enumerate(self._keys) if set(self._platforms_of(key)) <= wanted)

    def needs_user(self) -> bool:
        """Whether any task needs the simulated user (``ask_user``), none built."""
        return any(self._needs_user_of(key) for key in self._keys)

    def _sub(self, positions: Iterable[int]) -> LazyTasks[K]:
        keys = [self._keys[k] for k in positions]
        return LazyTasks(keys, self._build, self._id_of, self._platforms_of, self._needs_user_of, self._built)
