"""The phone's network, from its settings (wifi_on, airplane_mode_on, location_mode): `ip addr|route`,
`ifconfig`, /proc/net/*, `dumpsys wifi`, `cmd wifi`, `cmd connectivity airplane-mode` and `cmd location`,
printed as iproute2, toybox and Android 14's services print them.

wlan0 is up and holds its address while Wi-Fi is on and airplane mode off; the cellular interface
(rmnet_data0) while mobile data is on and airplane mode off. Nothing travels: the counters move with the
clock.
"""

from __future__ import annotations

import ipaddress

from ..shell.context import Ctx, command
from .clock import elapsed_ms
from .logcat import log
from .providers import get_setting, put_setting

SSID = "AndroidWifi"
WLAN = ("wlan0", "02:15:b2:00:00:00", "10.0.2.16", 24, "10.0.2.2", "fe80::15:b2ff:fe00:0")
RMNET = ("rmnet_data0", "", "10.0.0.2", 30, "10.0.0.1", "fe80::a1b2:c3ff:fed4:e5f6")


def airplane(phone) -> bool:
    return get_setting(phone, "global", "airplane_mode_on") == "1"


def wifi_enabled(phone) -> bool:
    return get_setting(phone, "global", "wifi_on") not in ("0", None) and not airplane(phone)


def data_up(phone) -> bool:
    return get_setting(phone, "global", "mobile_data") != "0" and not airplane(phone)


def set_airplane(phone, on: bool) -> None:
    """As Settings does: the setting, then the AIRPLANE_MODE broadcast's effects (the tile redraws)."""
    put_setting(phone, "global", "airplane_mode_on", "1" if on else "0")
    log(phone, "I", "AirplaneModeEnabler", f"Airplane mode {'on' if on else 'off'} (from settings)")
    phone.invalidate()


def _interfaces(phone) -> list[tuple[str, str, str, int, str, str, bool]]:
    """(name, mac, ipv4, prefix, gateway, ipv6 link-local, up) of lo, wlan0, rmnet_data0."""
    return [
        ("lo", "00:00:00:00:00:00", "127.0.0.1", 8, "", "::1", True),
        (*WLAN, wifi_enabled(phone)),
        (*RMNET, data_up(phone)),
    ]


def _bcast(ip: str, prefix: int) -> str:
    return str(ipaddress.ip_interface(f"{ip}/{prefix}").network.broadcast_address)


def _mask(prefix: int) -> str:
    return str(ipaddress.ip_network(f"0.0.0.0/{prefix}").netmask)


def _traffic(phone, name: str, up: bool) -> tuple[int, int, int, int]:
    """(rx bytes, rx packets, tx bytes, tx packets): grow with the clock while the link is up."""
    if not up:
        return 0, 0, 0, 0
    s = elapsed_ms(phone) // 1000 + 600
    scale = {"lo": 40, "wlan0": 2600, "rmnet_data0": 700}[name]
    return s * scale * 9, s * scale // 150 + 1, s * scale * 2, s * scale // 300 + 1


# --- ip / ifconfig ----------------------------------------------------------------------------------------


@command("ip")
def ip(ctx: Ctx, args: list[str]) -> int:
    """iproute2's `ip [-4|-6|-o] addr|link|route [show] [dev NAME]`."""
    args = [a for a in args if a not in ("-4", "-6", "-o", "-details", "-d")]
    obj = args[0] if args else ""
    rest = [a for a in args[1:] if a not in ("show", "list", "ls", "dev", "table", "all", "main")]
    want = rest[0] if rest else None
    names = [i[0] for i in _interfaces(ctx.phone)]
    if want and want not in names:
        ctx.eprint(f'Device "{want}" does not exist.')
        return 1
    if "address".startswith(obj) and obj or "link".startswith(obj) and obj:
        for k, (name, mac, v4, prefix, _gw, v6, up) in enumerate(_interfaces(ctx.phone), start=1):
            if want and name != want:
                continue
            _ip_link(ctx, k, name, mac, up)
            if obj.startswith("l") or not up:
                continue
            scope = "host" if name == "lo" else "global"
            brd = "" if name == "lo" else f" brd {_bcast(v4, prefix)}"
            ctx.print(f"    inet {v4}/{prefix}{brd} scope {scope} {name}")
            ctx.print("       valid_lft forever preferred_lft forever")
            ctx.print(
                f"    inet6 {v6}/{128 if name == 'lo' else 64} scope {'host' if name == 'lo' else 'link'} "
            )
            ctx.print("       valid_lft forever preferred_lft forever")
        return 0
    if "route".startswith(obj) and obj:
        for name, _mac, v4, prefix, _gw, _v6, up in _interfaces(ctx.phone):
            if name == "lo" or not up or (want and name != want):
                continue
            net = ipaddress.ip_interface(f"{v4}/{prefix}").network
            ctx.print(f"{net} dev {name} proto kernel scope link src {v4} ")
        return 0
    ctx.eprint(
        f'Object "{obj}" is unknown, try "ip help".'
        if obj
        else "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }"
    )
    return 255 if obj else 1


def _ip_link(ctx: Ctx, k: int, name: str, mac: str, up: bool) -> None:
    if name == "lo":
        ctx.print(
            f"{k}: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000"
        )
        ctx.print("    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00")
        return
    state = "<BROADCAST,MULTICAST,UP,LOWER_UP>" if up else "<BROADCAST,MULTICAST>"
    if name.startswith("rmnet"):
        ctx.print(
            f"{k}: {name}: {state.replace('BROADCAST,', '')} mtu 1500 qdisc mq "
            f"state {'UP' if up else 'DOWN'} group default qlen 1000"
        )
        ctx.print("    link/[530] ")
        return
    ctx.print(
        f"{k}: {name}: {state} mtu 1500 qdisc mq state {'UP' if up else 'DOWN'} group default qlen 3000"
    )
    ctx.print(f"    link/ether {mac} brd ff:ff:ff:ff:ff:ff")


@command("ifconfig")
def ifconfig(ctx: Ctx, args: list[str]) -> int:
    """toybox ifconfig [-a] [NAME]: the interfaces that are up (all with -a), in net-tools' layout."""
    show_all = "-a" in args
    names = [a for a in args if not a.startswith("-")]
    found = False
    for name, mac, v4, prefix, _gw, v6, up in _interfaces(ctx.phone):
        if names and name != names[0] or not (up or show_all or names):
            continue
        found = True
        rx, rxp, tx, txp = _traffic(ctx.phone, name, up)
        if name == "lo":
            ctx.print("lo        Link encap:Local Loopback  ")
        elif name.startswith("rmnet"):
            ctx.print(f"{name:<10}Link encap:UNSPEC  ")
        else:
            ctx.print(f"{name:<10}Link encap:Ethernet  HWaddr {mac}  Driver mac80211_hwsim")
        if up:
            bcast = "" if name == "lo" else f"  Bcast:{_bcast(v4, prefix)}"
            ctx.print(f"          inet addr:{v4}{bcast}  Mask:{_mask(prefix)} ")
            ctx.print(
                f"          inet6 addr: {v6}/{128 if name == 'lo' else 64} "
                f"Scope: {'Host' if name == 'lo' else 'Link'}"
            )
        flags = (
            "UP LOOPBACK RUNNING"
            if name == "lo"
            else ("UP BROADCAST RUNNING MULTICAST" if up else "BROADCAST MULTICAST")
        )
        ctx.print(f"          {flags}  MTU:{65536 if name == 'lo' else 1500}  Metric:1")
        ctx.print(f"          RX packets:{rxp} errors:0 dropped:0 overruns:0 frame:0 ")
        ctx.print(f"          TX packets:{txp} errors:0 dropped:0 overruns:0 carrier:0 ")
        ctx.print(f"          collisions:0 txqueuelen:{1000 if name != 'wlan0' else 3000} ")
        ctx.print(f"          RX bytes:{rx} TX bytes:{tx} ")
        ctx.print()
    if names and not found:
        ctx.eprint(f"ifconfig: {names[0]}: No such device")
        return 1
    return 0


# --- /proc/net --------------------------------------------------------------------------------------------


def proc_dev(phone) -> bytes:
    lines = [
        "Inter-|   Receive                                                |  Transmit",
        " face |bytes    packets errs drop fifo frame compressed multicast"
        "|bytes    packets errs drop fifo colls carrier compressed",
    ]
    for name, *_rest, up in _interfaces(phone):
        rx, rxp, tx, txp = _traffic(phone, name, up)
        lines.append(
            f"{name:>6}:{rx:>8} {rxp:>7} {0:>4} {0:>4} {0:>4} {0:>5} {0:>10} {0:>9} "
            f"{tx:>8} {txp:>7} {0:>4} {0:>4} {0:>4} {0:>5} {0:>7} {0:>10}"
        )
    return ("\n".join(lines) + "\n").encode()


TCP_HEAD = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"


def proc_tcp(phone) -> bytes:
    """IPv4 TCP sockets: nothing listens on IPv4 (adbd's port is an IPv6 socket, in tcp6)."""
    return (TCP_HEAD.ljust(149) + "\n").encode()


def proc_tcp6(phone) -> bytes:
    head = (
        "  sl  local_address                         remote_address                        st tx_queue "
        "rx_queue tr tm->when retrnsmt   uid  timeout inode"
    )
    adbd = (
        f"{0:>4}: {'0' * 32}:15B3 {'0' * 32}:0000 0A 00000000:00000000 00:00000000 00000000  2000        0 "
        "28541 1 0000000000000000 100 0 0 10 0"
    )
    return f"{head}\n{adbd}\n".encode()


def proc_udp(phone) -> bytes:
    head = (
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode "
        "ref pointer drops"
    )
    return f"{head}\n".encode()


def proc_route(phone) -> bytes:
    lines = ["Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"]
    for name, _mac, v4, prefix, _gw, _v6, up in _interfaces(phone):
        if name == "lo" or not up:
            continue
        net = ipaddress.ip_interface(f"{v4}/{prefix}").network
        le = [f"{int.from_bytes(a.packed, 'little'):08X}" for a in (net.network_address, net.netmask)]
        lines.append(f"{name}\t{le[0]}\t00000000\t0001\t0\t0\t0\t{le[1]}\t0\t0\t0")
    return ("\n".join(lines) + "\n").encode()


# --- services ---------------------------------------------------------------------------------------------


def dump_wifi(ctx: Ctx) -> None:
    """`dumpsys wifi`: the lines tools read (Wi-Fi is enabled/disabled, mWifiInfo, the network's SSID)."""
    on = wifi_enabled(ctx.phone)
    ctx.print(f"Wi-Fi is {'enabled' if on else 'disabled'}")
    ctx.print(f"Verbose logging is off\nStay-awake conditions: 0\nmWifiState {3 if on else 1}")
    ctx.print("WifiController:\n  current state: " + ("ConnectableState" if on else "DisabledState"))
    ctx.print(f"mAirplaneModeOn {'true' if airplane(ctx.phone) else 'false'}")
    ctx.print("ClientModeManager:")
    ctx.print(f"  mWifiInfo {_wifi_info(ctx.phone)}")
    if on:
        ctx.print(f'  mLastNetworkId: 0\n  mLastBssid: 00:13:10:85:fe:01\n  mNetworkInfo SSID: "{SSID}"')
        ctx.print("  Supplicant state: COMPLETED")


def _wifi_info(phone) -> str:
    if not wifi_enabled(phone):
        return (
            "SSID: <unknown ssid>, BSSID: <none>, MAC: 02:00:00:00:00:00, IP: null, Security type: -1, "
            "Supplicant state: DISCONNECTED, Wi-Fi standard: 0, RSSI: -127, Link speed: -1Mbps, "
            "Frequency: -1MHz, Net ID: -1"
        )
    return (
        f'SSID: "{SSID}", BSSID: 00:13:10:85:fe:01, MAC: {WLAN[1]}, IP: /{WLAN[2]}, Security type: 0, '
        "Supplicant state: COMPLETED, Wi-Fi standard: 4, RSSI: -50, Link speed: 433Mbps, "
        "Tx Link speed: 433Mbps, Rx Link speed: 433Mbps, Frequency: 5180MHz, Net ID: 0, "
        "Metered hint: false, score: 60"
    )


def cmd_wifi(ctx: Ctx, args: list[str]) -> int:
    """`cmd wifi status | set-wifi-enabled enabled|disabled | get-country-code`."""
    p = ctx.phone
    verb = args[0] if args else ""
    if verb == "set-wifi-enabled" and args[1:2] in (["enabled"], ["disabled"]):
        put_setting(p, "global", "wifi_on", "1" if args[1] == "enabled" else "0")
        p.invalidate()
        return 0
    if verb == "status":
        on = wifi_enabled(p)
        ctx.print(f"Wifi is {'enabled' if on else 'disabled'}")
        ctx.print("Wifi scanning is always available")
        ctx.print("==== Primary ClientModeManager instance ====")
        if on:
            ctx.print(f'Wifi is connected to "{SSID}"')
            ctx.print(f"WifiInfo: {_wifi_info(p)}")
        else:
            ctx.print("Wifi is not connected")
        return 0
    if verb == "get-country-code":
        ctx.print("Wifi Country Code = US")
        return 0
    ctx.eprint("Wi-Fi (wifi) commands:\n  status\n  set-wifi-enabled enabled|disabled\n  get-country-code")
    return 255 if verb else 1


def cmd_connectivity(ctx: Ctx, args: list[str]) -> int:
    """`cmd connectivity airplane-mode [enable|disable]`: prints enabled/disabled with no argument."""
    if args[:1] == ["airplane-mode"]:
        if len(args) == 1:
            ctx.print("enabled" if airplane(ctx.phone) else "disabled")
            return 0
        if args[1] in ("enable", "disable"):
            set_airplane(ctx.phone, args[1] == "enable")
            return 0
        ctx.eprint(f"Unsupported argument: {args[1]}")
        return 255
    ctx.eprint("Connectivity service commands:\n  airplane-mode [enable|disable]")
    return 255 if args else 1


def cmd_location(ctx: Ctx, args: list[str]) -> int:
    """`cmd location is-location-enabled | set-location-enabled true|false [--user N]`
    (Settings.Secure location_mode: 3 on, 0 off)."""
    args = [a for k, a in enumerate(args) if a != "--user" and (k == 0 or args[k - 1] != "--user")]
    if args[:1] == ["is-location-enabled"]:
        ctx.print("false" if get_setting(ctx.phone, "secure", "location_mode") == "0" else "true")
        return 0
    if args[:1] == ["set-location-enabled"] and args[1:2] in (["true"], ["false"]):
        put_setting(ctx.phone, "secure", "location_mode", "3" if args[1] == "true" else "0")
        ctx.phone.invalidate()
        return 0
    if args[:1] in (["providers"], ["is-provider-enabled"]):
        ctx.print("gps\nnetwork\nfused" if args[0] == "providers" else "true")
        return 0
    ctx.eprint(
        "Location service commands:\n  is-location-enabled [--user <USER_ID>]\n"
        "  set-location-enabled [--user <USER_ID>] true|false"
    )
    return 255 if args else 1


def _toggle(ctx: Ctx, args: list[str], verb_at: int, setting: str, usage: str) -> int:
    """`cmd phone data enable|disable`, `cmd bluetooth_manager enable|disable`: a global setting."""
    if len(args) > verb_at and args[verb_at] in ("enable", "disable"):
        put_setting(ctx.phone, "global", setting, "1" if args[verb_at] == "enable" else "0")
        ctx.phone.invalidate()
        return 0
    ctx.eprint(usage)
    return 255 if args else 1


def cmd_phone(ctx: Ctx, args: list[str]) -> int:
    return _toggle(
        ctx, args if args[:1] == ["data"] else [], 1, "mobile_data", "usage: cmd phone data enable|disable"
    )


def cmd_bluetooth(ctx: Ctx, args: list[str]) -> int:
    return _toggle(ctx, args, 0, "bluetooth_on", "usage: cmd bluetooth_manager enable|disable")
