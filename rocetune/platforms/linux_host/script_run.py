"""Walk a shell syntax tree as the shell would, without running any command.

Each command the script would run is handed to a callback as a :class:`Run`: its words
expanded with the variables known at that point (:mod:`.script_words`), the values it writes
to files (``echo 1 > /sys/...``, ``echo 1 | tee /sys/...``), its line, and why it might not
run (``unsure``) or why some of its words are not known (``reasons``).

Followed: assignments (also ``export``/``local``/``declare``), ``for`` over a literal list,
functions and their arguments, ``sh -c '...'`` and ``bash <<EOF`` bodies, ``sudo``/``env``/
``timeout``/``nohup`` wrappers, ``&&`` chains (the script is assumed to succeed), ``if`` and
``case`` whose test is decided by known values (``[ "$MODE" = dscp ]``).

Not decided, so the commands inside are ``unsure``: ``if``/``case`` branches that depend on
the host, ``while`` loops, the right side of ``||``, loops over a glob or over command output
(their variable is not known either). Commands sent to another host (``ssh``, ``pdsh``) and
commands built at run time (``xargs``, ``eval`` of unknown text) are reported as skipped.
"""

from __future__ import annotations

import contextlib
import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rocetune.platforms.linux_host.script_parse import (
    AndOr,
    Case,
    For,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    Redirect,
    Seq,
    Simple,
    parse,
)
from rocetune.platforms.linux_host.script_words import (
    UNKNOWN,
    Env,
    Expander,
    is_glob,
    is_unknown,
    plain,
)

_WRAPPERS = {"sudo", "env", "nohup", "command", "exec", "time", "nice", "stdbuf", "doas"}
_ARG_OPTS = {"sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}, "nice": {"-n"}}
_SHELLS = {"sh", "bash", "dash", "zsh", "ksh"}
_REMOTE = {"ssh", "pdsh", "clush", "pssh", "parallel-ssh", "srun", "mpirun", "ansible"}
_BUILT_AT_RUNTIME = {"xargs", "parallel", "find", "watch"}
_DECLARE = {"export", "local", "declare", "typeset", "readonly"}
_NIC_HINT = re.compile(
    r"mlnx_|mlxconfig|cma_roce|roce|/ecn/|dscp|pfc|/sys/class/(?:net|infiniband)/"
)
"""Text that may configure a NIC (for commands rocetune cannot follow)."""
_MAX_DEPTH = 16
_MAX_ITERATIONS = 256
MAX_STEPS = 50_000
"""Commands walked per script at most (nested literal loops multiply)."""


@dataclass
class Run:
    """One command the script would run."""

    words: list[str]
    line: int
    writes: list[tuple[str, str]] = field(default_factory=list)
    """(path, text) written by ``echo``/``printf``/``tee``."""
    unsure: str | None = None
    """Why the command might not run (None: it runs whenever the script runs)."""
    reasons: list[str] = field(default_factory=list)
    """Why parts of its words are not known."""

    @property
    def text(self) -> str:
        """The command as read (unknown parts as ``?``)."""
        shown = " ".join(plain(w) for w in self.words)
        for path, data in self.writes:
            shown = f"{shown} > {plain(path)}" if shown else f"echo {plain(data)} > {plain(path)}"
        return shown[:200]


@dataclass
class Skipped:
    """A command rocetune cannot follow (sent to another host, built at run time)."""

    line: int
    text: str
    reason: str


class _Exit(Exception):
    pass


class _Budget(Exception):
    """The walk took more steps than :data:`MAX_STEPS` (nested loops, recursion)."""


class _Return(Exception):
    pass


@dataclass
class Runner:
    """Walks one script; ``on_run`` receives every command, ``skipped`` what was not read."""

    on_run: Callable[[Run], None]
    skipped: list[Skipped] = field(default_factory=list)
    funcs: dict[str, Node] = field(default_factory=dict)
    files: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    """Files the script writes from a here-document (path -> text, first line): run when
    the script later runs them (``cat <<EOF > /usr/local/bin/qos.sh`` ... ``qos.sh``)."""
    depth: int = 0
    steps: int = 0

    def script(self, text: str, first_line: int, env: Env) -> None:
        """Parse and walk ``text`` (syntax errors are reported as skipped from their line)."""
        tree, error = parse(text, first_line)
        try:
            self.node(tree, env, None)
        except _Exit:
            pass
        except _Budget as exc:
            why = f"more than {MAX_STEPS} commands to follow; the rest of the script is not read"
            self.skipped.append(Skipped(int(str(exc)), "(the rest of the script)", why))
        if error is not None:
            why = f"shell syntax not understood ({error.message}); the script from here is not read"
            self.skipped.append(Skipped(error.line, _line_of(text, first_line, error.line), why))

    def node(self, node: Node, env: Env, unsure: str | None) -> None:
        """Walk one node."""
        if isinstance(node, Seq):
            for item in node.items:
                self.node(item, env, unsure)
        elif isinstance(node, Simple):
            self.simple(node, env, unsure)
        elif isinstance(node, AndOr):
            for op, item in node.items:
                if op == "||":
                    unsure = unsure or f"the right side of || (line {node.line}): runs on failure"
                self.node(item, env, unsure)
        elif isinstance(node, Pipeline):
            self.pipeline(node, env, unsure)
        elif isinstance(node, For):
            self.for_(node, env, unsure)
        elif isinstance(node, Loop):
            self.node(node.cond, env, unsure)
            self.node(node.body, env, unsure or f"inside a {node.kind} loop (line {node.line})")
        elif isinstance(node, If):
            self.if_(node, env, unsure)
        elif isinstance(node, Case):
            self.case(node, env, unsure)
        elif isinstance(node, Group):
            self.node(node.body, env.copy() if node.subshell else env, unsure)
        else:  # a function definition
            self.funcs[node.name] = node.body

    def pipeline(self, node: Pipeline, env: Env, unsure: str | None) -> None:
        first, rest = node.commands[0], node.commands[1:]
        if isinstance(first, Simple) and rest and isinstance(rest[0], Simple):
            exp = Expander(env)
            words = [f for w in first.words for f in exp.fields(w)]
            tee = _unwrap([f for w in rest[0].words for f in exp.fields(w)])
            head = words[0].rsplit("/", 1)[-1] if words else ""
            is_tee = bool(tee) and tee[0].rsplit("/", 1)[-1] == "tee"
            if head == "cat" and is_tee:
                self.keep_file(first, [w for w in tee[1:] if not w.startswith("-")], "-a" in tee)
                return
            if head in ("echo", "printf") and is_tee:
                data = " ".join(_echo_args(words))
                paths = [w for w in tee[1:] if not w.startswith("-")]
                run = Run([], first.line, [(p, data) for p in paths], unsure, exp.reasons)
                self.on_run(run)
                return
        for command in node.commands:
            self.node(command, env.copy(), unsure)

    def for_(self, node: For, env: Env, unsure: str | None) -> None:
        exp = Expander(env)
        raw = node.words if node.words is not None else ['"$@"']
        values = [f for w in raw for f in exp.fields(w)]
        bad = [v for v in values if is_unknown(v) or is_glob(v)]
        if bad or exp.reasons:
            why = "; ".join(exp.reasons) or f"a glob ({plain(bad[0])}): the files on the host"
            env.unknown(node.var, f"loop variable of line {node.line} over {why}")
            loop_unsure = (
                unsure or f"inside a loop over a list that is not known (line {node.line})"
            )
            self.node(node.body, env, loop_unsure)
            return
        for value in values[:_MAX_ITERATIONS]:
            env.vars[node.var] = value
            self.node(node.body, env, unsure)

    def if_(self, node: If, env: Env, unsure: str | None) -> None:
        for cond, body in node.clauses:
            decided = _decide(cond, env)
            if decided is None:
                self.node(cond, env, unsure)
                branch = unsure or f"inside an if at line {node.line} (the branch is not known)"
                for _, other in node.clauses:
                    self.node(other, env, branch)
                if node.orelse is not None:
                    self.node(node.orelse, env, branch)
                return
            if decided:
                self.node(body, env, unsure)
                return
        if node.orelse is not None:
            self.node(node.orelse, env, unsure)

    def case(self, node: Case, env: Env, unsure: str | None) -> None:
        exp = Expander(env)
        word = exp.text(node.word)
        if exp.reasons or is_unknown(word):
            branch = unsure or f"inside a case at line {node.line} (the branch is not known)"
            for _, body in node.arms:
                self.node(body, env, branch)
            return
        for patterns, body in node.arms:
            if any(fnmatch.fnmatchcase(word, plain(Expander(env).text(p))) for p in patterns):
                self.node(body, env, unsure)
                return

    def simple(self, node: Simple, env: Env, unsure: str | None) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget(str(node.line))
        exp = Expander(env)
        if not node.words:
            for name, value in node.assigns:
                self.assign(env, name, value, unsure, node.line)
            self.redirect_only(node, exp, unsure)
            return
        words = [f for w in node.words for f in exp.fields(w)]
        words = _unwrap(words)
        if not words:
            return
        name = words[0].rsplit("/", 1)[-1]
        if name == "cat" and any(r.heredoc is not None for r in node.redirects):
            targets = [exp.text(r.target) for r in node.redirects if r.op in (">", ">>")]
            self.keep_file(node, targets, any(r.op == ">>" for r in node.redirects))
            return
        if words[0] in self.files or (
            name in _SHELLS and len(words) > 1 and words[1] in self.files
        ):
            self.run_file(words if words[0] in self.files else words[1:], env, unsure)
            return
        if name in _DECLARE:
            for raw in node.words[1:]:
                key, eq, value = raw.partition("=")
                if eq and re.fullmatch(r"[A-Za-z_]\w*", key):
                    self.assign(env, key, value, unsure, node.line)
            return
        if self.builtin(name, words, node, env, unsure):
            return
        if name in self.funcs:
            self.call(name, words[1:], env, unsure)
            return
        if name in _SHELLS:
            self.shell(words, node, env, unsure)
            return
        if name in _REMOTE or name in _BUILT_AT_RUNTIME:
            text = " ".join(plain(w) for w in words)
            if _NIC_HINT.search(text):
                remote = name in _REMOTE
                why = "runs on another host" if remote else "its arguments are built at run time"
                self.skipped.append(Skipped(node.line, text[:160], why))
            return
        writes = []
        if name in ("echo", "printf"):
            data = " ".join(_echo_args(words))
            for r in node.redirects:
                if r.op in (">", ">>", ">|") and not r.fd:
                    writes.append((exp.text(r.target), data))
            words = [] if writes else words
        self.on_run(Run(words, node.line, writes, unsure, exp.reasons))

    def keep_file(self, node: Simple, paths: list[str], append: bool) -> None:
        """Remember the here-document ``node`` writes to ``paths`` (``>>`` appends)."""
        body = next((r for r in node.redirects if r.heredoc is not None), None)
        if body is None or body.heredoc is None:
            return
        for path in paths:
            if not is_unknown(path):
                chunks = self.files.get(path, []) if append else []
                self.files[plain(path)] = [*chunks, (body.heredoc, body.heredoc_line)]

    def run_file(self, words: list[str], env: Env, unsure: str | None) -> None:
        """Run a file this script wrote (its text, lines as in the script)."""
        inner = env.copy()
        inner.args = words[1:]
        for text, line in self.files[words[0]]:
            self.nested(text, line, inner, unsure)

    def redirect_only(self, node: Simple, exp: Expander, unsure: str | None) -> None:
        del node, exp, unsure  # ``> file`` alone truncates a file: no NIC state

    def assign(self, env: Env, name: str, raw: str, unsure: str | None, line: int) -> None:
        """``name=raw``: known when its value is, unknown inside an undecided branch."""
        exp = Expander(env)
        value = exp.text(raw)
        if unsure is not None:
            env.unknown(name, f"assigned at line {line} {unsure}")
        elif exp.reasons or is_unknown(value):
            env.unknown(name, f"assigned at line {line} from {'; '.join(exp.reasons) or 'unknown'}")
        else:
            env.vars[name] = plain(value)

    def builtin(
        self, name: str, words: list[str], node: Simple, env: Env, unsure: str | None
    ) -> bool:
        """Shell builtins that change what later commands see; True when handled."""
        if name == "unset":
            for var in words[1:]:
                env.vars.pop(var, None)
        elif name == "set":
            if "--" in words:
                env.args = words[words.index("--") + 1 :]
        elif name == "shift":
            if env.args is not None:
                env.args = env.args[1:]
        elif name in ("read", "mapfile", "readarray", "getopts"):
            for var in words[1:]:
                if re.fullmatch(r"[A-Za-z_]\w*", var):
                    env.unknown(var, f"read at run time (line {node.line})")
        elif name in ("exit", "return"):
            if unsure is None:
                raise _Exit if name == "exit" or self.depth == 0 else _Return
        elif name == "eval":
            text = " ".join(words[1:])
            if is_unknown(text):
                self.skipped.append(Skipped(node.line, plain(text)[:160], "eval of text not known"))
            else:
                self.nested(plain(text), node.line, env, unsure)
        else:
            return False
        return True

    def call(self, name: str, args: list[str], env: Env, unsure: str | None) -> None:
        """Run a function body with its arguments as $1 ..."""
        if self.depth >= _MAX_DEPTH:
            return
        saved = env.args
        env.args = args
        self.depth += 1
        try:
            self.node(self.funcs[name], env, unsure)
        except _Return:
            pass
        finally:
            self.depth -= 1
            env.args = saved

    def shell(self, words: list[str], node: Simple, env: Env, unsure: str | None) -> None:
        """``bash -c 'text'`` or ``bash <<EOF`` (the text is read as a script)."""
        if "-c" in words:
            at = words.index("-c")
            text = words[at + 1] if at + 1 < len(words) else ""
            if is_unknown(text):
                self.skipped.append(
                    Skipped(node.line, plain(text)[:160], "sh -c of text not known")
                )
                return
            inner = env.copy()
            inner.args = words[at + 3 :]
            self.nested(plain(text), node.line, inner, unsure)
            return
        body = next((r for r in node.redirects if r.op in ("<<", "<<-")), None)
        if body is not None and body.heredoc is not None:
            self.nested(body.heredoc, body.heredoc_line, env.copy(), unsure)
            return
        self.on_run(Run(words, node.line, [], unsure, []))

    def nested(self, text: str, line: int, env: Env, unsure: str | None) -> None:
        """Walk a script given as text (``sh -c``, ``eval``, a here-document)."""
        if self.depth >= _MAX_DEPTH:
            return
        self.depth += 1
        try:
            tree, error = parse(text, line)
            with contextlib.suppress(_Exit, _Return):
                self.node(tree, env, unsure)
            if error is not None:
                why = f"shell syntax not understood ({error.message})"
                self.skipped.append(Skipped(error.line, text.splitlines()[0][:160], why))
        finally:
            self.depth -= 1


def _unwrap(words: list[str]) -> list[str]:
    """Words without ``sudo``/``env X=1``/``timeout 5`` ... in front."""
    while words:
        head = words[0].rsplit("/", 1)[-1]
        if head == "timeout":
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[1:]
            words = words[1:]
            continue
        if head not in _WRAPPERS:
            return words
        takes = _ARG_OPTS.get(head, set())
        words = words[1:]
        while words and (words[0].startswith("-") or (head == "env" and "=" in words[0])):
            words = words[2:] if words[0] in takes else words[1:]
    return words


def _echo_args(words: list[str]) -> list[str]:
    args = words[1:]
    while args and args[0] in ("-n", "-e", "-ne", "-en", "-E"):
        args = args[1:]
    if words[0] == "printf" and args:
        return [args[0].replace("\\n", "").replace("%s", " ".join(args[1:])).strip()]
    return args


_TEST = re.compile(r"\[\[?|test")


def _decide(cond: Seq, env: Env) -> bool | None:
    """The value of a test whose operands are all known (``[ "$A" = b ]``), else None."""
    if len(cond.items) != 1 or not isinstance(cond.items[0], Simple):
        return None
    node = cond.items[0]
    exp = Expander(env)
    words = [exp.text(w) for w in node.words]
    if exp.reasons or any(is_unknown(w) for w in words) or not words:
        return None
    words = [plain(w) for w in words]
    if words in (["true"], [":"]):
        return True
    if words == ["false"]:
        return False
    if not _TEST.fullmatch(words[0]):
        return None
    args = [w for w in words[1:] if w not in ("]", "]]")]
    if len(args) == 3 and args[1] in ("=", "==", "!="):
        same = plain(args[0]) == plain(args[2])
        return same if args[1] != "!=" else not same
    if len(args) == 2 and args[0] in ("-z", "-n"):
        empty = plain(args[1]) == ""
        return empty if args[0] == "-z" else not empty
    return None


def _line_of(text: str, first_line: int, line: int) -> str:
    lines = text.splitlines()
    index = line - first_line
    return lines[index].strip()[:160] if 0 <= index < len(lines) else ""


__all__ = ["UNKNOWN", "Redirect", "Run", "Runner", "Skipped"]
