"""`python -m crab_gym.envs.android.sim --port 5555 [--seed 0]`: serve the phone as an adb device."""

from __future__ import annotations

import argparse

from . import serve


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m crab_gym.envs.android.sim", description=__doc__)
    ap.add_argument("--port", type=int, default=5555)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=1080)
    ap.add_argument("--height", type=int, default=2400)
    ap.add_argument("--host", default="127.0.0.1")
    a = ap.parse_args(argv)
    serve(a.port, seed=a.seed, width=a.width, height=a.height, host=a.host)


if __name__ == "__main__":
    main()
