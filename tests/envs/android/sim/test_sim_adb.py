"""The served phone driven by real clients: Debian's adb binary and adbutils, no mocks."""

from __future__ import annotations

import io
import re
import socket
import time

import adbutils
import numpy as np
import pytest
from PIL import Image


def test_devices_lists_the_phone(adb, served):
    out = adb("devices", "-l").stdout.decode()
    line = next(ln for ln in out.splitlines() if ln.startswith(served.serial))
    assert "device product:crab_phone model:CrabPhone device:crab" in line


def test_shell_v2_exit_codes(adb, served):
    s = served.serial
    r = adb("-s", s, "shell", "echo hi")
    assert (r.stdout, r.returncode) == (b"hi\n", 0)
    assert adb("-s", s, "shell", "false").returncode == 1
    r = adb("-s", s, "shell", "nosuchcommand")
    assert r.returncode == 127
    assert r.stderr == b"/system/bin/sh: nosuchcommand: inaccessible or not found\n"
    r = adb("-s", s, "shell", "echo out; echo err >&2; exit 3")
    assert (r.stdout, r.stderr, r.returncode) == (b"out\n", b"err\n", 3)


def test_shell_stdin_is_forwarded(adb, served):
    r = adb("-s", served.serial, "shell", "grep", "b", input=b"a\nb\nc\n")
    assert (r.stdout, r.returncode) == (b"b\n", 0)


def test_exec_out_screencap_is_a_png_of_the_screen(adb, served):
    png = adb("-s", served.serial, "exec-out", "screencap", "-p").stdout
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (1080, 2400)


def test_uiautomator_dump_and_pull(adb, served, tmp_path):
    r = adb("-s", served.serial, "shell", "uiautomator", "dump")
    assert r.stdout == b"UI hierchary dumped to: /sdcard/window_dump.xml\n"
    adb("-s", served.serial, "pull", "/sdcard/window_dump.xml", str(tmp_path / "d.xml"))
    xml = (tmp_path / "d.xml").read_text()
    assert xml.startswith(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    )
    assert re.search(
        r'<node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
        r'package="[\w.]+" content-desc="" checkable="false" checked="false" clickable="false" '
        r'enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" '
        r'password="false" selected="false" bounds="\[0,0\]\[1080,2400\]">',
        xml,
    )


def test_push_then_cat_and_pull_back(adb, served, tmp_path):
    src = tmp_path / "note.txt"
    src.write_bytes(b"pushed through sync\n")
    adb("-s", served.serial, "push", str(src), "/sdcard/Download/note.txt")
    assert (
        adb("-s", served.serial, "shell", "cat /sdcard/Download/note.txt").stdout == b"pushed through sync\n"
    )
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * 8000)  # 2 MB: many sync DATA chunks and WRTE messages
    adb("-s", served.serial, "push", str(big), "/sdcard/big.bin")
    adb("-s", served.serial, "pull", "/sdcard/big.bin", str(tmp_path / "back.bin"))
    assert (tmp_path / "back.bin").read_bytes() == big.read_bytes()
    ls = adb("-s", served.serial, "ls", "/sdcard/Download").stdout.decode()
    assert "note.txt" in ls


def test_content_query_over_adb(adb, served):
    out = adb(
        "-s", served.serial, "shell", "content query --uri content://sms --projection address:body"
    ).stdout
    lines = out.decode().splitlines()
    assert lines and all(re.fullmatch(r"Row: \d+ address=.+, body=.+", ln) for ln in lines)


def test_root_service(adb, served):
    assert adb("-s", served.serial, "root").stdout == b"adbd is already running as root\n"


@pytest.fixture(scope="module")
def device(adb, served):
    client = adbutils.AdbClient(host="127.0.0.1", port=adb.port)
    client.connect(served.serial)
    return client.device(served.serial)


def test_adbutils_shell_and_shell2(device):
    assert device.shell("echo hi") == "hi"
    r = device.shell2("echo a; false")
    assert (r.output.strip(), r.returncode) == ("a", 1)
    r = device.shell2("nosuch", v2=True)
    assert r.returncode == 127 and "inaccessible or not found" in r.stderr


def test_adbutils_sync_screenshot_hierarchy(device, tmp_path):
    device.sync.push(b"via adbutils", "/sdcard/u.txt")
    assert device.sync.read_bytes("/sdcard/u.txt") == b"via adbutils"
    device.sync.pull("/sdcard/u.txt", str(tmp_path / "u.txt"))
    assert (tmp_path / "u.txt").read_bytes() == b"via adbutils"
    assert device.sync.stat("/sdcard/u.txt").size == len(b"via adbutils")
    img = device.screenshot(error_ok=False)
    assert img.size == (1080, 2400)
    xml = device.dump_hierarchy()
    assert xml.startswith("<?xml") and xml.endswith("</hierarchy>")
    assert device.window_size() == (1080, 2400)


def test_adbutils_app_current_follows_am_start(device):
    device.shell("am start -n com.android.settings/.Settings")
    cur = device.app_current()
    assert (cur.package, cur.activity) == ("com.android.settings", "com.android.settings.Settings")
    device.shell("input keyevent 3")
    assert device.app_current().package == "com.google.android.apps.nexuslauncher"


def test_adb_and_in_process_paths_give_identical_results(adb, served, device):
    """The same actions, once through adb to the served phone and once in-process, give the same frames,
    UI dumps and database rows."""
    from crab_gym.envs.android.sim import Phone

    served.phone.reset()
    local = Phone(seed=served.phone.seed)
    try:
        steps = [
            "input tap 540 2250",
            "monkey -p com.android.contacts -c android.intent.category.LAUNCHER 1",
            "input tap 916 1996",
            "input text Ann",
            "input keyevent 66",
            "input swipe 540 1500 540 900 300",
            "input tap 540 1000",
            "input text 555%s0101",
        ]
        for cmd in steps:
            device.shell(cmd)
            local.shell(cmd)
        remote_png = device.shell("screencap -p", encoding=None)
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(remote_png))), local.screenshot())
        assert device.dump_hierarchy() == local.ui_xml()
        q = "content query --uri content://com.android.contacts/raw_contacts"
        assert device.shell(q) == local.shell(q)[0].decode().rstrip()
    finally:
        local.close()


def test_adb36_from_the_adbutils_wheel_uses_the_v2_sync_forms(served, tmp_path):
    """adb 36 (bundled with adbutils) talks stat_v2/ls_v2/sendrecv_v2 to the device; all must work."""
    import os
    import subprocess
    from pathlib import Path

    binary = Path(adbutils.__file__).parent / "binaries" / "adb"
    if not binary.exists():
        pytest.skip("adbutils wheel without a bundled adb")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(binary), "-P", port, *args],
            env=env,
            capture_output=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )

    run("start-server")
    try:
        assert b"connected to" in run("connect", served.serial).stdout
        for _ in range(50):
            if f"{served.serial}\tdevice" in run("devices").stdout.decode():
                break
            time.sleep(0.1)
        r = run("-s", served.serial, "shell", "echo v36; exit 7")
        assert (r.stdout, r.returncode) == (b"v36\n", 7)
        big = tmp_path / "big.bin"
        big.write_bytes(os.urandom(3 << 20))
        assert run("-s", served.serial, "push", str(big), "/sdcard/v36.bin").returncode == 0
        assert run("-s", served.serial, "pull", "/sdcard/v36.bin", str(tmp_path / "back.bin")).returncode == 0
        assert (tmp_path / "back.bin").read_bytes() == big.read_bytes()
        assert "v36.bin" in run("-s", served.serial, "ls", "/sdcard").stdout.decode()
    finally:
        run("kill-server")


def test_concurrent_streams_on_one_transport(device):
    """Many streams at once over the one host connection: shells, screencaps and pulls interleave safely."""
    from concurrent.futures import ThreadPoolExecutor

    def work(i: int) -> bool:
        if i % 3 == 0:
            return device.shell(f"echo {i}") == str(i)
        if i % 3 == 1:
            return device.shell("screencap -p", encoding=None)[:8] == b"\x89PNG\r\n\x1a\n"
        return device.sync.read_bytes("/data/data/com.android.providers.telephony/databases/mmssms.db")[
            :6
        ] == (b"SQLite")

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(48)))


def test_a_waiting_command_does_not_block_the_others(device):
    """`sleep` and a command waiting for stdin release the phone while they wait."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        slow = pool.submit(device.shell, "sleep 2; echo slept")
        waiting = device.shell("grep never-sent", stream=True)  # v1 shell: stdin stays open until we close
        time.sleep(0.3)
        t = time.perf_counter()
        assert device.shell("echo quick") == "quick"
        assert time.perf_counter() - t < 1.0
        assert slow.result(timeout=10) == "slept"
        waiting.close()
