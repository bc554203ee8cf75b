"""The terminal game's save dialog (``elferraus.tui.save_dialog``), driven by keys through Textual's pilot.

Every test has a home and a data folder of its own (``HOME``, ``XDG_DATA_HOME``)
and runs in an empty current folder, which must stay empty.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from elferraus.i18n import Lang
from elferraus.table.saving import read_save_file
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.tui.app import ElferRausApp
from elferraus.tui.choices import SetupChoices
from elferraus.tui.dialogs import QuitScreen
from elferraus.tui.result_screen import ResultScreen
from elferraus.tui.save_dialog import SaveDialog
from elferraus.tui.table_screen import TableScreen

NEW_FILE = re.compile(r"elferraus-\d{8}-\d{6}\.jsonl")
WORDS = {
    "en": {"title": "Save the game to", "save": "Save", "replace": "Replace", "cancel": "Cancel"},
    "de": {"title": "Spiel speichern unter", "save": "Speichern", "replace": "Ersetzen", "cancel": "Abbrechen"},
}
SAVED = {"en": "Game saved to {path}", "de": "Spiel gespeichert in {path}"}
NOT_SAVED = {"en": "Not saved.", "de": "Nicht gespeichert."}


def games(home: Path) -> Path:
    return home / "data" / "elferraus" / "games"


def new_app(lang: Lang = "en", save_path: Path | None = None) -> ElferRausApp:
    choices = SetupChoices(players=2, pace=0.0, levels=["human", "greedy", "greedy", "greedy", "greedy", "greedy"])
    return ElferRausApp(choices, lang=lang, seed=5, start=True, save_path=str(save_path) if save_path else None)


def run(app: ElferRausApp, script: Callable[[Pilot[None]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await script(pilot)

    asyncio.run(main())


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.01)


async def open_dialog(pilot: Pilot[None], app: ElferRausApp) -> SaveDialog:
    """Wait for the person's turn and press ``s``."""
    await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.awaiting, "the person's turn")
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, SaveDialog), "the save dialog")
    dialog = app.screen
    assert isinstance(dialog, SaveDialog)
    return dialog


def field(dialog: SaveDialog) -> Input:
    return dialog.query_one("#path", Input)


async def type_path(pilot: Pilot[None], dialog: SaveDialog, text: str, *, by_keys: bool = False) -> None:
    """Replace what the field says with ``text`` (a long path at once: the pilot takes a while per key)."""
    field(dialog).focus()
    if by_keys:
        await pilot.press("ctrl+u", *text)  # ctrl+u clears to the start of the line; the cursor is at its end
    else:
        field(dialog).value = text
    await pilot.pause()
    assert field(dialog).value == text


def notes(app: ElferRausApp) -> list[str]:
    return [note.message for note in app._notifications]


async def last_note(pilot: Pilot[None], app: ElferRausApp) -> str:
    """The newest note, once there is one: it comes from the dialog's answer, a moment after the table is back."""
    await until(pilot, lambda: bool(notes(app)), "a note")
    return notes(app)[-1]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_s_asks_where_with_a_new_file_in_the_data_folder(home: Path, lang: Lang) -> None:
    app = new_app(lang)

    async def script(pilot: Pilot[None]) -> None:
        dialog = await open_dialog(pilot, app)
        assert str(dialog.query_one("#title", Static).content) == WORDS[lang]["title"]
        assert str(dialog.query_one("#save", Button).label) == WORDS[lang]["save"]
        assert str(dialog.query_one("#cancel", Button).label) == WORDS[lang]["cancel"]
        default = Path(field(dialog).value)
        assert default.parent == games(home)
        assert NEW_FILE.fullmatch(default.name)
        assert not games(home).exists()  # made only when saving
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert default.is_file()
        assert await last_note(pilot, app) == SAVED[lang].format(path=default)
        assert app.save_path == str(default)
        (record,) = read_save_file(default)
        assert record["moves"] == app.table.game.record_moves()

    run(app, script)
    assert not list((home / "work").iterdir()), "nothing is written into the current folder"


@pytest.mark.parametrize("how", ["escape", "button"])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_cancel_saves_nothing(home: Path, lang: Lang, how: str) -> None:
    app = new_app(lang)

    async def script(pilot: Pilot[None]) -> None:
        await open_dialog(pilot, app)
        if how == "escape":
            await pilot.press("escape")
        else:
            await pilot.click("#cancel")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert await last_note(pilot, app) == NOT_SAVED[lang]
        assert app.save_path is None

    run(app, script)
    assert not (home / "data").exists()
    assert not list((home / "work").iterdir())


# A place that cannot be written: the dialog says why and stays open, the file is not written.
REFUSED = {
    "a folder that is a file": (
        "{old}/game.jsonl",
        {
            "en": "Could not save to {old}/game.jsonl: {old} is a file, not a folder. Choose another place.",
            "de": "Speichern in {old}/game.jsonl ging nicht: {old} ist eine Datei, kein Ordner. Wähle einen "
            "anderen Ort.",
        },
    ),
    "a device": (
        "/dev/null",
        {
            "en": "Could not save to /dev/null: that is a folder or a device, not a file. Choose another name.",
            "de": "Speichern in /dev/null ging nicht: das ist ein Ordner oder ein Gerät, keine Datei. Wähle einen "
            "anderen Namen.",
        },
    ),
}


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("case", list(REFUSED))
def test_a_place_that_cannot_be_written_is_refused_in_words(home: Path, lang: Lang, case: str) -> None:
    old = home / "old.jsonl"
    old.write_text("keep me\n", encoding="utf-8")
    typed, said = REFUSED[case]
    typed = typed.format(old=old)
    app = new_app(lang)

    async def script(pilot: Pilot[None]) -> None:
        dialog = await open_dialog(pilot, app)
        await type_path(pilot, dialog, typed)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog, "the dialog stays open to choose another place"
        assert dialog.problem == said[lang].format(old=old)
        assert dialog.query_one("#problem", Static).has_class("error")
        # Another place, and it saves.
        await type_path(pilot, dialog, str(home / "elsewhere" / "game.jsonl"))
        assert dialog.problem == ""  # a changed name clears what was said
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")

    run(app, script)
    assert old.read_text(encoding="utf-8") == "keep me\n"
    assert read_save_file(home / "elsewhere" / "game.jsonl")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_file_that_exists_is_replaced_only_when_asked_twice(home: Path, lang: Lang) -> None:
    old = home / "old.jsonl"
    old.write_text("keep me\n", encoding="utf-8")
    app = new_app(lang)
    warned = {
        "en": f"{old} already exists: Replace overwrites it, or change the name.",
        "de": f"{old} gibt es schon: Ersetzen überschreibt die Datei, oder ändere den Namen.",
    }

    async def script(pilot: Pilot[None]) -> None:
        dialog = await open_dialog(pilot, app)
        await type_path(pilot, dialog, str(old))
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert dialog.problem == warned[lang]
        assert str(dialog.query_one("#save", Button).label) == WORDS[lang]["replace"]
        assert old.read_text(encoding="utf-8") == "keep me\n"
        # A change of name takes the question back; the same name asks again.
        await type_path(pilot, dialog, f"{old}x")
        assert dialog.problem == ""
        assert str(dialog.query_one("#save", Button).label) == WORDS[lang]["save"]
        await type_path(pilot, dialog, str(old))
        await pilot.press("enter")
        await pilot.pause()
        assert dialog.problem == warned[lang]
        await pilot.click("#save")  # "Replace"
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert await last_note(pilot, app) == SAVED[lang].format(path=old)

    run(app, script)
    (record,) = read_save_file(old)
    assert record["format"] == "elferraus/1"


def test_a_folder_gets_a_new_file_inside_and_tilde_is_home(home: Path) -> None:
    (home / "home" / "saves").mkdir(parents=True)
    app = new_app()

    async def script(pilot: Pilot[None]) -> None:
        dialog = await open_dialog(pilot, app)
        name = Path(field(dialog).value).name
        await type_path(pilot, dialog, "~/saves", by_keys=True)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert app.save_path == str(home / "home" / "saves" / name)

    run(app, script)
    assert [path.name for path in (home / "home" / "saves").iterdir()] == [Path(str(app.save_path)).name]


def test_the_games_own_file_is_offered_and_replaced_without_asking(home: Path) -> None:
    own = home / "mine.jsonl"
    own.write_text("", encoding="utf-8")
    app = new_app(save_path=own)

    async def script(pilot: Pilot[None]) -> None:
        dialog = await open_dialog(pilot, app)
        assert field(dialog).value == str(own)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert await last_note(pilot, app) == f"Game saved to {own}"

    run(app, script)
    assert read_save_file(own)


def test_save_and_quit_asks_where_then_quits(home: Path) -> None:
    app = new_app()

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.awaiting, "the person's turn")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, QuitScreen), "the quit dialog")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, SaveDialog), "the save dialog")
        await pilot.press("escape")  # not saved: the game goes on
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert app.is_running
        await pilot.press("q", "s")
        await until(pilot, lambda: isinstance(app.screen, SaveDialog), "the save dialog")
        await pilot.press("enter")

    run(app, script)
    assert not app.is_running
    (path,) = games(home).iterdir()
    assert app.return_code == 0
    assert read_save_file(path)[0]["moves"] == app.table.game.record_moves()


def test_the_result_screen_saves_through_the_dialog(home: Path) -> None:
    table = Table(TableSetup((Seat("You"), Seat("Computer 2", "greedy")), seed=5))
    game = table.game
    while not game.is_over():
        game.push(game.legal_moves()[0] if table.is_person(game.turn) else table.think())
    app = ElferRausApp(lang="de", table=table)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, SaveDialog), "the save dialog")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result again")

    run(app, script)
    (path,) = games(home).iterdir()
    (record,) = read_save_file(path)
    assert json.dumps(record["result"]) == json.dumps(table.finished[0]["result"])
