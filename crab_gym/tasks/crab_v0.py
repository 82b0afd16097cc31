"""CRAB v0's benchmark files (``crab-benchmark-v0/dataset``) on our devices.

CRAB names its 35 sub-task templates by UUID. :data:`CRAB_V0` says, per UUID, what CRAB asks and which of
our templates does the same, with CRAB's attribute names renamed to ours (the task keeps CRAB's names and
values: :func:`crab_template` wraps our template under the UUID). Every one of the 35 maps; a file naming
another UUID fails with a one-line :class:`TaskFileError`.

A sub-task that finds something (an event's title, a contact's email) has CRAB's ``output`` field: a fact of
CRAB's phone. :attr:`CrabSubTask.output_as` names our hidden attribute that takes it, so our setup puts the
fact in place; later sub-tasks already hold the value in their own attributes, as CRAB writes them. Where
our phone cannot hold CRAB's fact (a world clock's gap depends on the phone's time zone), the sub-task gives
our value, and a later sub-task's attribute that held CRAB's value is given ours (:func:`_prepare`).
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any

from crab_gym.core.tasks import (
    SubTask,
    SubTaskTemplate,
    Task,
    TaskFileError,
    get_template,
    parse_adjlist_text,
    tasks_from_file,
)

__all__ = ["CRAB_V0", "CrabSubTask", "crab_template", "import_report", "is_crab_dataset", "load_crab"]


@dataclass(frozen=True)
class CrabSubTask:
    """One CRAB v0 sub-task: what it asks, and our template that does the same (with renames)."""

    asks: str
    ours: str
    renames: Mapping[str, str] = field(default_factory=dict)  # CRAB attribute -> ours
    fixed: Mapping[str, Any] = field(default_factory=dict)  # our attributes CRAB does not give
    compare: str = "same check"  # how CRAB's check differs from our evaluator
    # (our attribute, its value when CRAB's output is null): CRAB's `output` field read as setup data
    output_as: tuple[str, Any] | tuple[()] = ()
    # (our attribute, its value without a predecessor): what CRAB passes on the clipboard, not in the file;
    # a predecessor's output of that attribute's type fills it (:func:`_prepare`), so the setup is skipped
    via_clipboard: tuple[str, Any] | tuple[()] = ()


_A = "a3d11574-2acf-4b26-a569-a5dbc9d548a"  # the prefix CRAB's Android UUIDs share

# fmt: off
CRAB_V0: dict[str, CrabSubTask] = {
    # ---- Android ----
    "caa29623-1811-402d-963a-19f7eecc63d8": CrabSubTask(
        "Messages: send {content} to {number}", "sms_send", {"content": "message"},
        compare="CRAB also wants Messages open on that thread at the end; ours reads the sent SMS only"),
    "955d8773-dd7a-4072-b87c-7e546be7de4e": CrabSubTask(
        "Phone: call {number}", "phone_call",
        compare="CRAB also wants the dialer showing the call; ours reads the call log"),
    _A + "f": CrabSubTask(
        "Tasks: add a task {content}", "tasks_add", {"content": "title"},
        compare="CRAB also wants Tasks in front; ours reads the task list"),
    "0090f116-e02b-4562-a20d-b5df38be963a": CrabSubTask(
        "Gmail: send {mail} a message {content}", "mail_send", {"mail": "to", "content": "body"},
        {"subject": "Message"},
        compare="stricter: ours also asks for the subject 'Message'; CRAB checks recipient and text"),
    "eb92a1e6-4c86-4d56-baac-95fc8397732e": CrabSubTask(
        "Keep Notes: record {content} in a new note without title", "notes_create_untitled",
        {"content": "body"},
        compare="CRAB also wants {content} seen typed and the editor still open; ours reads the saved note"),
    _A + "c": CrabSubTask(
        "Calendar: add an all-day event {content} on {date}", "calendar_add_all_day", {"content": "title"},
        compare="stricter: ours wants the event all-day; CRAB's check finds {content} and {date} on screen"),
    "2394b768-2ca7-45e9-b41e-2aa4e9573192": CrabSubTask(
        "Calendar: find the title of the event on {date} (output)", "calendar_find_event",
        output_as=("title", "Appointment"),
        compare="stricter: ours wants the event opened; CRAB's the day's events listed"),
    _A + "g": CrabSubTask(
        "Contacts: add a contact {name} with mail {mail}", "contacts_add_email", {"mail": "email"},
        compare="CRAB reads the contact's card on screen; ours the contacts provider"),
    _A + "p": CrabSubTask(
        "Contacts: find the mail of {name} (output)", "contacts_find_email", output_as=("email", ""),
        compare="same check: the contact's card shown with the mail"),
    _A + "k": CrabSubTask(
        "Files: find the creation date of {file_path} (output)", "files_find_date", {"file_path": "path"},
        output_as=("date", "1 June 2024"),
        compare="CRAB looks in Google Photos' details; ours in the Files app's, the date the output names"),
    _A + "n": CrabSubTask(
        "Settings: rename the Bluetooth device to {content}", "settings_bluetooth_rename",
        {"content": "name"},
        compare="CRAB also wants {content} seen typed; ours reads Settings.Secure bluetooth_name"),
    _A + "h": CrabSubTask(
        "Clock: add {place_name} to the world clock, tell the time gap (output)", "clock_add_city",
        {"place_name": "city"},
        compare="CRAB reads the city's row on screen; ours the world clock's cities. The gap is our phone's "
        "(UTC), not CRAB's: later sub-tasks get ours"),
    _A + "r": CrabSubTask(
        "Google Drive: create a folder {content}", "drive_create_folder", {"content": "name"},
        compare="CRAB reads the folder's row on Drive's screen with Drive in front; ours reads DocList.db"),
    _A + "w": CrabSubTask(
        "Google Maps: find the address of {content} (output)", "maps_find_address", {"content": "place"},
        compare="CRAB wants a node whose content-desc is the place's name, Maps in front; ours reads the "
        "search Maps recorded (the place and the address it showed), Maps in front"),
    "51b2463c-9904-4a32-81ba-507bfb89d61f": CrabSubTask(
        "Google Maps: the city of postal code {number} in {country} (output)", "maps_postal_city",
        {"number": "code"},
        compare="CRAB reads the search box for the city and the code; ours reads the search Maps recorded "
        "(the code and country asked, the city found), Maps in front"),
    "1a1b72d7-78c9-4027-8278-86083ae01045": CrabSubTask(
        "Google Maps: shortest route distance {place_name_1} -> {place_name_2} (output)",
        "maps_route_distance", {"place_name_1": "origin", "place_name_2": "destination"},
        compare="CRAB wants the directions page's start and destination fields; ours reads the directions "
        "Maps recorded, Maps in front"),
    # ---- Ubuntu ----
    "0f589bf9-9b26-4581-8b78-2961b115ab49": CrabSubTask(
        "vim in a terminal: write {content} into {file_path}, save and quit", "vim_write_file",
        {"file_path": "path", "content": "text"},
        compare="CRAB also wants the terminal in front and vim seen open then closed; ours reads the file"),
    "5b527839-0e58-426d-bab6-7160200b0d24": CrabSubTask(
        "terminal: print {file_path} (output: its text)", "terminal_print_file", output_as=("text", ""),
        compare="CRAB wants `cat file_path` typed; ours the file's text shown in the terminal in front"),
    "1c3bedc3-ea5a-453c-a15b-223d72ab756d": CrabSubTask(
        "submit {content} (CRAB's submit action)", "submit_text",
        compare="same check: the root's submit action carried {content} (ours ignores case and edge spaces)"),
    "a207ef38-b3b2-4c6c-a1e3-75c38162f5ba": CrabSubTask(
        "set {photo_path} as the desktop background", "settings_background",
        compare="same check: picture-uri names a file with the picture's bytes"),
    "217ababc-ccc7-4b9f-af07-c239d92848fe": CrabSubTask(
        "make {target_dir}, copy the {file_extension} files of {source_dir} into it",
        "terminal_copy_by_extension",
        compare="CRAB wants the same names in both folders; ours the same bytes, extra files allowed"),
    "76de4bdb-c980-4b3a-9bd3-c87db467dffe": CrabSubTask(
        "Writer: paste the clipboard, save as ODT {file_path}", "writer_paste_clipboard",
        compare="CRAB also wants Writer in front; both read the clipboard at the end, line by line"),
    "0111384f-38ca-41a2-9504-cb1c55002b3c": CrabSubTask(
        "Writer: image 1 above image 2, save ODT {output_path}", "writer_images_above",
        compare="both lay the document out and find the pictures; CRAB also wants Writer in front"),
    "467f17a6-c42f-4eda-996f-a53385eb3efd": CrabSubTask(
        "Impress: image 1 right of image 2, save PDF {output_path}", "impress_images_right_pdf",
        compare="both find the pictures in the PDF; CRAB also wants Impress in front"),
    "434402f3-647a-4a9a-9d8f-10f5bb6c7cf0": CrabSubTask(
        "Impress: make an image darker, save to {image_path_after_edit}", "impress_image_darker",
        compare="CRAB passes an unchanged copy, wants Impress in front; ours: darker, the same picture"),
    "cc1adae7-bef9-4c8a-865d-00d44486dd69": CrabSubTask(
        "GIMP: make an image brighter, save to {image_path_after_edit}", "gimp_brighten_image",
        {"image_path_before_edit": "source", "image_path_after_edit": "target"},
        compare="CRAB also wants a window titled 'GNU Image Manipulation Program' (GIMP's title with no "
        "image open); ours reads the two files: same brightness measure"),
    "4cf246ea-0a7f-43da-84b6-61d74a2699af": CrabSubTask(
        "GIMP: image 1 left of image 2, save to {output_path}", "gimp_combine_left_right",
        {"image_path_1": "left", "image_path_2": "right", "output_path": "path"},
        compare="stricter: ours finds each image whole (not covered) at its size, half size or scaled to "
        "the output's height or width, and image 1's centre left of image 2's; CRAB matches features (a "
        "partly covered image may pass) and compares centres. CRAB also wants GIMP's empty-window title"),
    "8491e674-596b-452b-9e0e-58a44d90f947": CrabSubTask(
        "VS Code: paste the clipboard, save as {file_path}", "text_editor_paste_clipboard",
        compare="VS Code is in no registry we reach: ours is Mousepad, and the instruction names it. Same "
        "check on the file (each clipboard line within its line); CRAB also wants a window titled 'Visual "
        "Studio Code', ours none; ours fails an empty clipboard, CRAB's passes it"),
    "a313ea4d-e501-4971-b4fe-db2aad19eac1": CrabSubTask(
        "download {url} to {file_path}", "web_download", {"file_path": "path"},
        compare="same check: the file holds the URL's bytes (CRAB hashes both), served by the offline web"),
    "a313ea4d-e501-4971-b4fe-db2aad19acsd": CrabSubTask(
        "download the URL on the clipboard to {file_path}", "web_download_clipboard", {"file_path": "path"},
        via_clipboard=("url", "https://files.example.org/crab/report.pdf"),
        compare="same check: the file holds what the clipboard's URL serves (CRAB hashes a fresh download)"),
    "017102b6-d2c3-466b-96f7-37c8bcddc41a": CrabSubTask(
        "Firefox: image search {keyword}, copy an image URL", "web_image_search",
        compare="stricter: ours wants the URL of an image result for {keyword}, CRAB any URL; CRAB also "
        "wants {keyword} typed"),
    "bcd03c9f-62c9-4001-8d86-78358c59ce22": CrabSubTask(
        "Firefox: find a GitHub repository about {keyword}, copy its URL", "web_find_repo",
        compare="CRAB wants the keyword in the URL and GitHub's search in front; ours a repo about it"),
    "2b189dc2-c77f-4fa3-8432-ba4355cc294c": CrabSubTask(
        "Firefox, Google Maps: a {place_type} near {place_name}, copy its share URL", "web_maps_share",
        compare="stricter: ours wants the link of such a place among the 5 nearest; CRAB any share URL"),
    "49b614c5-c4bb-4c20-aab8-ab9dcc7de1b5": CrabSubTask(
        "Firefox: copy the torch.matmul example of PyTorch 1.13's docs", "web_docs_example",
        fixed={"function": "torch.matmul"},
        compare="stricter: ours wants every code line of the example, CRAB three of them; both the page"),
    "1cd6519a-9ee0-442b-ba5a-9238aeb00ff6": CrabSubTask(
        "Firefox, Wikipedia, Calc: {country}'s capital and population into ODS {file_path}",
        "web_country_to_calc", {"file_path": "path"},
        compare="stricter: CRAB passes a sheet without the country's row; ours wants the row, exact capital"),
}
# fmt: on


CRAB_HOME = "/home/crab"  # the home of CRAB's VM user; ours is the session's HOME, "~"


OUTPUT = "output"  # CRAB's field a finding sub-task's value sits in; an attribute of ours while loaded


@dataclass(frozen=True)
class _CrabSubTask(SubTask):
    def to_json(self) -> dict[str, Any]:
        """CRAB's shape: the fact CRAB's output field gave goes back there, not among the attributes."""
        out = super().to_json()
        crab = CRAB_V0.get(self.template.id)
        drop = {OUTPUT, *(crab.via_clipboard[:1] if crab else ())}
        out["attribute"] = {k: v for k, v in out["attribute"].items() if k not in drop}
        return out


@dataclass(frozen=True)
class _CrabTemplate(SubTaskTemplate):
    """Our template under a CRAB UUID: CRAB's attribute names and values, paths in CRAB's home made ``~``."""

    def instantiate(self, **attrs: Any) -> SubTask:
        sub = super().instantiate(**{k: _home(v) for k, v in attrs.items()})
        return _CrabSubTask(sub.template, sub.attributes)


def _with_outputs(obj: Any) -> Any:
    """A CRAB task object whose finding sub-tasks carry their ``output`` among their attributes (our hidden
    attribute that the setup puts in place); the value given when CRAB's is null. Other shapes pass as they
    are, for the reader to name what is wrong."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("tasks"), list):
        return obj
    entries = []
    for e in obj["tasks"]:
        crab = CRAB_V0.get(str(e.get("task"))) if isinstance(e, Mapping) else None
        if crab is not None and crab.output_as and isinstance(e.get("attribute", {}), Mapping):
            value = e.get(OUTPUT)
            e = {
                **e,
                "attribute": {
                    **e.get("attribute", {}),
                    OUTPUT: crab.output_as[1] if value is None else value,
                },
            }
        entries.append(e)
    return {**obj, "tasks": entries}


def _our_output(entry: Any) -> Any:
    """What our template says a CRAB sub-task entry produces; None when it says nothing or does not load."""
    try:
        return crab_template(entry["task"]).instantiate(**entry.get("attribute", {})).output()
    except Exception:  # noqa: BLE001 - a malformed entry: the reader names what is wrong with it
        return None


def _edges(adjlist: Any) -> list[tuple[int, int]]:
    try:
        adj = parse_adjlist_text(adjlist) if isinstance(adjlist, str) else adjlist
        return sorted((int(u), int(v)) for u, vs in adj.items() for v in vs)
    except (ValueError, TypeError, AttributeError):
        return []


def _prepare(obj: Any) -> Any:
    """A CRAB task object as our reader takes it: outputs as setup data (:func:`_with_outputs`), then along
    each edge, a successor's attribute that holds CRAB's output of its predecessor holds ours where the two
    differ (predecessors in index order, as CRAB's files list them)."""
    obj = _with_outputs(obj)
    if not isinstance(obj, Mapping) or not isinstance(obj.get("tasks"), list):
        return obj
    entries = _via_clipboard(list(obj["tasks"]), _edges(obj.get("adjlist", {})))
    for u, v in _edges(obj.get("adjlist", {})):
        if not (0 <= u < len(entries) and 0 <= v < len(entries)):
            continue
        src, dst = entries[u], entries[v]
        if not (isinstance(src, Mapping) and isinstance(dst, Mapping) and src.get("task") in CRAB_V0):
            continue
        theirs, ours = src.get(OUTPUT), _our_output(src)
        attrs = dst.get("attribute")
        if theirs is None or ours is None or ours == theirs or not isinstance(attrs, Mapping):
            continue
        entries[v] = {**dst, "attribute": {k: ours if a == theirs else a for k, a in attrs.items()}}
    return {**obj, "tasks": entries}


def _via_clipboard(entries: list[Any], edges: list[tuple[int, int]]) -> list[Any]:
    """Entries whose sub-task reads a value off the clipboard (:attr:`CrabSubTask.via_clipboard`) hold it
    as our attribute: the output of a predecessor that gives one of its type, else the stand-in."""
    out = list(entries)
    for v, dst in enumerate(entries):
        crab = CRAB_V0.get(str(dst.get("task"))) if isinstance(dst, Mapping) else None
        if crab is None or not crab.via_clipboard or not isinstance(dst.get("attribute", {}), Mapping):
            continue
        name, value = crab.via_clipboard
        typ = get_template(crab.ours).attributes[name] if crab.ours else None
        for u, w in edges:
            if w != v or not 0 <= u < len(entries):
                continue
            fed = _our_output(entries[u])
            if fed is not None and crab_template(str(entries[u]["task"])).output_type == typ:
                value = fed
                break
        out[v] = {**dst, "attribute": {**dst.get("attribute", {}), name: value}}
    return out


def _home(value: Any) -> Any:
    if isinstance(value, str) and (value == CRAB_HOME or value.startswith(CRAB_HOME + "/")):
        return "~" + value.removeprefix(CRAB_HOME)
    return value


def _home_folders(template: SubTaskTemplate, envs: Mapping[str, Any], attrs: Mapping[str, Any]) -> None:
    """Make the folders CRAB's VM home has and a fresh session's HOME lacks (``~/assets``) where a path
    attribute's file goes: a hidden empty ``.crab-home`` file in each makes the folder."""
    for name, typ in template.attributes.items():
        value = attrs.get(name)
        if (
            typ.startswith("path")
            and isinstance(value, str)
            and value.startswith("~/")
            and value.count("/") > 1
        ):
            envs["ubuntu"].write_file(value.rsplit("/", 1)[0] + "/.crab-home", b"")


def _rewrite_description(template: SubTaskTemplate, crab: CrabSubTask) -> str:
    """Our instruction with CRAB's attribute names as fields and the fixed attributes filled in."""
    to_crab = {ours: theirs for theirs, ours in crab.renames.items()}
    out = []
    for literal, name, spec, conv in string.Formatter().parse(template.description):
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        if name in crab.fixed:
            value = format(crab.fixed[name], spec or "")
            out.append(value.replace("{", "{{").replace("}", "}}"))
            continue
        tail = (f"!{conv}" if conv else "") + (f":{spec}" if spec else "")
        out.append("{" + to_crab.get(name, name) + tail + "}")
    return "".join(out)


@cache
def crab_template(uuid: str) -> SubTaskTemplate:
    """Our template for a CRAB v0 UUID, under that UUID and CRAB's attribute names; KeyError says why not."""
    crab = CRAB_V0.get(uuid)
    if crab is None:
        raise KeyError(f"sub-task {uuid} is not one of CRAB v0's 35")
    ours = get_template(crab.ours)
    renames = {**crab.renames, **({OUTPUT: crab.output_as[0]} if crab.output_as else {})}
    to_crab = {o: c for c, o in renames.items()}

    def as_ours(attrs: Mapping[str, Any]) -> dict[str, Any]:
        return {renames.get(k, k): v for k, v in attrs.items()} | dict(crab.fixed)

    def names(ours_names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(to_crab.get(n, n) for n in ours_names if n not in crab.fixed)

    setup = ours.setup
    output = ours.output

    def crab_setup(envs: Mapping[str, Any], **attrs: Any) -> None:
        if "ubuntu" in ours.platforms:
            _home_folders(ours, envs, as_ours(attrs))
        if setup is not None:
            setup(envs, **as_ours(attrs))

    return _CrabTemplate(
        **{f.name: getattr(ours, f.name) for f in fields(ours)}
        | dict(
            id=uuid,
            description=_rewrite_description(ours, crab),
            attributes={to_crab.get(n, n): t for n, t in ours.attributes.items() if n not in crab.fixed},
            evaluator=lambda **a: ours.evaluator(**as_ours(a)),
            solution=lambda **a: ours.solution(**as_ours(a)),
            setup=crab_setup,
            output=None if output is None else (lambda **a: output(**as_ours(a))),
            inputs=names(ours.inputs),
            setup_inputs=names(ours.setup_inputs),
            hidden=names(ours.hidden),
        )
    )


def _lookup(template_id: str) -> SubTaskTemplate:
    if template_id in CRAB_V0:
        return crab_template(template_id)
    return get_template(template_id)


def is_crab_dataset(path: Path) -> bool:
    """A folder laid out like CRAB's ``crab-benchmark-v0/dataset`` (JSON files in its sub-folders)."""
    return path.is_dir() and any(path.glob("*/*.json"))


def _files(path: Path) -> list[Path]:
    return sorted(path.glob("*/*.json")) if path.is_dir() else [path]


def load_crab(path: str | Path) -> list[Task]:
    """The tasks of a CRAB task file or dataset folder (ours too: our template ids load as always).

    The first file that does not load raises TaskFileError naming the file, the field and the reason."""
    return [t for f in _files(Path(path)) for t in tasks_from_file(f, _lookup, _prepare)]


def import_report(path: str | Path) -> tuple[list[Task], list[str]]:
    """Every task file of a CRAB dataset folder (or one file) tried: the tasks that load, and a summary:
    how many files load and run, and a line per file that does not, with its one-line error."""
    root = Path(path)
    files = _files(root)
    tasks: list[Task] = []
    failed: list[tuple[str, str]] = []
    for f in files:
        try:
            tasks += tasks_from_file(f, _lookup, _prepare)
        except TaskFileError as e:
            failed.append((str(f.relative_to(root) if root.is_dir() else f), str(e)))
    kinds = Counter("cross-device" if len(t.platforms) > 1 else t.platforms[0] for t in tasks)
    lines = [
        f"{len(files) - len(failed)} of {len(files)} CRAB task files load and run today ("
        + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        + ")"
    ]
    if failed:
        lines += [f"{name}: {why}" for name, why in failed]
    return tasks, lines
