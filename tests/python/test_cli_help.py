"""Every command's --help shows its bracketed words: rich markup must not eat "[sweep]"."""

import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from exanet import bench, cli

BRACKETED = re.compile(r"\\?\[([^\[\]\n]+)\]")
BOX = re.compile(r"[│╭╮╰╯─]+")


def commands(app: typer.Typer) -> list[tuple[typer.Typer, list[str], Any]]:
    """(app, argument path, command) of every command and group below `app`, walked from the
    click tree Typer builds, so that a new command is covered without editing this test."""
    found = []

    def walk(command: Any, path: list[str]) -> None:
        found.append((app, path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def flat(text: str) -> str:
    return " ".join(BOX.sub(" ", text).split())


def source_brackets(command: Any) -> list[str]:
    texts = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
    return [f"[{m}]" for text in texts for m in BRACKETED.findall(flat(text))]


ALL = commands(cli.app) + commands(bench.app)


def test_the_walk_finds_the_nested_commands():
    paths = {" ".join(path) for _, path, _ in ALL}
    assert {"run", "sweep", "topo describe", "check routing"} <= paths


@pytest.mark.parametrize(
    ("app", "path", "command"), ALL, ids=[" ".join(p) or a.info.name or "bench" for a, p, _ in ALL]
)
def test_help_keeps_every_bracketed_word(app, path, command):
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    shown = flat(result.output)
    assert "[]" not in shown
    for word in source_brackets(command):
        assert word in shown, f"{word} missing from `{' '.join(path)} --help`"


def test_the_sweep_argument_help_names_the_section():
    shown = flat(CliRunner().invoke(cli.app, ["sweep", "--help"]).output)
    assert "TOML config file with a [sweep] section." in shown
