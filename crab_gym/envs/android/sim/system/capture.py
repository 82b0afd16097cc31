"""`screenrecord`: a real H.264 MP4 of the screen, encoded by the ffmpeg that imageio-ffmpeg ships (the
`video` extra), until --time-limit (180 s at most, as Android's), a kill (adbutils sends SIGINT) or the host
hanging up. Also `app_process`, which runs Android runtime code (uiautomator2's and scrcpy's servers): there
is no runtime on this phone, so it fails at once and says why instead of hanging the client."""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from ..shell.context import Ctx, command, unlocked

MAX_LIMIT_S = 180
FPS = 8
VALUED = ("--time-limit", "--size", "--bit-rate", "--output-format", "--codec-name")  # options with a value


def _size(spec: str, phone) -> tuple[int, int]:
    w, _, h = spec.partition("x")
    if not (w.isdigit() and h.isdigit()) or int(w) < 16 or int(h) < 16:
        raise ValueError(f"Invalid size '{spec}', must be width x height")
    return int(w) // 2 * 2, int(h) // 2 * 2


@command("screenrecord")
def _screenrecord(ctx: Ctx, args: list[str]) -> int:
    p = ctx.phone
    if "--help" in args or "-h" in args:
        ctx.print(
            "Usage: screenrecord [options] <filename>\n\n"
            "Android screenrecord v1.3.  Records the device's display to a .mp4 file."
        )
        return 0
    limit, size, files = float(MAX_LIMIT_S), (p.width // 2 * 2, p.height // 2 * 2), []
    words = iter(args)
    try:
        for word in words:
            if word in VALUED:
                value = next(words, "")
                if word == "--time-limit":
                    limit = float(value)
                    if not 0 < limit <= MAX_LIMIT_S:
                        raise ValueError(f"Time limit {value} is out of range [1,{MAX_LIMIT_S}]")
                elif word == "--size":
                    size = _size(value, p)
            elif not word.startswith("--"):
                files.append(word)
    except ValueError as e:
        ctx.eprint(str(e))
        return 2
    if not files:
        ctx.eprint("Must specify output file (see --help).")
        return 2
    try:
        import imageio_ffmpeg
    except ImportError:
        ctx.eprint("screenrecord: no video encoder: install crab-gym's `video` extra (imageio-ffmpeg)")
        return 1
    dest = ctx.fs.android_path(files[0], ctx.shell.cwd)
    fd, tmp = tempfile.mkstemp(suffix=".mp4", prefix="crab-screenrecord-")
    os.close(fd)
    try:
        writer = imageio_ffmpeg.write_frames(
            tmp,
            size,
            fps=FPS,
            codec="libx264",
            macro_block_size=2,
            quality=None,
            output_params=["-preset", "ultrafast", "-crf", "28"],
            ffmpeg_log_level="error",
        )
        writer.send(None)
        start, frames = time.monotonic(), 0
        while True:
            frame = p.screenshot(size if size != (p.width, p.height) else None)
            if frame.shape[1::-1] != size:  # an odd native size: crop to the even one
                frame = frame[: size[1], : size[0]]
            writer.send(np.ascontiguousarray(frame))
            frames += 1
            next_at = start + frames / FPS
            if next_at - start >= limit or _stopped(ctx):
                break
            unlocked(p.lock, timeout=max(0.0, next_at - time.monotonic()))
            if _stopped(ctx):
                break
        writer.close()
        with open(tmp, "rb") as fh:
            ctx.fs.write_bytes(dest, fh.read())
    finally:
        os.unlink(tmp)
    if "--verbose" in args:
        ctx.print(f"Stopping encoder and muxer\nRecorded {frames} frames")
    return 0


def _stopped(ctx: Ctx) -> bool:
    cancel = ctx.shell.cancel
    return (cancel is not None and cancel.is_set()) or ctx.hung_up


@command("app_process", "app_process64", "app_process32", "dalvikvm")
def _app_process(ctx: Ctx, args: list[str]) -> int:
    """No Android runtime here: uiautomator2's server, scrcpy's server and other dex code cannot start."""
    main = next((a for a in args if not a.startswith("-") and a != "/"), "")
    ctx.eprint(
        f"{ctx.argv0 or 'app_process'}: cannot run {main or 'Android runtime code'}: this is crab-gym's "
        "simulated phone, which has no Android runtime (ART) to run dex code such as uiautomator2's or "
        "scrcpy's server; use its adb shell tools (uiautomator dump, screencap, input) instead"
    )
    return 1
