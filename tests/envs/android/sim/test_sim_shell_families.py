"""The shell families of issue 27, each through a real client on the served phone (adbutils and
pure-python-adb over Debian's adb server, Debian's adb for reverse), parsed by that client where it parses."""

from __future__ import annotations

import re
import time

import adbutils
import pytest


@pytest.fixture(scope="module")
def device(adb, served):
    return adbutils.AdbClient(host="127.0.0.1", port=adb.port).device(served.serial)


@pytest.fixture(autouse=True)
def _pristine(served):
    served.phone.reset()


def test_proc_files(device, served):
    up1 = float(device.shell("cat /proc/uptime").split()[0])
    mem = device.shell("cat /proc/meminfo")
    assert re.match(r"MemTotal: +\d+ kB\nMemFree: +\d+ kB\nMemAvailable: +\d+ kB\n", mem)
    before = int(re.search(r"MemFree: +(\d+)", mem).group(1))
    device.shell("am start -n com.android.settings/.Settings")
    assert int(re.search(r"MemFree: +(\d+)", device.shell("cat /proc/meminfo")).group(1)) < before
    assert re.match(r"Linux version (\S+) ", device.shell("cat /proc/version")).group(1) == device.shell(
        "uname -r"
    )
    stat = device.shell("cat /proc/stat").splitlines()
    assert stat[0].split()[0] == "cpu" and len(stat[0].split()) == 11
    cpus = device.shell("grep -c ^processor /proc/cpuinfo")
    assert cpus == device.shell("nproc") == str(len([s for s in stat if re.match(r"cpu\d", s)]))
    served.phone.now_ms()  # a state change moves the phone's clock a second
    assert float(device.shell("cat /proc/uptime").split()[0]) == up1 + 1
    dev = device.shell("cat /proc/net/dev").splitlines()
    assert dev[0].startswith("Inter-|") and any(line.strip().startswith("wlan0:") for line in dev[2:])
    assert device.shell("cat /proc/net/tcp").startswith("  sl  local_address rem_address   st ")
    assert "/proc/meminfo" in device.shell("find /proc -name meminfo -o -name version")


def test_network_wifi_airplane_location(device):
    assert device.wlan_ip() == "10.0.2.16"  # adbutils parses ifconfig's inet addr
    assert "10.0.2.0/24 dev wlan0" in device.shell("ip route")
    assert device.shell("cmd -w wifi status").startswith("Wifi is enabled")
    device.shell("cmd -w wifi set-wifi-enabled disabled")
    assert device.shell("settings get global wifi_on") == "0"
    assert "inet " not in device.shell("ip addr show dev wlan0")
    assert "Wi-Fi is disabled" in device.shell("dumpsys wifi")
    device.switch_wifi(True)  # svc wifi enable
    assert "Wifi is connected to" in device.shell("cmd wifi status")
    device.shell("cmd connectivity airplane-mode enable")
    assert device.shell("cmd connectivity airplane-mode") == "enabled"
    assert device.shell("settings get global airplane_mode_on") == "1"
    assert "state DOWN" in device.shell("ip addr show wlan0")
    device.shell("cmd connectivity airplane-mode disable")
    device.shell("cmd location set-location-enabled false")
    assert device.shell("cmd location is-location-enabled") == "false"
    assert device.shell("settings get secure location_mode") == "0"


def test_storage_and_files(device, tmp_path):
    df = device.shell("df").splitlines()
    assert df[0].split() == ["Filesystem", "1K-blocks", "Used", "Available", "Use%", "Mounted", "on"]
    data = next(line.split() for line in df if line.endswith(" /data"))
    used = int(data[2])
    device.sync.push(b"x" * 300_000, "/sdcard/Download/big.bin")
    after = next(line.split() for line in device.shell("df /sdcard").splitlines()[1:])
    assert after[-1] == "/storage/emulated" and int(after[2]) >= used + 290
    assert device.shell("ls -1 /sdcard/Download") == "big.bin"
    assert re.search(
        r"^-rw\S+ 1 root sdcard_rw +300000 \S+ \S+ big\.bin$",
        device.shell("ls -ll -au /sdcard/Download"),
        re.M,
    )
    device.shell("touch /sdcard/a.png /sdcard/b.jpg /sdcard/c.txt")
    found = device.shell(r"find /sdcard -maxdepth 1 \( -name '*.png' -o -name '*.jpg' \)").split()
    assert found == ["/sdcard/a.png", "/sdcard/b.jpg"]
    assert device.shell2(["which", "screenrecord"]).returncode == 0


def test_screenrecord_is_a_real_mp4(device, tmp_path):
    ffmpeg = pytest.importorskip("imageio_ffmpeg")
    r = device.shell2("screenrecord --time-limit 1 --size 540x1200 /sdcard/rec.mp4", timeout=30)
    assert r.returncode == 0, r.output
    out = tmp_path / "rec.mp4"
    device.sync.pull("/sdcard/rec.mp4", str(out))
    assert out.read_bytes()[4:8] == b"ftyp"
    frames, secs = ffmpeg.count_frames_and_secs(str(out))
    assert frames >= 4 and 0.5 <= secs <= 2.0


def test_adbutils_start_and_stop_recording(device, tmp_path):
    """adbutils' recorder: `screenrecord FILE &`, `read` of a line from the host, `kill -INT`, `wait`, pull;
    the host's newline ends `read` at once (not at stdin's end), so the recording stops when asked."""
    ffmpeg = pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "adbutils.mp4"
    device.start_recording(str(out))
    device.shell("input keyevent HOME")
    time.sleep(1.0)
    device.stop_recording()
    frames, secs = ffmpeg.count_frames_and_secs(str(out))
    assert frames >= 4 and 0.5 <= secs < 8


def test_ime_appops_settings_reset_deviceidle(device):
    assert device.shell("ime list -s") == "com.android.inputmethod.latin/.LatinIME"
    gboard = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
    assert device.shell(f"ime set {gboard}") == f"Input method {gboard} selected for user #0"
    assert device.shell("settings get secure default_input_method") == gboard
    assert gboard in device.shell("ime list -s").splitlines()
    assert device.shell("appops get com.android.settings CAMERA") == "No operations."
    device.shell("appops set com.android.settings CAMERA ignore")
    assert device.shell("appops get com.android.settings CAMERA") == "CAMERA: ignore"
    device.shell("settings put global crab_extra 1; settings put global wifi_on 0")
    device.shell("settings reset global untrusted_defaults")
    assert device.shell("settings get global crab_extra") == "null"
    assert device.shell("settings get global wifi_on") == "1"
    assert device.shell("dumpsys deviceidle whitelist +com.android.settings") == "Added: com.android.settings"
    lines = device.shell("dumpsys deviceidle whitelist").splitlines()
    assert "user,com.android.settings,1000" in lines and all(len(x.split(",")) == 3 for x in lines)


def test_windows_activities_recents(device, served):
    device.shell("am start -n com.google.android.deskclock/com.android.deskclock.DeskClock")
    current = device.app_current()  # adbutils parses mCurrentFocus in `dumpsys window windows`
    assert (current.package, current.activity) == (
        "com.google.android.deskclock",
        "com.android.deskclock.DeskClock",
    )
    windows = device.shell("dumpsys window windows")
    titles = re.findall(r"^  Window #(\d+) Window\{\w+ u0 (\S+)\}:$", windows, re.M)
    assert [int(k) for k, _ in titles] == list(range(len(titles)))
    assert "com.google.android.deskclock/com.android.deskclock.DeskClock" in [t for _, t in titles]
    displays = device.shell("dumpsys window displays")
    assert re.search(
        r"mFocusedApp=ActivityRecord\{\w+ u0 com\.google\.android\.deskclock/\S+ t\d+\}", displays
    )
    device.shell("am start -n com.android.settings/.Settings")
    ids = [int(x) for x in re.findall(r"\btaskId=(\d+)", device.shell("dumpsys activity recents"))]
    settings_task = served.phone.current.task_id
    assert settings_task in ids and len(ids) == 3
    assert re.search(
        r"ProcessRecord\{\w+ \d+:com\.android\.settings/u0a\d+\}", device.shell("dumpsys activity processes")
    )
    assert "ACTIVITY com.android.settings/.Settings" in device.shell("dumpsys activity com.android.settings")
    device.shell(f"am stack remove {settings_task}")
    assert device.app_current().package == "com.google.android.deskclock"
    assert "com.android.settings" not in device.shell("dumpsys activity recents")


def test_androidviewclient_reads_the_window_list(adb, served, device):
    adbclient = pytest.importorskip("com.dtmilano.android.adb.adbclient")
    device.shell("am start -n com.android.settings/.Settings")
    avc = adbclient.AdbClient(serialno=served.serial, hostname="127.0.0.1", port=adb.port)
    windows = avc.getWindows()  # parses the Window #N list and matches mCurrentFocus to one of them
    assert "com.android.settings/com.android.settings.Settings" in [w.activity for w in windows.values()]
    assert avc.getFocusedWindowName() == "com.android.settings/com.android.settings.Settings"
    assert avc.getTopActivityName() == "com.android.settings/.Settings"


def test_content_view_intents(device, served):
    device.shell("am start -a android.intent.action.VIEW -d content://contacts/people/")
    assert device.app_current().package == "com.android.contacts"
    device.shell(
        "am start -a android.intent.action.VIEW -d content://com.android.calendar/time/1710496800000"
    )
    assert device.app_current().activity == "com.android.calendar.AllInOneActivity"


def test_input_keys(device, served):
    p = served.phone
    device.shell("am start -n com.android.settings/.Settings")
    device.keyevent("KEYCODE_APP_SWITCH")
    assert device.app_current().activity == "com.android.quickstep.RecentsActivity"
    assert 'text="Settings"' in device.dump_hierarchy()
    device.keyevent("KEYCODE_APP_SWITCH")
    assert device.app_current().package == "com.android.settings"
    device.shell("input keyevent --longpress KEYCODE_POWER")
    assert p.awake and 'text="Power off"' in device.dump_hierarchy()
    device.keyevent("BACK")
    assert (
        'text="Power off"' not in device.dump_hierarchy()
        and device.app_current().package == "com.android.settings"
    )
    device.shell("input keycombination KEYCODE_POWER KEYCODE_VOLUME_DOWN")
    assert re.fullmatch(r"Screenshot_\d+\.png", device.shell("ls /sdcard/Pictures/Screenshots"))
    # ENDCALL with no call: the screen goes off (end_button_behavior's default); WAKEUP shows the keyguard,
    # MENU unlocks, and the app is back
    device.keyevent("KEYCODE_ENDCALL")
    assert not device.is_screen_on()
    device.keyevent("KEYCODE_WAKEUP")
    assert device.is_screen_on() and "mIsShowing=true" in device.shell("dumpsys window policy")
    device.keyevent("KEYCODE_MENU")
    assert "mIsShowing=false" in device.shell("dumpsys window policy")
    assert device.app_current().package == "com.android.settings"


def test_adb_reverse(adb, served, device):
    assert adb("-s", served.serial, "reverse", "tcp:5000", "tcp:6000").returncode == 0
    assert adb("-s", served.serial, "reverse", "--list").stdout.decode().split() == [
        "host-1",
        "tcp:5000",
        "tcp:6000",
    ]
    assert adb("-s", served.serial, "reverse", "tcp:0", "tcp:7000").stdout.strip().isdigit()
    assert {(i.remote, i.local) for i in device.reverse_list()} >= {("tcp:5000", "tcp:6000")}
    failed = adb("-s", served.serial, "reverse", "--no-rebind", "tcp:5000", "tcp:1", check=False)
    assert failed.returncode != 0 and b"cannot rebind" in failed.stderr
    device.reverse_remove_all()
    assert device.reverse_list() == []


def test_app_process_fails_at_once(device):
    r = device.shell2(
        "CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / com.genymobile.scrcpy.Server 2.4",
        timeout=10,
    )
    assert r.returncode == 1 and "no Android runtime" in r.output
