"""Shell completion scripts (bash, zsh, fish) generated from the argparse parsers, so they can't drift from the
options: ``phasewrap completion bash > ~/.local/share/bash-completion/completions/phasewrap``."""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

SHELLS = ("bash", "zsh", "fish")
DESCRIPTION_CHARS = 70
# metavars of options whose value is a path: the shell completes file names there
PATH_METAVARS = re.compile(r"FILE|DIR|PATH|OUT")


@dataclass(frozen=True)
class Option:
    flags: tuple          # ("-q", "--quiet")
    takes_value: bool
    choices: tuple        # () when any value goes
    is_path: bool
    help: str


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    options: tuple
    takes_files: bool     # positional arguments are files (analyze FILE…), or a command after -- (run)


def _short(text) -> str:
    text = re.sub(r"\s+", " ", (text or "").replace("%%", "%")).strip()
    text = re.split(r"(?<=[a-z)]);\s|\. ", text)[0]
    return text if len(text) <= DESCRIPTION_CHARS else text[:DESCRIPTION_CHARS - 1] + "…"


def _option(action: argparse.Action) -> Option:
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    return Option(tuple(action.option_strings), action.nargs != 0, tuple(str(c) for c in action.choices or ()),
                  bool(PATH_METAVARS.search(metavar)), _short(action.help))


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """Each subcommand of ``parser`` with its options, read from the parser itself."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    out = []
    for name, child in sub.choices.items():
        options = tuple(_option(a) for a in child._actions if a.option_strings and a.help != argparse.SUPPRESS)
        positionals = [a for a in child._actions if not a.option_strings]
        takes_files = any(a.nargs in ("+", "*", argparse.REMAINDER) or
                          PATH_METAVARS.search(str(a.metavar or "")) for a in positionals)
        out.append(Command(name, _short(helps.get(name)), options, takes_files))
    return out


def _bash_body(cmds: list[Command], top_flags: tuple) -> str:
    subs = " ".join(c.name for c in cmds)
    lines = ["_phasewrap() {",
             '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" sub="" i',
             "    for ((i = 1; i < COMP_CWORD; i++)); do",
             '        case "${COMP_WORDS[i]}" in',
             "            --) return 0 ;;  # the wrapped command's own words: file names (-o default)",
             "            -*) ;;",
             '            *) [ -z "$sub" ] && sub="${COMP_WORDS[i]}" ;;',
             "        esac",
             "    done",
             '    if [ -z "$sub" ]; then',
             f'        COMPREPLY=($(compgen -W "{subs} {" ".join(top_flags)}" -- "$cur")); return 0',
             "    fi",
             '    case "$sub:$prev" in']
    for c in cmds:
        for o in c.options:
            if not o.takes_value:
                continue
            pattern = "|".join(f"{c.name}:{f}" for f in o.flags)
            if o.choices:
                lines.append(f'        {pattern}) COMPREPLY=($(compgen -W "{" ".join(o.choices)}" -- "$cur")); '
                             "return 0 ;;")
            else:  # a path or a free value: leave it to the shell's default (file names)
                lines.append(f"        {pattern}) COMPREPLY=(); return 0 ;;")
    lines += ["    esac", '    case "$sub" in']
    for c in cmds:
        flags = " ".join(f for o in c.options for f in o.flags)
        files = "" if c.takes_files else ' || [ -z "$cur" ]'
        lines.append(f'        {c.name}) [[ "$cur" == -* ]]{files} && COMPREPLY=($(compgen -W "{flags}" -- "$cur")) ;;')
    lines += ["    esac", "    return 0", "}", "complete -o default -F _phasewrap phasewrap"]
    return "\n".join(lines) + "\n"


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(cmds: list[Command]) -> str:
    lines = ["# phasewrap completion for fish: phasewrap completion fish > ~/.config/fish/completions/phasewrap.fish",
             "complete -c phasewrap -f"]
    for c in cmds:
        lines.append(f"complete -c phasewrap -n __fish_use_subcommand -a {c.name} -d {_fish_quote(c.help)}")
    for c in cmds:
        seen = f"-n '__fish_seen_subcommand_from {c.name}'"
        if c.takes_files:
            lines.append(f"complete -c phasewrap {seen} -F")
        for o in c.options:
            names = " ".join(f"-l {f[2:]}" if f.startswith("--") else f"-s {f[1:]}" for f in o.flags)
            value = ""
            if o.choices:
                value = f" -x -a {_fish_quote(' '.join(o.choices))}"
            elif o.takes_value:
                value = " -r -F" if o.is_path else " -x"
            lines.append(f"complete -c phasewrap {seen} {names}{value} -d {_fish_quote(o.help)}")
    return "\n".join(lines) + "\n"


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script for ``shell`` (one of SHELLS) from the whole command line ``parser``."""
    cmds = commands(parser)
    top_flags = tuple(f for a in parser._actions if a.option_strings for f in a.option_strings)
    if shell == "bash":
        return ("# phasewrap completion for bash: eval \"$(phasewrap completion bash)\" in ~/.bashrc, or save it as\n"
                "# ~/.local/share/bash-completion/completions/phasewrap\n" + _bash_body(cmds, top_flags))
    if shell == "zsh":  # zsh runs the bash function through its bashcompinit layer
        return ("#compdef phasewrap\n# phasewrap completion for zsh: eval \"$(phasewrap completion zsh)\" in ~/.zshrc\n"
                "(( ${+functions[compdef]} )) || { autoload -U +X compinit && compinit -i; }\n"
                "autoload -U +X bashcompinit && bashcompinit\n"
                + _bash_body(cmds, top_flags))
    if shell == "fish":
        return _fish(cmds)
    raise ValueError(f"completion: unknown shell {shell!r}; choose from {', '.join(SHELLS)}")
