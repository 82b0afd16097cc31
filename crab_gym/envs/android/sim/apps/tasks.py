"""Tasks (com.google.android.apps.tasks): a to-do list with checkboxes, in tasks.db."""

from __future__ import annotations

from ..storage import db
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import execute, fields, rows

APP = AppSpec("com.google.android.apps.tasks", "Tasks", (26, 115, 232))


@APP.screen("main", ".ui.TaskListsActivity")
def task_list(s: Screen) -> None:
    s.app_bar("My Tasks", back=False)
    items = []
    for tid, title, done in rows(
        s.phone, db.TASKS_DB, "SELECT _id, title, completed FROM tasks ORDER BY completed, _id"
    ):
        items.append(
            Item(
                title,
                "Completed" if done else "",
                checked=bool(done),
                rid="task_name",
                on_click=lambda tid=tid, done=done: execute(
                    s.phone,
                    db.TASKS_DB,
                    "UPDATE tasks SET completed = ? WHERE _id = ?",
                    (0 if done else 1, tid),
                ),
                on_long_click=lambda tid=tid: execute(
                    s.phone, db.TASKS_DB, "DELETE FROM tasks WHERE _id = ?", (tid,)
                ),
            )
        )
    s.list("tasks", items, rid="tasks_list", empty="No tasks yet")
    s.fab("Create new task", lambda: s.phone.push("new", focus="title"), rid="tasks_fab")


@APP.screen("new", ".ui.AddTaskActivity")
def new_task(s: Screen) -> None:
    def save() -> None:
        title, notes = fields(s, "title", "notes")
        if title:
            execute(s.phone, db.TASKS_DB, "INSERT INTO tasks (title, notes) VALUES (?, ?)", (title, notes))
            s.phone.back()

    s.app_bar("New task", actions=[("Save", save)])
    s.field("title", "New task", rid="add_task_title", on_enter=save)
    s.field("notes", "Add details", rid="add_task_details")
