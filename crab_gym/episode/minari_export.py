"""Recorded episodes (:mod:`crab_gym.episode.format`) as a Minari dataset, for offline RL and imitation.

The dataset's spaces are the recorded env's (``observation_space`` / ``action_space`` of ``episode.json``):
CrabEnv's ``Tuple(Discrete, Discrete, Dict(..., Text))`` action, FlattenActions' ``MultiDiscrete`` and flat
``Dict`` of ``Box``, or the ``Text`` tool call of FunctionCalls. Observations are the ones the agent got
(step 0 is the reset); actions are the step lines' ``action`` put back into the action space's structure
(arrays, ints, strings; a FunctionCalls action is the raw tool-call text, a tool call that was not text is
stored as its JSON). Every episode of one dataset must have the same spaces.

How it is stored, and why:

* Minari's ``parquet`` format (compressed: screens are mostly flat colour) or ``arrow`` (faster to write
  and read, uncompressed: a phone episode of 8 frames takes 62 MB against 4 MB). Minari's default, HDF5,
  needs ``h5py``, which crab-gym does not depend on. Both keep ``Text`` leaves anywhere in a space (inside
  a ``Tuple`` or ``Dict`` too) as strings: nothing is converted or dropped.
* Frames are stored losslessly (``jpeg=False``): Minari 0.5.4 JPEG-encodes image spaces by default.
* Minari's reader needs every ``Box`` bound element spelled out in ``metadata.json`` (about 70 MB of JSON
  for a 2400x1080x3 screen, a few seconds to parse at ``minari.load_dataset``). Minari rewrites that file
  on every update, so the spaces are written into it once, at the end, from text built by repetition.
* A 0-d observation (Set-of-Marks' ``mark_count``) recorded with shape ``(1,)`` by older writers is reshaped
  to the space's shape, which keeps its value; any other mismatch is a ValueError naming the step.
* ``infos`` per step (index 0 is the reset): ``completion_ratio`` (float), ``success`` and
  ``invalid_action`` (bool). Each episode's metadata names the recorded episode, task, seed and outcome,
  and for a group rollout ``group_id``, ``group_branch``, ``group_size`` and ``group_branch_at``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec, WrapperSpec

from crab_gym.episode.format import Episode, load_episodes
from crab_gym.episode.space_json import space_from_json

__all__ = ["export_minari", "minari_space_text"]

_ROOT_ENV = "MINARI_DATASETS_PATH"
# Applied by gym.make itself: not part of a recreated env's additional wrappers.
_GYM_WRAPPERS = ("gymnasium.wrappers.common.PassiveEnvChecker", "gymnasium.wrappers.common.OrderEnforcing")


def minari_space_text(space: spaces.Space) -> str:
    """``space`` as the JSON text ``minari.serialization.serialize_space`` writes (every ``Box`` bound element
    spelled out, which its reader needs), built by repeating text when a bound is uniform: 0.05 s, not 5 s,
    for a 2400x1080x3 screen."""
    if isinstance(space, spaces.Dict):
        items = ", ".join(f"{json.dumps(k)}: {minari_space_text(s)}" for k, s in space.spaces.items())
        return f'{{"type": "Dict", "subspaces": {{{items}}}}}'
    if isinstance(space, spaces.Tuple):
        return f'{{"type": "Tuple", "subspaces": [{", ".join(minari_space_text(s) for s in space.spaces)}]}}'
    if isinstance(space, spaces.Box):
        head = json.dumps({"type": "Box", "dtype": str(space.dtype), "shape": list(space.shape)})[:-1]
        return f'{head}, "low": {_bound_text(space.low)}, "high": {_bound_text(space.high)}}}'
    if isinstance(space, spaces.Discrete):
        return json.dumps(
            {"type": "Discrete", "dtype": "int64", "start": int(space.start), "n": int(space.n)}
        )
    if isinstance(space, spaces.MultiDiscrete):
        nvec, start = space.nvec.tolist(), np.asarray(space.start).tolist()
        return json.dumps({"type": "MultiDiscrete", "dtype": str(space.dtype), "nvec": nvec, "start": start})
    if isinstance(space, spaces.MultiBinary):
        return json.dumps({"type": "MultiBinary", "n": np.asarray(space.n).tolist()})
    if isinstance(space, spaces.Text):
        text = {"max_length": space.max_length, "min_length": space.min_length, "charset": space.characters}
        return json.dumps({"type": "Text", **text})
    raise TypeError(f"Minari cannot store a space of type {type(space).__name__}")


def _bound_text(value: np.ndarray) -> str:
    flat = value.reshape(-1)
    if not flat.size or not np.all(flat == flat[0]):
        return json.dumps(value.tolist())
    text = json.dumps(flat[0].item())
    for n in reversed(value.shape):
        text = "[" + ", ".join([text] * n) + "]"
    return text


# ---- steps to the space's structure ---------------------------------------------------------------------


def _fit(space: spaces.Space, value: Any, where: str) -> Any:
    """``value`` (a recorded observation or JSON action) in ``space``'s structure; ValueError if it is not."""
    if isinstance(space, spaces.Dict):
        if not isinstance(value, Mapping) or set(value) != set(space.spaces):
            got = sorted(value) if isinstance(value, Mapping) else type(value).__name__
            raise ValueError(f"{where}: expected the keys {sorted(space.spaces)}, got {got}")
        return {k: _fit(s, value[k], f"{where}/{k}") for k, s in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != len(space.spaces):
            raise ValueError(f"{where}: expected a sequence of {len(space.spaces)}, got {value!r:.80}")
        return tuple(
            _fit(s, v, f"{where}[{i}]") for i, (s, v) in enumerate(zip(space.spaces, value, strict=True))
        )
    if isinstance(space, spaces.Text):
        if isinstance(value, np.ndarray) and value.dtype.kind == "U" and value.size == 1:
            return str(value.reshape(-1)[0])
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False)  # a tool call given as an object: its JSON text
    if isinstance(space, spaces.Discrete):
        arr = np.asarray(value)
        if arr.size != 1 or arr.dtype.kind not in "iub":
            raise ValueError(f"{where}: expected an integer, got {value!r:.80}")
        return int(arr.reshape(-1)[0])
    if isinstance(space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        arr = np.asarray(value)
        if arr.shape != space.shape:
            if arr.size != int(np.prod(space.shape)):
                raise ValueError(f"{where}: shape {arr.shape} does not fit the space's {space.shape}")
            arr = arr.reshape(space.shape)
        out = arr.astype(space.dtype, copy=False)
        if out.dtype != arr.dtype and not np.array_equal(out, arr):
            raise ValueError(f"{where}: {arr.dtype} values do not fit the space's {space.dtype}")
        return out
    raise TypeError(f"{where}: Minari cannot store a space of type {type(space).__name__}")


def _batch(space: spaces.Space, values: list[Any]) -> Any:
    """Per-step values to the columns Minari's storage takes (a dict/tuple of stacked leaves)."""
    if isinstance(space, spaces.Dict):
        return {k: _batch(s, [v[k] for v in values]) for k, s in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(_batch(s, [v[i] for v in values]) for i, s in enumerate(space.spaces))
    if isinstance(space, spaces.Text):
        return list(values)
    if isinstance(space, spaces.Discrete):
        return np.asarray(values, dtype=np.int64)
    return np.stack(values)


def _action(step: Mapping[str, Any], space: spaces.Space) -> Any:
    if isinstance(space, spaces.Text) and "tool_call_text" in step:
        return step["tool_call_text"]
    if "action" not in step:
        raise ValueError(f"step {step.get('t')}: the step line has no 'action'")
    return step["action"]


def _buffer(ep: Episode, obs_space: spaces.Space, act_space: spaces.Space) -> Any:
    from minari.data_collector.episode_buffer import EpisodeBuffer

    if any("obs" not in s for s in ep.steps):
        raise ValueError(f"{ep.path}: recorded without observations (RecordEpisodes(observations=False))")
    obs = [
        _fit(obs_space, ep.observation(t), f"{ep.path}: step {t} observation") for t in range(len(ep.steps))
    ]
    acts = [_fit(act_space, _action(s, act_space), f"{ep.path}: step {s['t']} action") for s in ep.actions]
    steps = ep.steps
    seed = ep.meta.get("seed")
    return EpisodeBuffer(
        seed=seed if isinstance(seed, int) else None,
        observations=_batch(obs_space, obs),
        actions=_batch(act_space, acts),
        rewards=[float(s.get("reward") or 0.0) for s in ep.actions],
        terminations=[bool(s.get("terminated")) for s in ep.actions],
        truncations=[bool(s.get("truncated")) for s in ep.actions],
        infos={
            "completion_ratio": [float(s.get("completion_ratio") or 0.0) for s in steps],
            "success": [bool(s.get("success")) for s in steps],
            "invalid_action": [bool(s.get("invalid_action")) for s in steps],
        },
    )


def _episode_metadata(ep: Episode) -> dict[str, Any]:
    record = ep.meta.get("record") or {}
    return {
        "crab_episode_id": ep.id,
        "task_id": ep.meta.get("task_id"),
        "instruction": ep.meta.get("instruction"),
        "status": ep.meta.get("status"),
        "success": record.get("success"),
        "completion_ratio": record.get("completion_ratio"),
        "termination_reason": ep.meta.get("termination_reason"),
        "return": record.get("return"),
        **_group_metadata(ep),
    }


def _group_metadata(ep: Episode) -> dict[str, Any]:
    """A group rollout's id, branch, size and branch step (``crab-gym collect --group``), when it is one."""
    group = ep.meta.get("group")
    if not isinstance(group, Mapping):
        return {}
    return {f"group_{k}": group.get(k) for k in ("id", "branch", "size", "branch_at")}


# ---- the dataset -----------------------------------------------------------------------------------------


def _env_spec(episodes: list[Episode]) -> EnvSpec | None:
    """The registered env with the recorded kwargs and wrappers (for ``recover_environment``), when all
    episodes agree on them and the env id is registered here."""
    keys = {json.dumps([e.meta.get(k) for k in ("env_id", "env_kwargs", "wrappers")]) for e in episodes}
    env_id = episodes[0].meta.get("env_id")
    if len(keys) != 1 or not env_id or env_id not in gym.registry:
        return None
    base = gym.spec(env_id)
    wrappers = tuple(
        WrapperSpec(w["class"].rsplit(".", 1)[-1], ":".join(w["class"].rsplit(".", 1)), w.get("kwargs") or {})
        for w in episodes[0].meta.get("wrappers", [])
        if w["class"] not in _GYM_WRAPPERS
    )
    kwargs = {**base.kwargs, **episodes[0].meta.get("env_kwargs", {})}
    return dataclasses.replace(base, kwargs=kwargs, additional_wrappers=wrappers)


def _description(episodes: list[Episode], env_id: str | None) -> str:
    tasks = sorted({str(e.meta.get("task_id")) for e in episodes})
    wrappers = [w["class"].rsplit(".", 1)[-1] for w in episodes[0].meta.get("wrappers", [])]
    wrappers = [w for w in wrappers if w not in ("PassiveEnvChecker", "OrderEnforcing")]
    solved = sum(bool((e.meta.get("record") or {}).get("success")) for e in episodes)
    return (
        f"{len(episodes)} crab-gym episodes ({solved} successful) recorded with RecordEpisodes on {env_id}"
        f"{' through ' + ', '.join(wrappers) if wrappers else ''}. Tasks: {', '.join(tasks)}. "
        "Spaces are the recorded env's; Text actions are strings (FunctionCalls: the raw tool-call text). "
        "infos per step (index 0 = reset): completion_ratio, success, invalid_action. "
        "Episode metadata: crab_episode_id, task_id, instruction, success, termination_reason."
    )


@contextmanager
def _datasets_root(data_path: str | os.PathLike[str] | None) -> Iterator[None]:
    """Minari's dataset root set to ``data_path`` for the duration (its functions read the variable)."""
    if data_path is None:
        yield
        return
    old = os.environ.get(_ROOT_ENV)
    os.environ[_ROOT_ENV] = str(Path(data_path).resolve())
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(_ROOT_ENV, None)
        else:
            os.environ[_ROOT_ENV] = old


def _check_spaces(episodes: list[Episode], run_dir: str | os.PathLike[str]) -> None:
    first = episodes[0]
    for ep in episodes:
        if "spaces_error" in ep.meta or "observation_space" not in ep.meta or "action_space" not in ep.meta:
            why = ep.meta.get("spaces_error", "no observation_space/action_space in episode.json")
            raise ValueError(f"{ep.path}: the recorded spaces are unknown ({why})")
        for key in ("observation_space", "action_space"):
            if ep.meta[key] != first.meta[key]:
                raise ValueError(
                    f"{run_dir}: episodes {first.id!r} and {ep.id!r} have different {key.replace('_', ' ')}s;"
                    " a Minari dataset has one: export them separately"
                )


def export_minari(
    run_dir: str | os.PathLike[str],
    dataset_id: str,
    data_path: str | os.PathLike[str] | None = None,
    complete_only: bool = True,
    *,
    author: str | None = "crab-gym",
    author_email: str | None = None,
    algorithm_name: str | None = None,
    description: str | None = None,
    data_format: str = "parquet",
    jpeg: bool = False,
    overwrite: bool = False,
) -> Path:
    """Write the episodes under ``run_dir`` as the Minari dataset ``dataset_id``; returns its folder.

    ``data_path``: the Minari datasets root (default: ``$MINARI_DATASETS_PATH`` or ``~/.minari/datasets``);
    load it with ``minari.load_dataset(dataset_id)`` with ``MINARI_DATASETS_PATH`` set to it.
    ``complete_only``: only episodes that ran to their end. ``data_format``: ``"arrow"`` or ``"parquet"``.
    ``jpeg``: JPEG-encode image observations (lossy, smaller). An episode cut before its first action is
    left out with a warning (and listed in the metadata). ValueError when the episodes' spaces differ or a
    step does not fit them; FileExistsError when the dataset exists and ``overwrite`` is False.
    """
    import minari
    from minari.dataset._storages import get_minari_storage  # the class for a format (no public name)
    from minari.dataset.minari_dataset import parse_dataset_id
    from minari.namespace import create_namespace, list_local_namespaces
    from minari.storage import get_dataset_path

    if data_format not in ("arrow", "parquet"):
        raise ValueError(f"data_format must be 'arrow' or 'parquet' (hdf5 needs h5py), got {data_format!r}")
    episodes = list(load_episodes(run_dir, complete_only=complete_only))
    skipped = [ep.path.name for ep in episodes if not ep.actions]
    if skipped:  # cut before its first action: no transition to store (Minari has no zero-step episodes)
        warnings.warn(f"{run_dir}: episodes without actions left out: {', '.join(skipped)}", stacklevel=2)
        episodes = [ep for ep in episodes if ep.actions]
    if not episodes:
        raise ValueError(
            f"{run_dir}: no {'complete ' if complete_only else ''}episodes with actions to export"
        )
    _check_spaces(episodes, run_dir)
    obs_space = space_from_json(episodes[0].meta["observation_space"], "observation_space")
    act_space = space_from_json(episodes[0].meta["action_space"], "action_space")
    env_spec = _env_spec(episodes)

    with _datasets_root(data_path):
        namespace = parse_dataset_id(dataset_id)[0]
        folder = Path(get_dataset_path(dataset_id))
        if folder.exists():
            if not overwrite:
                raise FileExistsError(
                    f"{folder}: Minari dataset {dataset_id!r} exists (overwrite=True replaces it)"
                )
            shutil.rmtree(folder)
        if namespace is not None and namespace not in list_local_namespaces():
            create_namespace(namespace)
        data = folder / "data"
        data.mkdir(parents=True)
        try:
            # The spaces go into metadata.json last: Minari rewrites that file on every update, and a
            # screen's bounds spelled out are tens of MB. The storage holds them meanwhile.
            header = {
                "total_episodes": 0,
                "total_steps": 0,
                "data_format": data_format,
                "jpeg_encoding": jpeg,
            }
            if env_spec is not None:
                header["env_spec"] = env_spec.to_json()
            (data / "metadata.json").write_text(json.dumps(header), encoding="utf-8")
            storage = get_minari_storage(data_format)(data, obs_space, act_space, jpeg_encoding=jpeg)
            package = episodes[0].meta.get("package") or {}
            info: dict[str, Any] = {
                "dataset_id": dataset_id,
                "minari_version": minari.__version__,
                "description": description or _description(episodes, episodes[0].meta.get("env_id")),
                "crab_gym_run": str(Path(run_dir).resolve()),
            }
            if package.get("version"):
                info["requirements"] = [f"crab-gym=={package['version']}"]
            for key, value in (("author", author), ("author_email", author_email)):
                if value is not None:
                    info[key] = {value}
            if algorithm_name is not None:
                info["algorithm_name"] = algorithm_name
            if skipped:
                info["crab_gym_skipped_episodes"] = skipped
            storage.update_metadata(info)
            for i, ep in enumerate(episodes):
                buffer = _buffer(ep, obs_space, act_space)
                storage.update_episodes([buffer])
                storage.update_episode_metadata([_episode_metadata(ep)], [i])
                ep._cache.clear()
            final = json.loads((data / "metadata.json").read_text(encoding="utf-8"))
            final["observation_space"] = minari_space_text(obs_space)
            final["action_space"] = minari_space_text(act_space)
            tmp = data / ".metadata.json.tmp"
            tmp.write_text(json.dumps(final), encoding="utf-8")
            os.replace(tmp, data / "metadata.json")
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
    return folder
