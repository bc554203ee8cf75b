"""Where save files go (``elferraus.table.saving``): the data folder, the answer to "save where?", what is refused."""

from __future__ import annotations

import errno
import sys
import time
from pathlib import Path

import pytest

from elferraus.i18n import tr
from elferraus.table.saving import (
    default_save_folder,
    default_save_path,
    read_save_file,
    save_destination,
    save_game_file,
    save_problem,
    write_save_file,
)
from elferraus.table.session import Seat, Table, TableSetup

RECORDS = Table(TableSetup((Seat("You"), Seat("Computer 2", "greedy")), seed=1)).records()


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG rule is Linux's; platformdirs has macOS and Windows")
@pytest.mark.parametrize(
    ("xdg", "expected"),
    [
        ("{tmp}/data", "{tmp}/data/elferraus/games"),
        (None, "{tmp}/home/.local/share/elferraus/games"),
        ("", "{tmp}/home/.local/share/elferraus/games"),  # empty is unset, as the XDG rule says
    ],
    ids=["XDG_DATA_HOME", "unset", "empty"],
)
def test_the_default_folder_follows_the_xdg_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, xdg: str | None, expected: str
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg.format(tmp=tmp_path))
    assert default_save_folder() == Path(expected.format(tmp=tmp_path))
    path = default_save_path(0.0)
    assert path.parent == default_save_folder()
    assert path.name == time.strftime("elferraus-%Y%m%d-%H%M%S.jsonl", time.localtime(0))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("", "{default}"),
        ("   ", "{default}"),
        ("{tmp}/a.jsonl", "{tmp}/a.jsonl"),
        ("  {tmp}/a.jsonl  ", "{tmp}/a.jsonl"),
        ("{tmp}", "{tmp}/game-1.jsonl"),  # a folder that exists
        ("{tmp}/new/", "{tmp}/new/game-1.jsonl"),  # a folder to be made
        ("~/b.jsonl", "{tmp}/home/b.jsonl"),
        ("~", "{tmp}/home/game-1.jsonl"),
        ("c.jsonl", "{tmp}/work/c.jsonl"),  # from the current folder
    ],
)
def test_the_answer_names_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str, expected: str) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "work")
    default = tmp_path / "games" / "game-1.jsonl"
    names = {"tmp": tmp_path, "default": default}
    assert save_destination(answer.format(**names), default) == Path(expected.format(**names))


def test_a_new_file_and_its_folders_are_made(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "game.jsonl"
    save_game_file(path, RECORDS)
    assert read_save_file(path) == RECORDS


def test_a_file_is_replaced_only_when_allowed(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text("keep\n", encoding="utf-8")
    with pytest.raises(FileExistsError):
        save_game_file(path, RECORDS)
    assert path.read_text(encoding="utf-8") == "keep\n"
    save_game_file(path, RECORDS, replace=True)
    assert read_save_file(path) == RECORDS


@pytest.mark.parametrize(
    ("target", "error", "key", "words"),
    [
        ("{file}/game.jsonl", NotADirectoryError, "save_not_a_folder", "{file} is a file, not a folder"),
        ("{file}/deeper/game.jsonl", NotADirectoryError, "save_not_a_folder", "{file} is a file, not a folder"),
        ("{folder}", IsADirectoryError, "save_not_a_file", "that is a folder or a device, not a file"),
        ("/dev/null", IsADirectoryError, "save_not_a_file", "that is a folder or a device, not a file"),
    ],
    ids=["file-as-folder", "file-as-folder-deeper", "a-folder", "a-device"],
)
def test_what_is_refused_even_when_replacing(
    tmp_path: Path, target: str, error: type[OSError], key: str, words: str
) -> None:
    file, folder = tmp_path / "file", tmp_path / "folder"
    file.write_text("keep\n", encoding="utf-8")
    folder.mkdir()
    path = Path(target.format(file=file, folder=folder))
    with pytest.raises(error) as caught:
        save_game_file(path, RECORDS, replace=True)
    problem = save_problem(path, caught.value)
    assert problem[0] == key
    assert words.format(file=file) in tr(problem[0], "en", **problem[1])
    assert file.read_text(encoding="utf-8") == "keep\n"
    assert list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "folder"]


@pytest.mark.parametrize(
    ("error", "key"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), "save_not_allowed"),
        (OSError(errno.EROFS, "Read-only file system"), "save_read_only"),
        (OSError(errno.ENOSPC, "No space left on device"), "save_disk_full"),
        (OSError(errno.EIO, "Input/output error"), "save_failed"),
    ],
)
def test_every_problem_is_worded_in_both_languages(error: OSError, key: str) -> None:
    problem, params = save_problem(Path("/x/game.jsonl"), error)
    assert problem == key
    for lang in ("en", "de"):
        text = tr(problem, lang, **params)
        assert "/x/game.jsonl" in text
        assert "{" not in text


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "game.jsonl").mkdir()  # os.replace cannot put a file where a folder is
    with pytest.raises(IsADirectoryError):
        write_save_file(tmp_path / "game.jsonl", RECORDS)
    assert [p.name for p in tmp_path.iterdir()] == ["game.jsonl"]
