"""Man pages and shell completions generated from the argument parsers.

The four commands' parsers are the one description of their options: the
SYNOPSIS, OPTIONS and EXIT STATUS of docs/man/*.1 and the bash and zsh
completions in contrib/ are written from them, so they cannot drift; the prose
of a page (DESCRIPTION, EXAMPLES, ...) is docs/man/src/PAGE.1.in, where the
markers `.\\" @SYNOPSIS@`, `.\\" @OPTIONS@` and `.\\" @EXIT STATUS@` stand for
the generated parts.

    python -m vppcfg.docgen            # write them
    python -m vppcfg.docgen --check    # exit 1 naming what is stale (tests run this)
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path

from vppcfg import __version__, exits

ROOT = Path(__file__).resolve().parents[1]
MAN_DATE = "November 2026"  # of the pages' prose; changing it is a prose change


@dataclass(frozen=True)
class Command:
    name: str  # the installed command
    factory: str  # "module:function" returning its ArgumentParser
    summary: str  # the man page's NAME line


COMMANDS = (
    Command("vppcfg", "vppcfg.cli:build_parser",
            "declarative configurator for the FD.io VPP dataplane"),
    Command("vppcfg-sim", "vppcfg.sim.__main__:build_parser",
            "a VPP simulator serving the VPP binary API on a unix socket"),
    Command("trex-loadtest", "loadtest.cli:build_parser",
            "drive a T-Rex traffic generator through a device under test"),
    Command("trex-emu", "loadtest.emu.__main__:build_parser",
            "an emulated T-Rex stateless server with a modelled device under test"),
)

# (code, meaning) for EXIT STATUS: the table of docs/user-guide.md, shorter.
EXIT_STATUS = (
    (exits.OK, "Success; a server stopped by SIGTERM."),
    (exits.FAILED, "The input is wrong or the operation failed (an invalid config or "
     "inventory, an apply refused or rolled back, a busy lock, a failed run)."),
    (exits.USAGE, "Usage or I/O error: a bad option, a file that is missing, unreadable, "
     "binary or a directory, a path that cannot be written, a socket that cannot be reached."),
    (exits.NEEDS_ATTENTION, "vppcfg plan or apply --dry-run: planned, but the running VPP "
     "lacks what the plan needs (apply would refuse)."),
    (exits.INTERNAL, "A bug: one line; VPPCFG_DEBUG=1 shows the traceback."),
    (exits.INTERRUPTED, "Interrupted with Ctrl-C (SIGINT)."),
)

# What completes a value, by the option's metavar.
DIR_METAVARS = {"DIR"}
FILE_METAVARS = {"FILE", "PATH", "SOCKET", "RUN.json"}


def parser_of(command: Command) -> argparse.ArgumentParser:
    module, _, function = command.factory.partition(":")
    return getattr(importlib.import_module(module), function)()


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The documented actions: neither --help nor hidden ones nor sub-commands."""
    return [a for a in parser._actions
            if a.help is not argparse.SUPPRESS and not isinstance(
                a, argparse._HelpAction | argparse._SubParsersAction)]


def metavar(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The value an option takes as --help shows it ("" for a flag)."""
    if action.nargs == 0:
        return ""
    formatter = parser._get_formatter()
    default = (formatter._get_default_metavar_for_positional(action) if not action.option_strings
               else formatter._get_default_metavar_for_optional(action))
    return formatter._format_args(action, default)


def help_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    return " ".join(parser._get_formatter()._expand_help(action).split()) if action.help else ""


# --- roff ---


def roff(text: str) -> str:
    """Text safe in a roff line: backslashes and dashes escaped, and what is not
    ASCII (µ, →, ×) as a Unicode escape (groff and mandoc read both)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)


def roff_line(text: str) -> str:
    """A whole line of text: a leading dot or quote would be a request."""
    line = roff(text)
    return "\\&" + line if line[:1] in (".", "'") else line


def _synopsis_item(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    value = metavar(parser, action)
    if not action.option_strings:
        return f"\\fI{roff(value)}\\fR"
    flag = f"\\fB{roff(action.option_strings[0])}\\fR"
    item = f"{flag} \\fI{roff(value)}\\fR" if value else flag
    return item if action.required else f"[{item}]"


def _synopsis(name: str, parser: argparse.ArgumentParser) -> list[str]:
    subs = subcommands(parser)
    lines = [".SH SYNOPSIS"]
    for words, sub in ([(f"{name} {n}", p) for n, p in subs] or [(name, parser)]):
        items = " ".join(_synopsis_item(sub, a) for a in options(sub))
        lines += [f"\\fB{roff(words)}\\fR {items}".rstrip(), ".br"]
    if subs:
        lines += [f"\\fB{roff(name)}\\fR [\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR]", ".br"]
    return lines[:-1]


def _option_entries(parser: argparse.ArgumentParser) -> list[str]:
    lines: list[str] = []
    for group in parser._action_groups:
        shown = [a for a in group._group_actions if a in options(parser)]
        if not shown:
            continue
        if group.title not in ("positional arguments", "options", "optional arguments"):
            lines += [".PP", f"\\fI{roff(group.title or '')}\\fR"]
        for action in shown:
            value = metavar(parser, action)
            names = ", ".join(f"\\fB{roff(s)}\\fR" for s in action.option_strings) or \
                f"\\fI{roff(value)}\\fR"
            if action.option_strings and value:
                names += f" \\fI{roff(value)}\\fR"
            lines += [".TP", names, roff_line(help_text(parser, action) or "(no description)")]
    return lines


def _options(name: str, parser: argparse.ArgumentParser) -> list[str]:
    lines = [".SH OPTIONS"]
    subs = subcommands(parser)
    if subs:
        lines += _option_entries(parser)
        for sub_name, sub in subs:
            lines += [f'.SS "{roff(name)} {roff(sub_name)}"']
            if sub.description:
                lines += [roff_line(" ".join(sub.description.split()))]
            lines += _option_entries(sub)
        return lines
    return lines + _option_entries(parser)


def _exit_status() -> list[str]:
    lines = [".SH EXIT STATUS",
             "The same codes for all four commands (the user guide's table has every case):"]
    for code, meaning in EXIT_STATUS:
        lines += [".TP", f".B {code}", roff_line(meaning)]
    return lines


def man_page(command: Command, root: Path = ROOT) -> str:
    parser = parser_of(command)
    template = (root / "docs" / "man" / "src" / f"{command.name}.1.in").read_text(
        encoding="utf-8")
    parts = {
        '.\\" @SYNOPSIS@': _synopsis(command.name, parser),
        '.\\" @OPTIONS@': _options(command.name, parser),
        '.\\" @EXIT STATUS@': _exit_status(),
    }
    head = [f'.TH {command.name.upper()} 1 "{MAN_DATE}" "vppcfg {__version__}" "User Commands"',
            '.\\" Generated by `python -m vppcfg.docgen` from the argument parsers and',
            f'.\\" docs/man/src/{command.name}.1.in: edit those, not this file.',
            ".SH NAME", f"{roff(command.name)} \\- {roff(command.summary)}"]
    body = []
    for line in template.splitlines():
        body += parts.get(line.strip(), [line])
    return "\n".join(head + body) + "\n"


# --- completions ---


def _words(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({s for a in options(parser) for s in a.option_strings} | {"--help"})


def _bash_values(parser: argparse.ArgumentParser) -> list[str]:
    """`case "$prev"` arms: what each option's value completes to."""
    arms = []
    for action in options(parser):
        if not action.option_strings or action.nargs == 0:
            continue
        flags = "|".join(action.option_strings)
        value = metavar(parser, action)
        if action.choices:
            reply = f'COMPREPLY=($(compgen -W "{" ".join(map(str, action.choices))}" -- "$cur"))'
        elif value in DIR_METAVARS:
            reply = "_filedir -d"
        elif value in FILE_METAVARS or action.type is Path:
            reply = "_filedir"
        else:
            reply = "COMPREPLY=()"  # a number, a name: nothing to offer
        arms.append(f"            {flags}) {reply}; return ;;")
    return arms


def _bash_function(function: str, parser: argparse.ArgumentParser) -> list[str]:
    """The completion of one parser (a command, or a sub-command's words)."""
    values = _bash_values(parser)
    lines = [f"{function}() {{", "    local cur prev words cword", "    _init_completion || return"]
    if values:
        lines += ['    case "$prev" in', *values, "    esac"]
    lines += ['    if [[ "$cur" == -* ]]; then',
              f'        COMPREPLY=($(compgen -W "{" ".join(_words(parser))}" -- "$cur"))']
    if any(not a.option_strings for a in options(parser)):  # it takes files too
        lines += ["    else", "        _filedir"]
    return [*lines, "    fi", "}"]


def bash_completion(command: Command) -> str:
    """A bash completion script for one command (bash-completion loads it by name)."""
    parser = parser_of(command)
    base = "_" + command.name.replace("-", "_")
    subs = subcommands(parser)
    lines = [f"# bash completion for {command.name}; generated by `python -m vppcfg.docgen`"]
    if not subs:
        lines += _bash_function(base, parser)
        return "\n".join([*lines, f"complete -F {base} {command.name}", ""])
    for sub_name, sub in subs:
        lines += _bash_function(f"{base}__{sub_name}", sub)
    names = " ".join(n for n, _ in subs)
    lines += [f"{base}() {{", "    local cur prev words cword", "    _init_completion || return",
              '    if [ "$cword" -eq 1 ]; then',
              f'        COMPREPLY=($(compgen -W "{names} {" ".join(_words(parser))}" -- "$cur"))',
              "        return", "    fi", '    case "${words[1]}" in']
    lines += [f"        {n}) {base}__{n} ;;" for n, _ in subs]
    lines += ["    esac", "}", f"complete -F {base} {command.name}", ""]
    return "\n".join(lines)


def bash_all() -> str:
    """The four commands' completions in one file (the Debian package's)."""
    return "\n".join(bash_completion(c) for c in COMMANDS)


def sub_help(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each sub-command's one-line help (as `PROG --help` lists them)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _short(text: str, width: int = 72) -> str:
    """A description cut to a width, at a word, before any parenthesis."""
    text = text.split(" (")[0]
    if len(text) <= width:
        return text
    return text[:width].rsplit(" ", 1)[0] + "..."


def _zsh_escape(text: str) -> str:
    return (text.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "\\[")
            .replace("]", "\\]").replace(":", "\\:"))


def _zsh_specs(parser: argparse.ArgumentParser) -> list[str]:
    specs = []
    for action in options(parser):
        if not action.option_strings:
            continue
        description = _zsh_escape(_short(help_text(parser, action)))
        value = metavar(parser, action)
        if action.nargs == 0:
            action_part = ""
        elif action.choices:
            action_part = f":{_zsh_escape(value)}:({' '.join(map(str, action.choices))})"
        elif value in DIR_METAVARS:
            action_part = f":{_zsh_escape(value)}:_files -/"
        elif value in FILE_METAVARS or action.type is Path:
            action_part = f":{_zsh_escape(value)}:_files"
        else:
            action_part = f":{_zsh_escape(value)}: "
        repeat = "*" if isinstance(action, argparse._AppendAction) else ""
        for flag in action.option_strings:
            specs.append(f"'{repeat}{flag}[{description}]{action_part}'")
    if any(not a.option_strings for a in options(parser)):
        specs.append("'*:file:_files'")
    return specs


def zsh_completion() -> str:
    """One zsh completion file for the four commands (fpath: _vppcfg)."""
    lines = ["#compdef " + " ".join(c.name for c in COMMANDS),
             "# zsh completion; generated by `python -m vppcfg.docgen`", ""]
    for command in COMMANDS:
        parser = parser_of(command)
        base = "_" + command.name.replace("-", "_")
        subs = subcommands(parser)
        if not subs:
            lines += [f"{base}() {{", "  _arguments -s \\", *[f"    {s} \\" for s in
                      _zsh_specs(parser)], "    '--help[show the help]'", "}", ""]
            continue
        for sub_name, sub in subs:
            lines += [f"{base}__{sub_name}() {{", "  _arguments -s \\",
                      *[f"    {s} \\" for s in _zsh_specs(sub)],
                      "    '--help[show the help]'", "}", ""]
        described = " ".join(f"'{n}:{_zsh_escape(_short(text))}'"
                             for n, text in sub_help(parser).items())
        lines += [f"{base}() {{", "  local -a commands", f"  commands=({described})",
                  "  if (( CURRENT == 2 )); then", "    _describe command commands",
                  "    _arguments '--version[print the version]' '--help[show the help]'",
                  "    return", "  fi", "  shift words; (( CURRENT-- ))",
                  f'  (( $+functions[{base}__$words[1]] )) && {base}__$words[1]', "}", ""]
    lines += ["case $service in"]
    lines += [f"  {c.name}) _{c.name.replace('-', '_')} ;;" for c in COMMANDS]
    lines += ["esac", ""]
    return "\n".join(lines)


# --- the files ---


def outputs(root: Path = ROOT) -> dict[Path, str]:
    """Every generated file (relative to the checkout) and its text."""
    files = {Path("docs/man") / f"{c.name}.1": man_page(c, root) for c in COMMANDS}
    files |= {Path("contrib/completion/bash") / c.name: bash_completion(c) for c in COMMANDS}
    files[Path("contrib/bash-completion.sh")] = bash_all()
    files[Path("contrib/completion/zsh/_vppcfg")] = zsh_completion()
    return files


def stale(root: Path = ROOT) -> list[Path]:
    """The generated files that differ from what the parsers give now."""
    out = []
    for path, text in outputs(root).items():
        target = root / path
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vppcfg.docgen",
        description="Write the man pages and shell completions from the argument parsers.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming the files that are stale")
    parser.add_argument("--root", type=Path, default=ROOT, metavar="DIR",
                        help="the checkout (default: the one this module is in)")
    args = parser.parse_args(argv)
    if args.check:
        old = stale(args.root)
        for path in old:
            print(f"stale: {path} (run python -m vppcfg.docgen)", file=sys.stderr)
        return exits.FAILED if old else exits.OK
    for path, text in outputs(args.root).items():
        target = args.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return exits.OK


if __name__ == "__main__":
    sys.exit(main())
