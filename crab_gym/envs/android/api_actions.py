"""The phone's API actions (opt-in, see :mod:`crab_gym.envs.api_actions`): ``adb shell`` and app-level calls
through the system providers (``content insert``), all through :meth:`Device.shell`, so they work alike on
the simulated phone and on a real one over adb.

The phone's shell bounds a command (the simulated one stops runaway loops, adb its transport); the output
is cut at OUTPUT_CAP, and a failing command is a result (exit code and output). ``add_contact`` inserts
as a stock contacts provider takes it: an empty raw contact, then its name and phone data rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from crab_gym.core.actions import Typable, action
from crab_gym.envs.android.device import quote
from crab_gym.envs.android.seeder import insert_contacts
from crab_gym.envs.android.sim.storage.baseline import Contact
from crab_gym.envs.api_actions import command_result
from crab_gym.envs.base import ActionResult, DeviceError

if TYPE_CHECKING:
    from crab_gym.envs.android import AndroidEnv

Command = Annotated[str, Field(min_length=1, max_length=4096)]
PhoneNumber = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^\+?[0-9 ()-]+$")]
Body = Annotated[str, Field(min_length=1, max_length=1024), Typable]
Name = Annotated[str, Field(min_length=1, max_length=128), Typable]


@action
def adb_shell(env: AndroidEnv, command: Command) -> ActionResult:
    """Run a command line in the phone's shell (as `adb shell` does); returns its exit code and output.

    Args:
        command: The command line, e.g. "content query --uri content://sms/sent" or "ls /sdcard".
    """
    out, err, code = env.device.shell(command)
    return ActionResult(output=command_result(out + err, code))


@action
def send_sms(env: AndroidEnv, to: PhoneNumber, body: Body) -> ActionResult:
    """Send a text message (it goes into the phone's sent messages).

    Args:
        to: The recipient's phone number, e.g. "+1 555 0100".
        body: The message text.
    """
    return _insert(env, "content://sms/sent", address=to, body=body)


@action
def add_contact(env: AndroidEnv, name: Name, number: PhoneNumber) -> ActionResult:
    """Add a contact with a phone number to the phone's contacts.

    Args:
        name: The contact's full name, e.g. "Ada Lovelace".
        number: The contact's phone number.
    """
    try:
        (rid,) = insert_contacts(env.device, [Contact(name, number, "")])
    except DeviceError as e:
        return ActionResult(output=command_result(str(e).encode(), 1))
    env.device.invalidate()
    return ActionResult(output=command_result(f"raw contact {rid}\n".encode(), 0))


def _insert(env: AndroidEnv, uri: str, **values: str) -> ActionResult:
    binds = " ".join(f"--bind {quote(f'{k}:s:{v}')}" for k, v in values.items())
    out, err, code = env.device.shell(f"content insert --uri {uri} {binds}")
    return ActionResult(output=command_result(out + err, code))


ACTIONS = (adb_shell, send_sms, add_contact)
