"""Desktop backends: sessions that implement :class:`~crab_gym.envs.desktop.backends.base.DesktopSession`,
made from a parsed backend string (:mod:`crab_gym.envs.backend_spec`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crab_gym.envs.backend_spec import BackendSpec

if TYPE_CHECKING:
    from crab_gym.envs.desktop.backends.base import DesktopSession


def session_class(spec: BackendSpec) -> type[DesktopSession]:
    """The session type of a desktop backend spec (libvirt is imported only when asked for)."""
    if spec.device != "ubuntu":
        raise ValueError(f"{spec.text!r} is a {spec.device} backend, not a desktop one")
    if spec.kind == "libvirt":
        from crab_gym.envs.desktop.backends.libvirt import LibvirtSession

        return LibvirtSession
    from crab_gym.envs.desktop.backends.xvfb import XvfbSession

    return XvfbSession


def make_session(spec: BackendSpec, size: tuple[int, int] = (1280, 800)) -> DesktopSession:
    """A new (not yet started) session for ``spec``, of screen ``size``."""
    if spec.kind == "libvirt":
        from crab_gym.envs.desktop.backends.libvirt import LibvirtSession
        from crab_gym.vm.connection import DEFAULT_URI

        return LibvirtSession(spec.domain, spec.uri or DEFAULT_URI, size=size)
    from crab_gym.envs.desktop.backends.xvfb import XvfbSession

    return XvfbSession(size=size)


__all__ = ["make_session", "session_class"]
