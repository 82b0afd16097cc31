"""appium-adb (npm, installed by scripts/setup.sh into tests/envs/android/node) driven by Node against the
served phone: its own parsers read our answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from apkbuild import build_apk

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
SCRIPT = NODE_DIR / "appium_adb_check.mjs"


def test_appium_adb_drives_the_phone(adb, served, tmp_path):
    node = shutil.which("node")
    if node is None or not (NODE_DIR / "node_modules" / "appium-adb").is_dir():
        missing = "node or appium-adb is missing (scripts/setup.sh installs them)"
        if os.environ.get("CI"):
            pytest.fail(missing)  # CI ran the setup: a missing client there is a setup bug, not a skip
        pytest.skip(missing)
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < 20:
        pytest.skip(f"appium-adb needs Node 20 or later; this is {version}")
    served.phone.reset()
    sdk = tmp_path / "sdk"  # appium-adb finds adb under $ANDROID_HOME/platform-tools
    (sdk / "platform-tools").mkdir(parents=True)
    (sdk / "platform-tools" / "adb").symlink_to(shutil.which("adb") or "/usr/bin/adb")
    apk = tmp_path / "hello.apk"
    apk.write_bytes(build_apk("com.example.hello", launcher=".Main"))
    env = {**adb.env, "ANDROID_HOME": str(sdk), "ANDROID_SDK_ROOT": str(sdk)}
    r = subprocess.run(
        [node, str(SCRIPT), str(adb.port), served.serial, str(apk)],
        capture_output=True,
        timeout=180,
        env=env,
        cwd=NODE_DIR,
    )
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    out = json.loads(r.stdout.decode().strip().splitlines()[-1])
    assert out["apiLevel"] == 34 and out["echo"] == "hello"
    assert out["focused"] == {
        "appPackage": "com.google.android.deskclock",
        "appActivity": "com.android.deskclock.DeskClock",
    }
    assert out["clockRunning"] is True and out["nopeRunning"] is False
    assert out["airplaneOn"] is True and out["airplaneOff"] is False
    assert out["wifiOff"] is False and out["wifiOn"] is True
    assert out["dataOff"] is False and out["bluetooth"] == "1"
    assert "system-excidle,com.android.shell,2000" in out["whitelist"]
    assert out["installed"] is True
    adb("-s", served.serial, "uninstall", "com.example.hello", check=False)
