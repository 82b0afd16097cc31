"""The shell as a POSIX shell: expansions, quoting, redirections, control flow, test/[, globbing, devices."""

from __future__ import annotations

import pytest


def run(phone, cmd: str, stdin: bytes = b"") -> tuple[str, str, int]:
    out, err, code = phone.shell(cmd, stdin)
    return out.decode(), err.decode(), code


@pytest.mark.parametrize(
    "cmd, out, code",
    [
        # parameters and arithmetic
        ("echo $((6*7))", "42\n", 0),
        ("echo $(( (1+2) * 3 % 5 )) $((7/2)) $((-7/2)) $((1<<4)) $((3>2 && 0))", "4 3 -3 16 0\n", 0),
        ("A=5; echo ${A} ${B:-dflt} ${A:+alt} $((A*2)) $A", "5 dflt alt 10 5\n", 0),
        ("echo ${U-unset} ${E=set}; echo $E", "unset set\nset\n", 0),
        ("P=/sdcard/a/b.txt; echo ${P##*/} ${P%/*} ${P#/} ${#P}", "b.txt /sdcard/a sdcard/a/b.txt 15\n", 0),
        ("i=0; i=$((i+1)); echo $i", "1\n", 0),
        ("echo $EXTERNAL_STORAGE", "/sdcard\n", 0),
        # quoting
        ("echo 'a  $HOME' \"b  $HOME\" c\\ \\$d", "a  $HOME b  / c $d\n", 0),
        ('echo "it\'s" \'say "hi"\'', 'it\'s say "hi"\n', 0),
        ("X='a   b'; echo $X; echo \"$X\"", "a b\na   b\n", 0),
        ("printf '[%s]' \"\" x; echo", "[][x]\n", 0),
        # command substitution and $?
        ("echo $(echo sub) `echo bq` \"$(echo 'q  q')\" $(echo 'r  r')", "sub bq q  q r r\n", 0),
        ("x=$(false); echo $?", "1\n", 0),
        ("false; echo $?; echo $?", "1\n0\n", 0),
        # assignments in a command's environment
        ("X=1 sh -c 'echo [$X]'; echo [$X]", "[1]\n[]\n", 0),
        ("Y=2; sh -c 'echo [$Y]'; export Y; sh -c 'echo [$Y]'", "[]\n[2]\n", 0),
        # lists, pipes, negation, exit codes
        ("true && echo a || echo b; false && echo c || echo d", "a\nd\n", 0),
        ("! true; echo $?; ! false; echo $?", "1\n0\n", 0),
        ("echo one; exit 3; echo two", "one\n", 3),
        ("( exit 4 ); echo $?", "4\n", 0),
        ("echo abc | tr a-z A-Z | grep -c B", "1\n", 0),
        # control flow
        ("if [ -f /sdcard/missing ]; then echo yes; else echo no; fi", "no\n", 0),
        ("if false; then echo 1; elif true; then echo 2; else echo 3; fi", "2\n", 0),
        ("for i in 1 2 3; do echo n$i; done", "n1\nn2\nn3\n", 0),
        ("i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i", "3\n", 0),
        ("for i in 1 2 3 4; do [ $i = 3 ] && break; echo $i; done", "1\n2\n", 0),
        ("case abc.txt in *.jpg) echo jpg;; *.txt) echo txt;; esac", "txt\n", 0),
        ("f() { echo in f $1; return 3; }; f arg; echo $?", "in f arg\n3\n", 0),
        ("printf 'a\\nb\\n' | while read x; do echo got $x; done", "got a\ngot b\n", 0),
        ("cat <<EOF\nhello $EXTERNAL_STORAGE\nEOF\necho after", "hello /sdcard\nafter\n", 0),
        # test / [
        ("[ -e /sdcard ] && [ -d /sdcard ] && [ ! -f /sdcard ] && echo ok", "ok\n", 0),
        ("[ -z '' ] && [ -n x ] && [ a = a ] && [ a != b ] && echo ok", "ok\n", 0),
        (
            "[ 2 -eq 2 -a 3 -gt 1 ] && [ 1 -lt 2 -o 1 -gt 2 ] && [ 4 -ge 4 ] && [ 3 -ne 4 ] && echo ok",
            "ok\n",
            0,
        ),
        ("test 1 -gt 2; echo $?", "1\n", 0),
        ("[ x -eq 1 ]; echo $?", "2\n", 0),
        ("[ 1 = 1; echo $?", "2\n", 0),
        # printf
        ("printf '%s-%03d %x %5.1f%%\\n' a 5 255 2.25", "a-005 ff   2.2%\n", 0),
    ],
)
def test_posix_command_lines(phone, cmd, out, code):
    got_out, err, got_code = run(phone, cmd)
    assert (got_out, got_code) == (out, code), err


def test_redirections_in_order(phone):
    run(phone, "echo a > /sdcard/r.txt; echo b >> /sdcard/r.txt")
    assert run(phone, "cat < /sdcard/r.txt")[0] == "a\nb\n"
    # >f 2>&1 sends both to the file; 2>&1 >f keeps errors on the old stdout
    assert run(phone, "ls /nope > /sdcard/e.txt 2>&1; cat /sdcard/e.txt")[0].startswith("ls: /nope")
    out, err, _ = run(phone, "ls /nope 2>&1 >/sdcard/e2.txt")
    assert out.startswith("ls: /nope") and err == ""
    assert run(phone, "ls /nope 2>/dev/null; echo $?")[0] == "1\n"
    assert run(phone, "echo err >&2")[:2] == ("", "err\n")
    assert run(phone, "echo gone > /dev/null; cat /dev/null; echo $?")[0] == "0\n"
    assert run(phone, "cat < /dev/null | wc -c")[0].strip() == "0"
    assert run(phone, ": > /sdcard/empty.txt; ls -l /sdcard/empty.txt")[0].split()[4] == "0"


def test_globbing_against_the_phone_filesystem(phone):
    run(phone, "mkdir -p /sdcard/g && touch /sdcard/g/a.txt /sdcard/g/b.txt /sdcard/g/c.jpg /sdcard/g/.h.txt")
    assert run(phone, "ls /sdcard/g/*.txt")[0] == "/sdcard/g/a.txt\n/sdcard/g/b.txt\n"
    assert run(phone, "echo /sdcard/g/[ab].* /sdcard/g/?.jpg")[0] == (
        "/sdcard/g/a.txt /sdcard/g/b.txt /sdcard/g/c.jpg\n"
    )
    assert run(phone, "cd /sdcard/g && echo *.jpg")[0] == "c.jpg\n"
    assert run(phone, "echo '/sdcard/g/*.txt' \"/sdcard/g/*\"")[0] == "/sdcard/g/*.txt /sdcard/g/*\n"
    out, err, code = run(phone, "ls /sdcard/g/*.png")  # no match: the word stays as written
    assert (out, code) == ("", 1) and "/sdcard/g/*.png" in err
    assert run(phone, "for f in /sdcard/g/*.txt; do basename $f; done")[0] == "a.txt\nb.txt\n"


def test_device_nodes(phone):
    assert run(phone, "[ -e /dev/null ] && [ -c /dev/null ] && [ ! -f /dev/null ] && echo dev")[0] == "dev\n"
    assert run(phone, "ls -l /dev/null")[0].startswith("crw-rw-rw-")
    assert run(phone, "head -c 4 /dev/zero | wc -c")[0].strip() == "4"
    assert run(phone, "head -c 16 /dev/urandom | wc -c")[0].strip() == "16"
    out, err, code = run(phone, "echo x > /sdcard/d.txt; cp /dev/null /sdcard/d.txt && cat /sdcard/d.txt")
    assert (out, err, code) == ("", "", 0)
    assert run(phone, "echo x > /dev/null; cat /dev/null")[0] == ""


def test_syntax_errors_are_status_2_and_harmless(phone):
    for bad in ("if true; then echo", "echo 'open", "| x", "do echo", "fi"):
        out, err, code = run(phone, bad)
        assert code == 2 and out == "" and "syntax error" in err, bad
    assert run(phone, "echo still")[0] == "still\n"


def test_runaway_loops_stop(phone):
    out, err, code = run(phone, "while true; do :; done; echo after")
    assert code == 0 and out == "after\n" and "loop stopped" in err


def test_stdin_is_shared_and_consumed(phone):
    assert run(phone, "read a; read b; echo $b-$a", stdin=b"one\ntwo\n")[0] == "two-one\n"
    assert run(phone, "true; cat", stdin=b"data")[0] == "data"
