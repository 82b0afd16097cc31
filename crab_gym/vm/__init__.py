"""The desktop in a virtual machine: build the guest image, define the libvirt domain, take its snapshot.

``crab-gym vm build-image`` debootstraps a Debian desktop (Xorg, openbox, rofi, the apps of the xvfb backend,
qemu-guest-agent and our probe agent) into a qcow2 cached in ``~/.cache/crab-gym/vm``; ``crab-gym vm create``
defines a domain on it, boots it once and saves the pristine internal snapshot that every reset loads.
The backend that drives the running guest is :mod:`crab_gym.envs.desktop.backends.libvirt`.
"""
