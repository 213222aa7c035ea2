"""Every command in README.md and docs/*.md, as written (issue 27).

Convention (the README says it): commands are in ```sh blocks, run from the checkout's top
directory; a placeholder is written `<NAME>` (`<REPO_URL>`, `<a.hip>`), and nothing else in a
command is one. For each command line of each ```sh block:
- every `shflx` command parses (compile: driver.flags; the others: shflx's argparse parser);
- every path it names that belongs to the repository exists, or an earlier command of the block
  wrote it (-o, --report-file, --out, a redirection);
- `pip install` names the checkout and extras that pyproject.toml defines;
- the cheap ones run, in a scratch directory that mirrors the checkout: lower, verify, targets,
  doctor, ptx without -o, and the compiles of single files for one AMD target with -o (few), as a
  user would, with the exit code the docs give."""
from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shflx import cli  # noqa: E402
from shflx.driver.flags import parse_compile_args  # noqa: E402
from shflx.errors import ShflxError  # noqa: E402

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "shell", "console"}
PLACEHOLDER = re.compile(r"<[A-Za-z][\w.+-]*>")
SEPARATORS = {"&&", "||", ";", "|"}
REDIRECTS = {">", ">>"}
OUTPUT_FLAGS = {"-o", "--report-file", "--out", "-MF"}
PATH_SUFFIXES = (".cu", ".hip", ".ptx", ".json", ".ll", ".bc", ".toml", ".py", ".md", ".h", ".s", ".cubin",
                 ".hsaco", ".txt", ".o", ".cpp")
TOP = {p.name for p in ROOT.iterdir() if not p.name.startswith(".")}
# what actually runs (the rest only parses): cheap subcommands, and a few single-file compiles
RUN = {"lower", "verify", "targets", "doctor"}
MAX_COMPILES = 4


@dataclass
class Block:
    doc: Path
    line: int
    lang: str
    text: str
    commands: list[list[str]] = field(default_factory=list)   # simple commands, in order

    def __str__(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def fenced_blocks(doc: Path) -> list[Block]:
    text = doc.read_text()
    out = []
    for m in re.finditer(r"^```([\w-]*)\n(.*?)^```", text, re.M | re.S):
        out.append(Block(doc, text[:m.start()].count("\n") + 1, m.group(1), m.group(2)))
    return out


def split_commands(text: str) -> list[list[str]]:
    """Shell words of each simple command (`a && b; c | d` is four), placeholders kept whole."""
    out: list[list[str]] = []
    for line in text.replace("\\\n", " ").splitlines():
        keep: dict[str, str] = {}

        def hide(m: re.Match) -> str:
            key = f"PLACEHOLDER{len(keep)}X"
            keep[key] = m.group(0)
            return key
        lexer = shlex.shlex(PLACEHOLDER.sub(hide, line), posix=True, punctuation_chars=";&|<>")
        lexer.commenters = "#"
        lexer.whitespace_split = True
        words, current = list(lexer), []
        for w in words:
            for key, value in keep.items():
                w = w.replace(key, value)
            if w in SEPARATORS:
                if current:
                    out.append(current)
                current = []
            else:
                current.append(w)
        if current:
            out.append(current)
    return out


def command_blocks() -> list[Block]:
    blocks = [b for doc in DOCS for b in fenced_blocks(doc) if b.lang in SHELL]
    for b in blocks:
        b.commands = split_commands(b.text)
    return blocks


BLOCKS = command_blocks()


def program(words: list[str]) -> tuple[str, list[str]]:
    """The program (`.venv/bin/shflx` -> shflx) and its arguments, VAR=value words before it dropped."""
    k = 0
    while k < len(words) and re.fullmatch(r"[A-Za-z_]\w*=.*", words[k]):
        k += 1
    if k == len(words):
        return "", []
    return Path(words[k]).name, words[k + 1:]


def repo_paths(words: list[str]) -> list[str]:
    """The words (and --flag=value values) that name a file or directory of the repository."""
    out = []
    for w in words:
        value = w.split("=", 1)[1] if w.startswith("-") and "=" in w else w
        if PLACEHOLDER.search(value) or value.startswith(("/", "$", "-")) or "{" in value:
            continue
        if value.split("/", 1)[0] in TOP or value.endswith(PATH_SUFFIXES):
            out.append(value.rstrip("/"))
    return out


def outputs(words: list[str]) -> set[str]:
    out = set()
    for k, w in enumerate(words[:-1]):
        if w in OUTPUT_FLAGS or w in REDIRECTS:
            out.add(words[k + 1].rstrip("/"))
    for w in words:
        for flag in OUTPUT_FLAGS:
            if w.startswith(flag + "=") or (flag == "-o" and w.startswith("-o") and len(w) > 2 and "=" not in w):
                out.add(w.split("=", 1)[1] if "=" in w else w[2:])
    return out


def concrete(words: list[str]) -> list[str]:
    """Placeholders replaced by harmless values of their kind (`<a.hip>` -> a.hip), for parsing."""
    return [PLACEHOLDER.sub(lambda m: m.group(0)[1:-1] if "." in m.group(0) else "PLACEHOLDER", w) for w in words]


def parse_shflx(args: list[str]) -> None:
    """Raises (UsageError, SystemExit) where shflx would reject the words as usage."""
    args = concrete(args)
    if args[:1] == ["compile"]:
        if {"-h", "--help", "--version"} & set(args):
            return
        parse_compile_args(args[1:])
    elif args[:1] == ["launch"]:
        own = args[1:args.index("--")] if "--" in args else args[1:]
        cli._build_parser().parse_args(["launch", *own])
    elif args[:1] == ["ptxas"]:
        pass                                    # every word is ptxas's own
    else:
        cli._build_parser().parse_args(args)


def test_there_are_command_blocks_and_they_use_sh():
    assert len(BLOCKS) >= 10 and sum(len(b.commands) for b in BLOCKS) >= 25
    for doc in DOCS:
        for b in fenced_blocks(doc):
            if b.lang in SHELL:
                continue
            first = b.text.lstrip().split("\n", 1)[0]
            assert not re.match(r"(\$ )?(shflx |python3? |pip |\.venv/)", first), \
                f"{b}: a command outside a ```sh block (tag it sh, or text for a synopsis): {first}"


def test_placeholders_are_marked_and_nothing_else_is_one():
    for b in BLOCKS:
        for words in b.commands:
            for w in words:
                assert "..." not in w, f"{b}: '{w}' is an unmarked placeholder; write <NAME>"
                assert not re.search(r"\b(FILE|PLAN|ARGS)\b", PLACEHOLDER.sub("", w)), f"{b}: '{w}': mark it <{w}>"


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_commands_parse_and_name_files_that_exist(block):
    written: set[str] = set()
    for words in block.commands:
        name, args = program(words)
        if name == "shflx":
            try:
                parse_shflx(args)
            except (ShflxError, SystemExit) as e:
                pytest.fail(f"{block}: `{shlex.join(words)}` does not parse: {e}")
        elif name == "pip" or (name.startswith("python") and args[:2] == ["-m", "pip"]):
            spec = next((a for a in args if a.startswith(".")), None)
            if spec is not None:
                extras = re.fullmatch(r"\.(?:\[([\w,]+)\])?", spec)
                assert extras, f"{block}: pip installs '{spec}': expected . or .[extras]"
                pyproject = (ROOT / "pyproject.toml").read_text()
                for extra in filter(None, (extras.group(1) or "").split(",")):
                    assert re.search(rf"^{extra} = \[", pyproject, re.M), f"{block}: no extra [{extra}]"
        written |= outputs(words)
        for path in repo_paths(words[1:]):
            if path in written or Path(path).name in written:
                continue
            assert (ROOT / path).exists(), f"{block}: `{shlex.join(words)}` names {path}, which is not in the repository"


def _mirror(tmp: Path) -> Path:
    """A scratch directory whose top-level entries link to the checkout's: commands read the
    repository's files by their documented paths and write their outputs here."""
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (tmp / entry.name).symlink_to(entry)
    return tmp


def _runnable(args: list[str]) -> bool:
    if any(PLACEHOLDER.search(a) for a in args) or not args:
        return False
    if args[0] in RUN:
        return True
    if args[0] == "ptx":
        return "-o" not in args
    if args[0] == "compile":
        f = parse_compile_args(args[1:])
        return (len(f.sources) == 1 and len(f.archs) == 1 and not f.archs[0].startswith("sm_")
                and f.output is not None and f.action == "device")
    return False


def test_the_cheap_commands_run_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(_mirror(tmp_path))
    ran, compiles = [], 0
    for block in BLOCKS:
        for words in block.commands:
            name, args = program(words)
            if name != "shflx" or not _runnable(args):
                continue
            if args[0] == "compile":
                if compiles == MAX_COMPILES:
                    continue
                compiles += 1
            try:
                code = cli.main(list(args))
            except SystemExit as e:
                code = e.code or 0
            out = capsys.readouterr()
            # the Quick start's second verify ends in `exit 2` (its text says why); doctor exits 2
            # where a required tool is missing, which says nothing about the docs
            want = {2} if args[0] == "verify" and "patterns/plans/wrong" in args else \
                {0, 2} if args[0] == "doctor" else {0}
            assert code in want, f"{block}: `{shlex.join(words)}` exited {code}: {out.err[-2000:]}"
            ran.append(shlex.join(args))
    assert len(ran) >= 12 and compiles >= 2, ran
    assert Path("butterfly.hsaco").stat().st_size > 0 and "ds_bpermute" in Path("base.s").read_text()
    shflx_asm, base_asm = Path("kernel.s").read_text(), Path("base.s").read_text()
    assert shflx_asm.count("ds_bpermute") < base_asm.count("ds_bpermute")    # porting.md, step 3's grep


def test_install_instructions_name_the_repository_not_an_index():
    """shflx is not on a package index: docs and messages install it from a checkout or git URL."""
    index = re.compile(r"pip install (?:-\S+ )*['\"]?shflx\b[^@\n`]*?(?=['\"`\n]|$)")
    texts = {p: p.read_text() for p in DOCS}
    texts.update({p: p.read_text() for p in (ROOT / "shflx").rglob("*") if p.suffix in (".py", ".h")})
    for path, text in texts.items():
        for m in index.finditer(text):
            rest = text[m.end():m.end() + 20]
            assert "@ git+" in m.group(0) + rest, \
                f"{path.relative_to(ROOT)}: '{m.group(0)}' installs from an index that has no shflx"
