"""`reverse:` services (adb reverse): the device side of forward rules from the phone to the host, as adbd
keeps them per transport: forward[:norebind]:LOCAL;REMOTE, killforward:LOCAL, killforward-all and
list-forward, answered as adbd answers them on the device side (one OKAY, then the port a tcp:0 got; the
listing as a length-prefixed string; FAIL with its message).

Nothing on the simulated phone opens a socket, so no connection ever travels through a rule: the rules are
kept, listed and removed exactly as on a device, which is what clients check."""

from __future__ import annotations

SPECS = ("tcp:", "localabstract:", "localreserved:", "localfilesystem:", "jdwp:", "vsock:")


def _okay() -> bytes:
    return b"OKAY"


def _string(payload: str) -> bytes:
    data = payload.encode()
    return f"{len(data):04x}".encode() + data


def _fail(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + f"{len(data):04x}".encode() + data


def handle(conn, command: str) -> bytes:
    """The reply to one `reverse:COMMAND` on connection `conn` (its rules live on it)."""
    rules: dict[str, str] = conn.__dict__.setdefault("reverse_rules", {})
    if command == "list-forward":
        serial = getattr(conn, "serial", "") or "host-1"
        return _string("".join(f"{serial} {local} {remote}\n" for local, remote in rules.items()))
    if command == "killforward-all":
        rules.clear()
        return _okay()
    if command.startswith("killforward:"):
        local = command[len("killforward:") :]
        if rules.pop(local, None) is None:
            return _fail(f"listener '{local}' not found")
        return _okay()
    if command.startswith("forward:"):
        rest = command[len("forward:") :]
        norebind = rest.startswith("norebind:")
        rest = rest[len("norebind:") :] if norebind else rest
        local, sep, remote = rest.partition(";")
        if not sep or not local.startswith(SPECS) or not remote.startswith(SPECS):
            return _fail(f"malformed forward spec '{rest}'")
        if norebind and local in rules:
            return _fail(f"cannot rebind existing socket '{local}'")
        port = ""
        if local == "tcp:0":  # a free port is chosen, and told
            used = {int(k[4:]) for k in rules if k.startswith("tcp:") and k[4:].isdigit()}
            port = str(next(p for p in range(38000, 65535) if p not in used))
            local = f"tcp:{port}"
        rules[local] = remote
        return _okay() + (_string(port) if port else b"")
    return _fail(f"unknown reverse command '{command}'")
