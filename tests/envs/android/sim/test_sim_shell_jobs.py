"""The shell features tool scripts use beyond plain POSIX lists: background jobs, `set -e/-u/-x/-o pipefail`,
mksh's `[[ ]]`, `trap`, `exec` and `~`, run in-process through Phone.shell."""

from __future__ import annotations

import pytest


def run(phone, cmd: str) -> tuple[str, str, int]:
    out, err, code = phone.shell(cmd)
    return out.decode(), err.decode(), code


@pytest.mark.parametrize(
    "cmd, out, code",
    [
        # set -e: exits on a failing command, not on tested ones
        ("set -e; false; echo no", "", 1),
        ("set -e; false || echo handled; echo after", "handled\nafter\n", 0),
        ("set -e; if false; then :; fi; while false; do :; done; echo fine", "fine\n", 0),
        ("set -e; ! true; echo negated", "negated\n", 0),
        ("set -e; false | true; echo pipeline", "pipeline\n", 0),
        ("set -e; (false); echo no", "", 1),
        ("set -e; f() { false; echo in-f; }; f; echo no", "", 1),
        ("set -e; set +e; false; echo off", "off\n", 0),
        ("set -o errexit; false; echo no", "", 1),
        # pipefail
        ("false | true; echo $?", "0\n", 0),
        ("set -o pipefail; false | true; echo $?", "1\n", 0),
        # [[ ]]
        ("[[ -d /sdcard && abc == a* ]] && echo yes", "yes\n", 0),
        ('[[ abc == "a*" ]] || echo quoted-is-literal', "quoted-is-literal\n", 0),
        ("x='a b'; [[ $x = 'a b' ]] && echo no-splitting", "no-splitting\n", 0),
        ("[[ ! -e /nope && ( 1 -lt 2 || x ) ]] && echo grouped", "grouped\n", 0),
        ("[[ b > a ]] && echo greater", "greater\n", 0),
        ("[[ '' ]]; echo $?", "1\n", 0),
        # tilde
        ("echo ~ ~/x '~'", "/ //x ~\n", 0),
        ("HOME=/sdcard; cd ~/Download && pwd", "/sdcard/Download\n", 0),
        # trap
        ("trap 'echo bye' EXIT; echo hi", "hi\nbye\n", 0),
        ("trap 'echo bye $?' EXIT; exit 3", "bye 3\n", 3),
        ("(trap 'echo inner' EXIT; echo sub); echo outer", "sub\ninner\nouter\n", 0),
        ("trap 'echo x' EXIT; trap - EXIT; echo none", "none\n", 0),
        ("trap 'echo t' INT; trap", "trap -- 'echo t' INT\n", 0),
        # exec
        ("exec echo replaced; echo never", "replaced\n", 0),
        ("exec 2>&1; ls /nope", "ls: /nope: No such file or directory\n", 1),
        # background jobs
        ("echo bg > /sdcard/bg.txt & wait $!; cat /sdcard/bg.txt", "bg\n", 0),
        ("sh -c 'exit 4' & wait $!; echo $?", "4\n", 0),
        ("{ for i in 3 1 2; do echo $i & done; wait; } | sort; echo all", "1\n2\n3\nall\n", 0),  # jobs race
        ('echo $!; true & test -n "$!" && echo pid-set', "\npid-set\n", 0),
        ("nohup echo kept", "kept\n", 0),
        ("wait 12345; echo $?", "127\n", 0),
    ],
)
def test_shell_features(phone, cmd, out, code):
    got_out, err, got_code = run(phone, cmd)
    assert (got_out, got_code) == (out, code), err


def test_set_u_and_x_write_to_stderr(phone):
    out, err, code = run(phone, "set -u; echo ${nope:-default}; echo $nope; echo after")
    assert (out, err, code) == ("default\n", "/system/bin/sh: nope: parameter not set\n", 1)
    out, err, code = run(phone, "set -x; echo a 'b c'")
    assert (out, err, code) == ("a b c\n", "+ echo a 'b c'\n", 0)
    assert run(phone, "echo $-; set -eu; echo $-")[0] == "h\neuh\n"


def test_mksh_has_no_regex_match(phone):
    _, err, code = run(phone, "[[ abc =~ b ]]")
    assert code == 2 and "'=~' unexpected" in err


def test_a_background_job_runs_while_the_line_goes_on(phone):
    """The foreground does not wait for a job before it is asked to: `sleep 1 &` returns at once and the
    line's end waits for it (its output goes to the host)."""
    out, _, code = run(phone, "(sleep 1; echo late) & echo early")
    assert (out, code) == ("early\nlate\n", 0)


def test_kill_stops_a_job_and_jobs_lists_it(phone):
    out, _, code = run(phone, "while true; do sleep 1; done & pid=$!; kill $pid; wait $pid; echo $?")
    assert (out, code) == ("143\n", 0)
    assert run(phone, "kill 99999")[2] == 1


def test_a_detached_job_outlives_its_line(phone):
    """Output to a file: the job goes on after the command line returned (as `nohup cmd > f &` does)."""
    import time

    assert run(phone, "(sleep 1; echo done > /sdcard/later.txt) > /dev/null 2>&1 &") == ("", "", 0)
    assert not phone.fs.exists("/sdcard/later.txt")
    deadline = time.monotonic() + 10
    while not phone.fs.exists("/sdcard/later.txt") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert phone.fs.read_bytes("/sdcard/later.txt") == b"done\n"
