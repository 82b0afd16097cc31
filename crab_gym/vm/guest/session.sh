#!/bin/sh
# The desktop session of the VM, as the user "user": the same environment as the xvfb backend's session,
# a session bus, openbox, and the probe agent answering named reads on the virtio-serial port.
export HOME=/home/user USER=user LOGNAME=user SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8
export DISPLAY=:0 XDG_RUNTIME_DIR=/run/crab-session XDG_SESSION_TYPE=x11 GDK_BACKEND=x11
export NO_AT_BRIDGE=0 GNOME_ACCESSIBILITY=1 QT_ACCESSIBILITY=1 SAL_USE_VCLPLUGIN=gtk3 GTK_MODULES=gail:atk-bridge
export LIBGL_ALWAYS_SOFTWARE=1 GSETTINGS_BACKEND=dconf
cd "$HOME"
i=0
until xset q >/dev/null 2>&1; do
  i=$((i + 1)); [ "$i" -gt 600 ] && exit 1; sleep 0.1
done
exec dbus-run-session -- /bin/sh -c '
  xsetroot -solid "#2e547a"
  openbox --config-file "$HOME/.config/openbox/rc.xml" &
  exec /usr/bin/python3 /usr/local/lib/crab-gym/probe.py --port /dev/virtio-ports/org.crabgym.probe.0
'
