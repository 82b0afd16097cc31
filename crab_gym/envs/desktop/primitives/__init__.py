"""What the desktop is made of, below any session: X11 input, frames and windows, the session's processes,
its files, the apps task setups start, and how a launch is judged.

Both backends (:mod:`crab_gym.envs.desktop.backends`) and the VM plumbing (:mod:`crab_gym.vm`) build on
these, and nothing here imports them back. All but ``x11`` are guest-safe (stdlib and python-xlib only): the
VM image ships them to the probe agent (``SHARED_MODULES`` in :mod:`crab_gym.vm.recipe`).
"""
