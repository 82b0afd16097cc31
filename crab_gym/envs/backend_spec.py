"""The one parser of backend strings, for every device type (``backends={"ubuntu": ..., "android": ...}``).

A backend string says how a device is reached; the sub-envs build their session (desktop) or device
(phone) from the :class:`BackendSpec` parsed here, and nothing else reads the string.
"""

from __future__ import annotations

from dataclasses import dataclass

# What each device accepts, in the words of the error messages and the docs.
FORMS: dict[str, tuple[str, ...]] = {
    "ubuntu": ("xvfb", "libvirt[:<domain>][@<uri>]"),
    "android": ("sim", "adb:<serial>", "adb-sim", "androidenv"),
}
DEFAULTS: dict[str, str] = {"ubuntu": "xvfb", "android": "sim"}


@dataclass(frozen=True)
class BackendSpec:
    """A parsed backend string: the device, the kind of backend and its fields."""

    device: str  # "ubuntu" | "android"
    kind: str  # "xvfb" | "libvirt" | "sim" | "adb" | "adb-sim" | "androidenv"
    text: str  # the string as given
    domain: str | None = None  # libvirt: the domain to drive (None: a worker clone of the template)
    uri: str | None = None  # libvirt: the connection URI (None: the default one)
    serial: str | None = None  # adb: the device serial


def parse_backend(device: str, text: str | None) -> BackendSpec:
    """The spec of backend string ``text`` for ``device`` (None or "" means the device's default).

    Raises ValueError naming the string and what would be valid.
    """
    if device not in FORMS:
        raise ValueError(f"no backends for device {device!r}; devices with backends: {', '.join(FORMS)}")
    text = text or DEFAULTS[device]
    spec = _parse_desktop(text) if device == "ubuntu" else _parse_android(text)
    if spec is None:
        raise ValueError(f"unknown {device} backend {text!r}; valid: {', '.join(FORMS[device])}")
    return spec


def _parse_desktop(text: str) -> BackendSpec | None:
    if text == "xvfb":
        return BackendSpec("ubuntu", "xvfb", text)
    head, at, uri = text.partition("@")
    kind, colon, domain = head.partition(":")
    if kind != "libvirt" or (colon and not domain) or (at and not uri):
        return None
    return BackendSpec("ubuntu", "libvirt", text, domain=domain or None, uri=uri or None)


def _parse_android(text: str) -> BackendSpec | None:
    if text in ("sim", "adb-sim", "androidenv"):
        return BackendSpec("android", text, text)
    if text.startswith("adb:") and len(text) > 4:
        return BackendSpec("android", "adb", text, serial=text[4:])
    return None


__all__ = ["DEFAULTS", "FORMS", "BackendSpec", "parse_backend"]
