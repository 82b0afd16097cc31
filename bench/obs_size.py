"""Steps/s of Crab-Android-v0 (simulated phone) at full size vs observations sized for learning.

Cases: the full 1080x2400 RGB frame, 96x208 RGB and 96x208 grayscale (``obs_size``), each in-process
(one env) and with 2 async workers sharing memory (``make_vec``); random valid actions from RandomAgent's
action mix (taps, swipes, back/home, text; waits sleep 0 s). Ratios are against full size in the same run.

Run: .venv/bin/python bench/obs_size.py [steps]
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import numpy as np

import crab_gym  # noqa: F401

TASK = "contacts_add-0"
CASES = {
    "full 1080x2400": None,
    "96x208 rgb": {"android": (96, 208)},
    "96x208 gray": {"android": (96, 208, 1)},
}


def actions(env: gym.Env, n: int, seed: int = 0) -> list[tuple]:
    """n random valid phone actions (no waits, no complete), encoded for ``env``."""
    rng = np.random.default_rng(seed)
    u = env.unwrapped
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.6:
            out.append(u.encode_action("android", "tap", {"point": (rng.random(), rng.uniform(0.05, 0.95))}))
        elif r < 0.75:
            out.append(u.encode_action("android", "swipe", {"direction": str(rng.choice(["up", "down"]))}))
        elif r < 0.9:
            out.append(u.encode_action("android", "press", {"button": str(rng.choice(["back", "home"]))}))
        else:
            out.append(u.encode_action("android", "write_text", {"text": "hello"}))
    return out


def in_process(obs_size, steps: int) -> float:
    env = gym.make("Crab-Android-v0", tasks=[TASK], obs_size=obs_size, max_steps=50)
    try:
        acts = actions(env, steps)
        env.reset(seed=0)
        t = time.perf_counter()
        for a in acts:
            _, _, term, trunc, _ = env.step(a)
            if term or trunc:
                env.reset()
        return steps / (time.perf_counter() - t)
    finally:
        env.close()


def vectorised(obs_size, steps: int) -> float:
    """Env steps/s (2 per vector step) with 2 async workers and shared memory."""
    vec = gym.make_vec(
        "Crab-Android-v0", num_envs=2, vectorization_mode="async", vector_kwargs={"shared_memory": True},
        tasks=[TASK], obs_size=obs_size, max_steps=50,
    )  # fmt: skip
    single = gym.make("Crab-Android-v0", tasks=[TASK])
    try:
        acts = actions(single, steps)
        vec.reset(seed=0)
        n = steps // 2
        batches = []
        for i in range(n):
            pair = acts[2 * i : 2 * i + 2]
            params = {k: _stack([p[2][k] for p in pair]) for k in pair[0][2]}
            batches.append((np.array([p[0] for p in pair]), np.array([p[1] for p in pair]), params))
        t = time.perf_counter()
        for b in batches:
            vec.step(b)
        return 2 * n / (time.perf_counter() - t)
    finally:
        vec.close()
        single.close()


def _stack(values: list) -> tuple | np.ndarray:
    return tuple(values) if isinstance(values[0], str) else np.stack([np.asarray(v) for v in values])


def main(steps: int = 600) -> None:
    rows = {name: (in_process(size, steps), vectorised(size, steps)) for name, size in CASES.items()}
    base = rows["full 1080x2400"]
    print(f"Crab-Android-v0, {steps} random steps per case (env steps/s; x = ratio to full size)")
    for name, (one, two) in rows.items():
        ratios = f"({one / base[0]:.2f}x)   2 async {two:6.0f} ({two / base[1]:.2f}x)"
        print(f"  {name:15s} in-process {one:6.0f} {ratios}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 600)
