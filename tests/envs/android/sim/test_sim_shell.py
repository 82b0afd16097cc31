"""The phone's shell, run in-process through Phone.shell (the same entry point adbd uses)."""

from __future__ import annotations

import pytest


def run(phone, cmd: str, stdin: bytes = b"") -> tuple[str, str, int]:
    out, err, code = phone.shell(cmd, stdin)
    return out.decode(), err.decode(), code


@pytest.mark.parametrize(
    "cmd, out, code",
    [
        ("echo hi", "hi\n", 0),
        ("echo 'a;b' \"c d\"", "a;b c d\n", 0),
        ("false; echo $?", "1\n", 0),
        ("true && echo yes || echo no", "yes\n", 0),
        ("false && echo yes || echo no", "no\n", 0),
        ("echo one two three | grep -c o", "1\n", 0),
        ("printf_missing; echo $?", "127\n", 0),
        ("echo abc | grep -q x", "", 1),
        ("echo -n x", "x", 0),
        ("exit 4", "", 4),
        ("sh -c 'exit 5'", "", 5),
    ],
)
def test_command_lines(phone, cmd, out, code):
    got_out, _, got_code = run(phone, cmd)
    assert (got_out, got_code) == (out, code)


def test_unknown_command_like_mksh(phone):
    out, err, code = run(phone, "foo")
    assert (out, err, code) == ("", "/system/bin/sh: foo: inaccessible or not found\n", 127)


def test_files_redirection_and_text_tools(phone):
    assert (
        run(
            phone, "mkdir -p /sdcard/a/b && echo hello > /sdcard/a/b/f.txt && echo world >> /sdcard/a/b/f.txt"
        )[2]
        == 0
    )
    assert run(phone, "cat /sdcard/a/b/f.txt")[0] == "hello\nworld\n"
    assert run(phone, "grep -i WORLD /sdcard/a/b/f.txt")[0] == "world\n"
    assert run(phone, "grep -v world /sdcard/a/b/f.txt")[0] == "hello\n"
    assert run(phone, "grep -E 'h.l+o|xyz' /sdcard/a/b/f.txt")[0] == "hello\n"
    assert run(phone, "wc -l /sdcard/a/b/f.txt")[0].split()[0] == "2"
    assert run(phone, "head -n 1 /sdcard/a/b/f.txt; tail -1 /sdcard/a/b/f.txt")[0] == "hello\nworld\n"
    assert (
        run(phone, "cp /sdcard/a/b/f.txt /sdcard/g.txt && mv /sdcard/g.txt /sdcard/h.txt && ls /sdcard")[
            0
        ].count("h.txt")
        == 1
    )
    assert run(phone, "rm -r /sdcard/a && ls /sdcard/a")[2] == 1
    assert run(phone, "cat", stdin=b"from stdin")[0] == "from stdin"
    assert run(phone, "ls /sdcard/nope 2>/dev/null; echo $?")[0] == "1\n"


def test_sandbox_cannot_be_escaped(phone, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("no")
    rel = "/../../../../../../../../" + str(outside)
    out, err, code = run(phone, f"cat {rel}")
    assert code == 1 and "no" not in out
    run(phone, "echo pwned > /../../../../tmp/crab_escape_test.txt")
    assert phone.fs.exists("/tmp/crab_escape_test.txt")  # landed inside the sandbox's /tmp
    import os

    assert (
        not os.path.exists("/tmp/crab_escape_test.txt")
        or open("/tmp/crab_escape_test.txt").read() != "pwned\n"
    )


def test_android_commands(phone):
    assert run(phone, "getprop ro.product.model")[0] == "CrabPhone\n"
    assert run(phone, "wm size")[0] == "Physical size: 1080x2400\n"
    assert run(phone, "wm density")[0] == "Physical density: 420\n"
    assert "package:com.android.contacts\n" in run(phone, "pm list packages")[0]
    out = run(phone, "uiautomator dump")[0]
    assert out == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    xml = phone.fs.read_bytes("/sdcard/window_dump.xml").decode()
    assert xml.startswith(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    )
    png, _, code = phone.shell("screencap -p")
    assert code == 0 and png.startswith(b"\x89PNG\r\n\x1a\n")


def test_settings_and_content(phone):
    assert run(phone, "settings get global wifi_on")[0] == "1\n"
    assert run(phone, "settings put global wifi_on 0; settings get global wifi_on")[0] == "0\n"
    assert run(phone, "settings get global no_such_key")[0] == "null\n"
    assert "airplane_mode_on=0\n" in run(phone, "settings list global")[0]
    out = run(phone, "content query --uri content://settings/global --where \"name='wifi_on'\"")[0]
    assert out.startswith("Row: 0 _id=") and "name=wifi_on, value=0" in out
    run(
        phone,
        "content insert --uri content://sms/sent --bind address:s:+15550001 --bind body:s:'hello there'",
    )
    out = run(
        phone,
        "content query --uri content://sms/sent --projection address:body:type "
        "--where \"body='hello there'\"",
    )[0]
    assert out == "Row: 0 address=+15550001, body=hello there, type=2\n"
    assert (
        run(phone, "content query --uri content://sms --where \"body='nothing'\"")[0] == "No result found.\n"
    )
    run(phone, "content delete --uri content://sms --where \"address='+15550001'\"")
    assert (
        run(phone, "content query --uri content://sms --where \"address='+15550001'\"")[0]
        == "No result found.\n"
    )


def test_sqlite3_like_the_real_one(phone):
    out, err, code = run(
        phone,
        "sqlite3 /data/data/com.android.providers.telephony/databases/mmssms.db "
        '"SELECT _id, type FROM sms ORDER BY _id LIMIT 2"',
    )
    assert code == 0 and out.splitlines()[0].startswith("1|")
    _, err, code = run(phone, "sqlite3 /sdcard/x.db 'SELEC nonsense'")
    assert code == 1 and err.startswith('Error: near "SELEC": syntax error')


def test_a_command_that_raises_is_its_own_failure(phone):
    from crab_gym.envs.android.sim.shell.context import REGISTRY

    def boom(ctx, args):
        raise RuntimeError("kaboom")

    REGISTRY["crab_test_boom"] = boom
    try:
        out, err, code = run(phone, "crab_test_boom; echo after")
        assert code == 0 and out == "after\n" and "kaboom" in err
    finally:
        del REGISTRY["crab_test_boom"]


def test_more_text_and_file_tools(phone):
    run(phone, "mkdir -p /sdcard/t/u && echo x > /sdcard/t/a.jpg && echo y > /sdcard/t/u/b.JPG")
    assert run(phone, "find /sdcard/t -name '*.jpg'")[0] == "/sdcard/t/a.jpg\n"
    assert run(phone, "find /sdcard/t -iname '*.jpg' | sort")[0] == "/sdcard/t/a.jpg\n/sdcard/t/u/b.JPG\n"
    assert run(phone, "find /sdcard/t -type d")[0] == "/sdcard/t\n/sdcard/t/u\n"
    assert run(phone, "printf_x 2>/dev/null; echo 'b\na\nb' > /sdcard/l.txt; sort /sdcard/l.txt | uniq -c")[
        0
    ] == ("      1 a\n      2 b\n")
    assert run(phone, "echo 'a:b:c' | cut -d: -f2,3")[0] == "b:c\n"
    assert run(phone, "echo hello | tr a-z A-Z")[0] == "HELLO\n"
    assert run(phone, "basename /sdcard/t/a.jpg; dirname /sdcard/t/a.jpg")[0] == "a.jpg\n/sdcard/t\n"
    assert run(phone, "ls -R /sdcard/t")[0] == "/sdcard/t:\na.jpg\nu\n\n/sdcard/t/u:\nb.JPG\n"


def test_echo_processes_escapes_like_mksh(phone):
    assert run(phone, r"echo 'a\nb'; echo -E 'c\nd'; echo 'e\cf'; echo g")[0] == "a\nb\nc\\nd\neg\n"
