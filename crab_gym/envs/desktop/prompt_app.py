"""A system prompt on the desktop, run inside the session by Debian's python3 (GTK 3): an update prompt, an
authentication (permission) dialog, a pop-up or a notification, as the desktop's own programs show them.

Each kind takes the window class of the program that shows it on a Debian desktop (update-notifier,
polkit-gnome's agent, a browser-less pop-up, xfce4-notifyd), so whoever reads the session's windows sees what
they would see there. A dialog takes the focus; Escape or any of its buttons closes it. A notification takes
no focus, sits at the top right and closes when clicked or after ``expire_s`` seconds, as xfce4-notifyd's do.

Usage: python3 -c "$(cat prompt_app.py)" JSON   (an object: kind, title, message, buttons, expire_s)
"""

from __future__ import annotations

import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

WM_CLASSES = {  # kind -> (res_name, res_class) of the program that shows such a window on Debian
    "update": ("update-notifier", "Update-notifier"),
    "permission": ("polkit-gnome-authentication-agent-1", "Polkit-gnome-authentication-agent-1"),
    "popup": ("xmessage", "Xmessage"),
    "notification": ("xfce4-notifyd", "Xfce4-notifyd"),
}


def main(spec: dict) -> None:
    kind = spec["kind"]
    win = Gtk.Window(title=spec["title"])
    win.set_wmclass(*WM_CLASSES[kind])
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=10, margin=16)
    title = Gtk.Label(xalign=0)
    title.set_markup(f"<b>{GLib.markup_escape_text(spec['title'])}</b>")
    box.add(title)
    if spec.get("message"):
        box.add(Gtk.Label(label=spec["message"], xalign=0, wrap=True, max_width_chars=50))
    if kind == "notification":
        win.set_name("notification")
        css = Gtk.CssProvider()
        css.load_from_data(b"#notification { background-color: #2e3440; } label { color: #eceff4; }")
        priority = Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION
        Gtk.StyleContext.add_provider_for_screen(win.get_screen(), css, priority)
        # openbox takes NOTIFICATION for a normal window (and the session maximizes those): UTILITY, as it is
        win.set_type_hint(Gdk.WindowTypeHint.UTILITY)
        win.set_decorated(False)
        win.set_accept_focus(False)
        win.set_keep_above(True)
        win.set_skip_taskbar_hint(True)
        win.set_skip_pager_hint(True)
        win.set_default_size(360, 80)
        win.set_gravity(Gdk.Gravity.NORTH_EAST)
        win.move(win.get_screen().get_width() - 20, 20)  # the top right corner, as xfce4-notifyd puts them
        ev = Gtk.EventBox()
        ev.add(box)
        ev.connect("button-press-event", lambda *_: Gtk.main_quit())
        win.add(ev)
        win.show_all()
        GLib.timeout_add(int(float(spec.get("expire_s", 8)) * 1000), Gtk.main_quit)
    else:
        win.set_type_hint(Gdk.WindowTypeHint.DIALOG)
        win.set_position(Gtk.WindowPosition.CENTER)
        win.set_keep_above(True)
        if kind == "permission":
            box.add(Gtk.Entry(visibility=False, placeholder_text="Password"))
        row = Gtk.Box(spacing=8, halign=Gtk.Align.END)
        for label in spec.get("buttons") or ["OK"]:
            button = Gtk.Button(label=label)
            button.connect("clicked", lambda *_: Gtk.main_quit())
            row.add(button)
        box.add(row)
        win.add(box)
        win.connect("key-press-event", lambda _w, ev: ev.keyval == Gdk.KEY_Escape and Gtk.main_quit())
        win.show_all()
        win.present()
    win.connect("destroy", Gtk.main_quit)
    Gtk.main()


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
