"""adbd: the adb wire protocol, the device server and its services (shell, sync, exec)."""
