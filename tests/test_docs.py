"""The code blocks of README.md and docs/*.md run, so that they cannot rot.

Each page's Python blocks run in order in one namespace (later blocks use earlier ones' names), in a
temporary folder that holds a small generated ``games.csv`` (columns white, black, result as "1-0" /
"1/2-1/2" / "0-1", date, home) and ``pairs.csv`` (a, b). A block whose first line is
"# needs ../shared/data" reads the data folder (tests/_data.py: that path is replaced by it) and is
skipped when a file it names there is absent, so no later block of its page may use its names. The ``discrank``
lines of each page's bash blocks run in order in such a folder, and every file a line names after
``--out``, ``--save`` or ``--plot`` exists after it (``discrank arena``'s ``--out`` PREFIX: PREFIX.csv).
"""

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _data import DATA, missing

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
TOPICS = ["data", "models", "dynamic", "evaluation", "scale", "cli"]  # the pages the README links to
NEEDS_DATA = "# needs ../shared/data"


def blocks(page: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (ROOT / page).read_text(), re.S)


def write_games(folder: Path) -> None:
    """games.csv: 6 players, every pair 20 times in random order (a tenth drawn), one game a day from 2024-01-01,
    the first player at home in about half, each game on a surface (clay or hard, at random); pairs.csv: two fixtures; fixtures.csv: Carlsen against Ding on each surface;
    battles.csv: arena votes (write_battles)."""
    rng = np.random.default_rng(0)
    names = np.array(["Carlsen", "Nakamura", "Caruana", "Ding", "Firouzja", "Gukesh"])
    skill = np.array([1.0, 0.6, 0.5, 0.3, 0.2, 0.0])
    a, b = np.triu_indices(names.size, 1)
    order = rng.permutation(a.size * 20)
    a, b = np.repeat(a, 20)[order], np.repeat(b, 20)[order]
    home = rng.integers(0, 2, a.size)
    win = rng.random(a.size) < 1 / (1 + np.exp(-(skill[a] - skill[b] + 0.3 * home)))
    result = np.where(rng.random(a.size) < 0.1, "1/2-1/2", np.where(win, "1-0", "0-1"))
    clay = np.random.default_rng(1).random(a.size) < 0.5  # (a stream of its own: the games above unchanged)
    pd.DataFrame({"white": names[a], "black": names[b], "result": result,
                  "date": pd.date_range("2024-01-01", periods=a.size, freq="D"), "home": home,
                  "surface": np.where(clay, "clay", "hard")}).to_csv(folder / "games.csv", index=False)
    pd.DataFrame({"a": ["Carlsen", "Ding"], "b": ["Ding", "Carlsen"]}).to_csv(folder / "pairs.csv", index=False)
    pd.DataFrame({"a": ["Carlsen", "Carlsen"], "b": ["Ding", "Ding"], "surface": ["clay", "hard"]}).to_csv(
        folder / "fixtures.csv", index=False)
    write_battles(folder)


def write_battles(folder: Path) -> None:
    """battles.csv: 600 arena votes among 5 models (model_a, model_b, winner with ties and both-bad ties),
    the answers' lengths len_a and len_b (the longer answer favoured), a category lang, one vote an hour."""
    rng = np.random.default_rng(1)
    names = np.array(["gpt-4o", "claude-3.5", "gemini-1.5", "llama-3-70b", "mistral-large"])
    skill = np.array([0.6, 0.5, 0.2, 0.0, -0.3])
    a = rng.integers(0, names.size, 600)
    b = (a + rng.integers(1, names.size, a.size)) % names.size
    la, lb = rng.integers(100, 900, a.size), rng.integers(100, 900, a.size)
    p = 1 / (1 + np.exp(-(skill[a] - skill[b] + 0.5 * (la - lb) / (la + lb))))
    u = rng.random(a.size)
    winner = np.where(u < 0.1, "tie", np.where(u < 0.13, "tie (bothbad)",
                                               np.where(rng.random(a.size) < p, "model_a", "model_b")))
    pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, "len_a": la, "len_b": lb,
                  "lang": rng.choice(["en", "zh", "de"], a.size),
                  "time": pd.date_range("2024-05-01", periods=a.size, freq="h")}).to_csv(folder / "battles.csv",
                                                                                          index=False)


def test_readme_starts_with_the_two_commands_and_stays_short():
    text = (ROOT / "README.md").read_text()
    assert blocks("README.md", "bash")[0].split("\n")[:2] == ["pip install . && discrank demo",
                                                             "pip install '.[test]' && pytest"]
    assert len(text.splitlines()) <= 150
    for topic in TOPICS:
        assert f"(docs/{topic}.md)" in text, f"README.md does not link to docs/{topic}.md"


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_point_to_files(page):
    text = (ROOT / page).read_text()
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]
    missing = [t for t in targets if t and not (ROOT / page).parent.joinpath(t).exists()]
    assert not missing, f"{page} links to {missing}"


def test_every_topic_page_has_code_blocks():
    for topic in TOPICS:
        assert blocks(f"docs/{topic}.md", "python") or blocks(f"docs/{topic}.md", "bash"), f"docs/{topic}.md"


@pytest.mark.data()  # the blocks marked NEEDS_DATA run only with the data folder
@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "python")])
def test_python_blocks_run(page, monkeypatch, tmp_path, capsys):
    import matplotlib

    matplotlib.use("Agg")
    write_games(tmp_path)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    ran = skipped = 0
    for k, block in enumerate(blocks(page, "python")):
        if block.startswith(NEEDS_DATA):
            files = re.findall(r"\.\./shared/data/([^\"'\s]+)", block)
            if not DATA.is_dir() or missing(*files) is not None:
                skipped += 1
                continue
            block = block.replace("../shared/data", DATA.as_posix())
        try:
            exec(compile(block, f"{page} python block {k}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message says which block
            pytest.fail(f"{page} python block {k} failed: {type(exc).__name__}: {exc}\n{block}")
        ran += 1
    assert ran + skipped == len(blocks(page, "python"))
    out = capsys.readouterr().out
    for expected in EXPECTED[page]:  # every page with Python blocks says what they print
        assert expected in out, f"{page}: {expected!r} not printed"
    if not skipped:
        for expected in EXPECTED_WITH_DATA.get(page, []):
            assert expected in out, f"{page}: {expected!r} not printed"


# what each page's blocks print (exact substrings of their output)
EXPECTED = {
    "README.md": ["(3, 1) True"],  # the quick start's disc.u_.shape and converged_
    "docs/arena.md": ["rank_change", "['de', 'en']", "[1000.0, 1000.0, 1000.0]"],
    "docs/data.md": ["{'missing player name': 1, 'player against themself': 1}", "3 2 [0.7 0.2]",
                     "['Clay' 'Hard' 'Clay'] {'missing context': 1}",
                     "[[12.0, 13.0], [13.0, 4.0], [12.0, 6.0]] {'missing margin': 1}",
                     "margin looks swapped: in 2 of the 2 decided games with a margin (100%)",
                     "PairwiseData(n_players=6, n_pairs=15, n_games=300, weights='games') True"],
    "docs/models.md": ["log loss per future game: Elo", "first disc component: transitive", "('home',)"],
    "docs/dynamic.md": ["home advantage", "known"],
    "docs/evaluation.md": ["60 test games scored", "online protocol", "rank_lo"],
    "docs/scale.md": ["50 1132 3000.0", "['claude' 'gpt' 'llama'] [2. 2. 4.]", "PeriodGames(300 games"],
}
EXPECTED_WITH_DATA = {
    "docs/models.md": ["football log loss per future game: Elo"],
    "docs/dynamic.md": ["football home advantage"],
    "docs/evaluation.md": ["7236 test games scored"],
}


def discrank_lines(page: str) -> list[str]:
    lines = [line.split(" #")[0].strip() for block in blocks(page, "bash") for line in block.splitlines()]
    return [line for line in lines if line.startswith("discrank ")]


def test_shell_lines_are_there():
    assert len(discrank_lines("docs/cli.md")) >= 8
    commands = {shlex.split(line)[1] for line in discrank_lines("docs/cli.md")}
    assert commands == {"demo", "fit", "predict", "info", "plot", "evaluate", "arena"}


@pytest.mark.parametrize("page", [p for p in PAGES if discrank_lines(p)])
def test_shell_blocks_discrank_lines_run(page, tmp_path):
    exe = shutil.which("discrank", path=str(Path(sys.executable).parent)) or shutil.which("discrank")
    assert exe is not None
    write_games(tmp_path)
    for line in discrank_lines(page):
        args = shlex.split(line)[1:]
        proc = subprocess.run([exe, *args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{line}: {proc.stderr}"
        for flag, name in zip(args, args[1:]):
            if flag in ("--out", "--save", "--plot"):
                name += ".csv" if args[0] == "arena" else ""  # arena's --out is the prefix of its files
                assert (tmp_path / name).exists(), f"{line} wrote no {name}"
    if (tmp_path / "predictions.csv").exists():
        preds = pd.read_csv(tmp_path / "predictions.csv")
        assert abs(preds["p"].sum() - 1.0) < 1e-12  # the pairs (Carlsen, Ding) and (Ding, Carlsen)
