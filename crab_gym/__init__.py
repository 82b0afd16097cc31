"""crab-gym: GUI agents across a Linux desktop and an Android phone, in one Gymnasium env."""
