"""The kernel's view of the phone: /proc files made when read (meminfo, version, stat, cpuinfo, uptime,
loadavg, net/dev, net/tcp...), in the formats Linux 6.1 prints, so clients' parsers read them as on a real
device. The tools that report it (`uname`, `uptime`, `df`, `nproc`) are in kernelcmds.py.

Figures follow the phone's state: uptime and CPU ticks move with its clock (a second per state change, or
the wall clock), free memory shrinks with each running app, /data's use is the sandbox's real size.
"""

from __future__ import annotations

from ..storage import db
from .clock import elapsed_ms

KERNEL = "6.1.57-android14-11-crab"
KERNEL_VERSION = "#1 SMP PREEMPT Fri Mar 15 09:00:00 UTC 2024"
BOOT_AGE_S = 600  # the phone booted this long before its clock's start
CPUS = 4
MEM_TOTAL_KB = 4_025_692
APP_RSS_KB = 98_044  # what `ps` shows for an app process
CPU_FLAGS = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht "
    "syscall nx rdtscp lm constant_tsc rep_good nopl xtopology cpuid tsc_known_freq pni pclmulqdq ssse3 fma "
    "cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm "
    "3dnowprefetch avx2 bmi1 bmi2 erms"
)


def uptime_s(phone) -> float:
    return BOOT_AGE_S + elapsed_ms(phone) / 1000


def _apps(phone) -> int:
    return len({a.package for a in phone.stack})


def meminfo(phone) -> bytes:
    free = 1_412_340 - _apps(phone) * APP_RSS_KB
    cached = 1_523_360
    rows = (
        ("MemTotal", MEM_TOTAL_KB),
        ("MemFree", free),
        ("MemAvailable", free + cached),
        ("Buffers", 3384),
        ("Cached", cached),
        ("SwapCached", 15260),
        ("Active", 912_980),
        ("Inactive", 1_071_324),
        ("Active(anon)", 306_700 + _apps(phone) * APP_RSS_KB // 2),
        ("Inactive(anon)", 201_636),
        ("Active(file)", 606_280),
        ("Inactive(file)", 869_688),
        ("Unevictable", 113_944),
        ("Mlocked", 113_140),
        ("SwapTotal", 2_097_148),
        ("SwapFree", 1_918_268),
        ("Dirty", 180),
        ("Writeback", 0),
        ("AnonPages", 511_208 + _apps(phone) * APP_RSS_KB),
        ("Mapped", 634_736),
        ("Shmem", 18108),
        ("KReclaimable", 86836),
        ("Slab", 257_732),
        ("SReclaimable", 62012),
        ("SUnreclaim", 195_720),
        ("KernelStack", 38064),
        ("ShadowCallStack", 0),
        ("PageTables", 70172),
        ("SecPageTables", 0),
        ("NFS_Unstable", 0),
        ("Bounce", 0),
        ("WritebackTmp", 0),
        ("CommitLimit", 4_109_994),
        ("Committed_AS", 65_839_496),
        ("VmallocTotal", 34_359_738_367),
        ("VmallocUsed", 106_756),
        ("VmallocChunk", 0),
        ("Percpu", 11072),
        ("CmaTotal", 0),
        ("CmaFree", 0),
    )
    return "".join(f"{name + ':':<16}{kb:>8} kB\n" for name, kb in rows).encode()


def version(phone) -> bytes:
    return (
        f"Linux version {KERNEL} (build-user@build-host) (Android (10087095, +pgo, +bolt, +lto, -mlgo, "
        f"based on r487747c) clang version 17.0.2, LLD 17.0.2) {KERNEL_VERSION}\n"
    ).encode()


def _ticks(phone) -> list[tuple[int, ...]]:
    """Per CPU: user nice system idle iowait irq softirq steal guest guest_nice, in USER_HZ (100/s)."""
    t = int(uptime_s(phone) * 100)
    return [
        (
            t // 9 + k,
            t // 200,
            t // 14,
            t - t // 9 - t // 14 - t // 200 - t // 300,
            t // 300,
            0,
            t // 500,
            0,
            0,
            0,
        )
        for k in range(CPUS)
    ]


def stat(phone) -> bytes:
    per = _ticks(phone)
    total = tuple(sum(col) for col in zip(*per, strict=True))
    lines = ["cpu  " + " ".join(map(str, total))]
    lines += [f"cpu{k} " + " ".join(map(str, row)) for k, row in enumerate(per)]
    up = int(uptime_s(phone))
    lines += [
        f"intr {up * 310} " + " ".join(["0"] * 16),
        f"ctxt {up * 2450}",
        f"btime {(db.NOW_MS + elapsed_ms(phone)) // 1000 - up}",
        f"processes {4200 + phone.counter}",
        "procs_running 1",
        "procs_blocked 0",
        f"softirq {up * 120} 0 {up * 40} 0 {up * 20} 0 0 {up * 10} {up * 30} 0 {up * 20}",
    ]
    return ("\n".join(lines) + "\n").encode()


def cpuinfo(phone) -> bytes:
    blocks = []
    for k in range(CPUS):
        rows = (
            ("processor", k),
            ("vendor_id", "GenuineIntel"),
            ("cpu family", 6),
            ("model", 85),
            ("model name", "Intel(R) Xeon(R) CPU @ 2.00GHz"),
            ("stepping", 7),
            ("microcode", "0xffffffff"),
            ("cpu MHz", "2000.000"),
            ("cache size", "39424 KB"),
            ("physical id", 0),
            ("siblings", CPUS),
            ("core id", k),
            ("cpu cores", CPUS),
            ("apicid", k),
            ("initial apicid", k),
            ("fpu", "yes"),
            ("fpu_exception", "yes"),
            ("cpuid level", 13),
            ("wp", "yes"),
            ("flags", CPU_FLAGS),
            ("bugs", ""),
            ("bogomips", "4000.00"),
            ("clflush size", 64),
            ("cache_alignment", 64),
            ("address sizes", "46 bits physical, 48 bits virtual"),
        )
        text = "".join(
            f"{name}\t{':' if len(name) >= 8 else chr(9) + ':'} {value}".rstrip(" ") + "\n"
            for name, value in rows
        )
        blocks.append(text + "power management:\n")
    return "\n".join(blocks).encode() + b"\n"


def uptime(phone) -> bytes:
    up = uptime_s(phone)
    return f"{up:.2f} {up * CPUS * 0.9:.2f}\n".encode()


def loadavg(phone) -> bytes:
    return f"0.52 0.61 0.70 1/{1200 + _apps(phone) * 30} {4200 + phone.counter}\n".encode()


FILES = {
    "/proc/meminfo": meminfo,
    "/proc/version": version,
    "/proc/stat": stat,
    "/proc/cpuinfo": cpuinfo,
    "/proc/uptime": uptime,
    "/proc/loadavg": loadavg,
}
NET_FILES = {  # network.py's, which loads (with its commands) when one is first read
    "/proc/net/dev": "proc_dev",
    "/proc/net/tcp": "proc_tcp",
    "/proc/net/tcp6": "proc_tcp6",
    "/proc/net/udp": "proc_udp",
    "/proc/net/udp6": "proc_udp",
    "/proc/net/route": "proc_route",
}


def _net_file(phone, name: str) -> bytes:
    from . import network

    return getattr(network, name)(phone)


def mount(phone) -> None:
    """Give the phone's sandbox its /proc files."""
    for path, make in FILES.items():
        phone.fs.add_virtual(path, lambda make=make: make(phone))
    for path, name in NET_FILES.items():
        phone.fs.add_virtual(path, lambda name=name: _net_file(phone, name))
