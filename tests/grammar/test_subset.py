"""The formal subset: what parses beside what must stay outside, and the renderer's round trip."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.grammar import Operator, Outside, Plan, Redirect, Word, grammar_text, parse, render

INSIDE = {
    "git status": [["git", "status"]],
    "git status -s && ls": [["git", "status", "-s"], ["ls"]],
    "git status&&ls": [["git", "status"], ["ls"]],
    "a|b": [["a"], ["b"]],
    "git log HEAD~1": [["git", "log", "HEAD~1"]],
    "git show HEAD^": [["git", "show", "HEAD^"]],
    "cat 'my file'\"x\"": [["cat", "my filex"]],
    "echo 'a;b|c$d`e\\f'": [["echo", "a;b|c$d`e\\f"]],
    'echo "it\'s"': [["echo", "it's"]],
    "ls ''": [["ls", ""]],
    "cat\tfile": [["cat", "file"]],
    "  git   status   -s ": [["git", "status", "-s"]],
    "x ''~": [["x", "~"]],
    "echo x=''~/y": [["echo", "x=~/y"]],
    "git show HEAD^~2": [["git", "show", "HEAD^~2"]],
    "git log --format=%h": [["git", "log", "--format=%h"]],
    "grep a@b.c,d+e:f file": [["grep", "a@b.c,d+e:f", "file"]],
    # A backslash in double quotes stays unless it escapes one of $ ` " \ (then only that is left).
    'grep -n "a\\|b" f': [["grep", "-n", "a\\|b", "f"]],
    'grep "\\.py\\b" f': [["grep", "\\.py\\b", "f"]],
    'echo "a\\"b"': [["echo", 'a"b']],
    'echo "\\\\"': [["echo", "\\"]],
    'echo "\\$x \\`id\\`"': [["echo", "$x `id`"]],
    'echo "\\\\\\""': [["echo", '\\"']],
    'echo "\\\'"': [["echo", "\\'"]],
    # Pipelines joined by ||, ; or a newline; comments where bash starts one; ! as a word of its own.
    "ls || echo none": [["ls"], ["echo", "none"]],
    "a;b": [["a"], ["b"]],
    "a ; b | c": [["a"], ["b"], ["c"]],
    "a\nb": [["a"], ["b"]],
    "a \n\n  # c\n\tb": [["a"], ["b"]],
    "# note\nls -la": [["ls", "-la"]],
    "# a\n\n# b\nls": [["ls"]],
    "ls # x; rm -rf /": [["ls"]],
    "ls 'a'\t# $(id)\ncat f # y": [["ls", "a"], ["cat", "f"]],
    "find . ! -path x": [["find", ".", "!", "-path", "x"]],
    # A $ bash leaves literal in double quotes: before the closing quote, a blank, | ) and the like.
    'grep ":$" f': [["grep", ":$", "f"]],
    'grep -v "^d.*\\.git$"': [["grep", "-v", "^d.*\\.git$"]],
    'grep "a$|b$)c$ d$/$.$:$,$=$+$%$]$}$^$~"': [["grep", "a$|b$)c$ d$/$.$:$,$=$+$%$]$}$^$~"]],
    'echo "\\$x"': [["echo", "$x"]],
    # Text of other scripts in quoted strings; a TEXT character may end a string.
    'echo "\u2713 done" "\u2717"': [["echo", "\u2713 done", "\u2717"]],
    "echo '\u26a0\ufe0f  caf\u00e9 \u6b63 \U0001f916 \u2501\u2501'": [
        ["echo", "\u26a0\ufe0f  caf\u00e9 \u6b63 \U0001f916 \u2501\u2501"]
    ],
    'echo "\u2192$"': [["echo", "\u2192$"]],
    # Brace expansion of plain words: the words bash makes, an empty one left out.
    "ls *.{pdf,epub}": [["ls", "*.pdf", "*.epub"]],
    "cat src/{a,b/c}.py x": [["cat", "src/a.py", "src/b/c.py", "x"]],
    "diff f{,.orig}": [["diff", "f", "f.orig"]],
    "echo {,} x": [["echo", "x"]],
    "ls -{a,l}": [["ls", "-a", "-l"]],
    # ** is * without globstar; [ alone is the test builtin and ] a word of its own.
    "ls **/x.py a**b": [["ls", "**/x.py", "a**b"]],
    "[ -f x ] && [ a = b ]": [["[", "-f", "x", "]"], ["[", "a", "=", "b", "]"]],
    "test x ]": [["test", "x", "]"]],
}


@pytest.mark.parametrize("line, words", INSIDE.items())
def test_a_line_in_the_subset_parses_to_the_words_bash_sees(line: str, words: list[list[str]]) -> None:
    plan = parse(line)
    assert isinstance(plan, Plan)
    assert [[w.text for w in s.words] for s in plan.stages] == words


def test_glob_words_are_marked_and_rendered_bare() -> None:
    plan = parse("ls -la *.go sub/?x")
    assert isinstance(plan, Plan)
    assert plan.stages[0].words[2:] == (Word("*.go", glob=True), Word("sub/?x", glob=True))
    assert render(plan) == "'ls' '-la' *.go sub/?x"


@pytest.mark.parametrize(
    "line, redirects",
    [
        ("git status 2>&1", (Redirect.ERR_TO_OUT,)),
        ("git status 2>/dev/null | head", (Redirect.ERR_TO_NULL,)),
        ("git status >/dev/null 2>&1", (Redirect.OUT_TO_NULL, Redirect.ERR_TO_OUT)),
        ("git 2>&1 status", (Redirect.ERR_TO_OUT,)),
    ],
)
def test_the_three_redirects_are_whole_words_after_the_command(
    line: str, redirects: tuple[Redirect, ...]
) -> None:
    plan = parse(line)
    assert isinstance(plan, Plan)
    assert plan.stages[0].redirects == redirects


OUTSIDE = {
    "echo $(id)": ("$(", 6),
    "echo `id`": ("`", 6),
    'echo "$(id)"': ("$(", 7),
    'echo "`id`"': ("`", 7),
    'echo "a\\"': ('"', 6),
    'echo "a\\\nb"': ("\n", 9),
    "echo $HOME": ("$", 6),
    "echo ${x}": ("${", 6),
    "cat <(id)": ("<(", 5),
    "cat <<<x": ("<<<", 5),
    "echo $'\\x41'": ("$'", 6),
    "echo {a}": ("{", 6),
    "echo {a,b}{c,d}": ("{", 11),
    "echo x={a,b}": ("{", 8),
    "echo {a,'b'}": ("{", 6),
    "echo '{a,b}'x{c,d}": ("{", 14),
    "echo {a..c}": ("{", 6),
    "{ls,-la}": ("{", 1),
    "echo ~{a,b}": ("~", 6),
    "[[ -f x ]]": ("[", 2),
    "[x": ("x", 2),
    "echo [": ("[", 6),
    "echo x]": ("]", 7),
    "echo ]x": ("x", 7),
    'echo "$x"': ("$", 7),
    'echo "$$"': ("$", 7),
    'echo "$?"': ("$", 7),
    'echo "$1"': ("$", 7),
    'echo "$_"': ("$", 7),
    'echo "$-"': ("$", 7),
    'echo "$#"': ("$", 7),
    'echo "$@"': ("$", 7),
    'echo "$!"': ("$", 7),
    'echo "$*"': ("$", 7),
    "echo \"$'x'\"": ("$", 7),
    'echo "a$\\"': ("$", 8),
    'echo "\u202e"': ("\u202e", 7),
    "echo '\u2066x'": ("\u2066", 7),
    "echo '\u00a0'": ("\u00a0", 7),
    "echo '\u200b'": ("\u200b", 7),
    "echo '\uff5c'": ("\uff5c", 7),
    "echo '\u2019'": ("\u2019", 7),
    "echo '\u037e'": ("\u037e", 7),
    "echo '\u0301'": ("\u0301", 7),
    'echo "\u2713\\n"': ("\\", 8),
    "echo \u2713": ("\u2713", 6),
    "'\u2713' x": ("\u2713", 2),
    "IFS=x ls": ("=", 4),
    "X=1 git status": ("=", 2),
    "git=1 status": ("=", 4),
    "'a=b' x": ("=", 3),
    "ls \\-la": ("\\", 4),
    "ls -la \\\nx": ("\\", 8),
    "ls\n": ("", 2),
    "\nls": ("\n", 1),
    "cat notes.txt\r": ("\r", 14),
    "cat a\x00b": ("\x00", 6),
    "cat \u200bx": ("\u200b", 5),
    "cat \u00a0x": ("\u00a0", 5),
    "cat é": ("é", 5),
    "a;;b": (";;", 2),
    "a ;": ("", 3),
    "; a": (";", 1),
    "a && ; b": (";", 6),
    "a & b": ("&", 3),
    "a|||b": ("|", 4),
    "a || || b": ("||", 6),
    "a |& b": ("|&", 3),
    "a &&\nb": ("\n", 5),
    "a | | b": ("|", 5),
    "| a": ("|", 1),
    "a |": ("", 3),
    "a &&": ("", 4),
    "&& a": ("&&", 1),
    "cat <x": ("<", 5),
    "echo x >/tmp/x": (">", 8),
    "echo x > /dev/null": (">", 8),
    "echo x >>/dev/null": (">>", 8),
    "echo x &>/dev/null": ("&>", 8),
    "echo x >|/dev/null": (">", 8),
    "echo x 3>/dev/null": (">/dev/null", 9),
    "echo x 1>&2": (">&", 9),
    "echo x >&file": (">&", 8),
    "echo x <>file": ("<", 8),
    "echo x >/dev/tcp/h/1": (">", 8),
    "echo x >/dev/nullx": ("x", 18),
    "git status 2>&12": ("2", 16),
    "git status2>&1": (">&", 12),
    ">/dev/null git": (">/dev/null", 1),
    "*.go": ("*.go", 1),
    "ls ';touch x;'*": ("*", 15),
    "grep --include=*.go x .": ("*.go", 16),
    "ls *:x": (":x", 5),
    "ls a+*": ("*", 6),
    "ls [ab]": ("[", 4),
    "cd ~": ("~", 4),
    "cat ~root/x": ("~", 5),
    "git log ^x": ("^", 9),
    "cat x=~/y": ("~", 7),
    "echo a=b:~": ("~", 10),
    "echo x+=~": ("~", 9),
    "echo x#y": ("#", 7),
    "echo x;#y": ("#", 8),
    "# only a comment": ("#", 1),
    "echo 'x'#y": ("#", 9),
    "(ls)": ("(", 1),
    "! ls": ("!", 1),
    "ls || ! ls": ("!", 7),
    "ls !x": ("!", 4),
    "ls x!": ("!", 5),
    "ls !!": ("!", 5),
    "! -x": ("!", 1),
    "echo 'unterminated": ("'", 6),
    "": ("", 0),
    " \t ": ("", 0),
}


@pytest.mark.parametrize("line, where", OUTSIDE.items())
def test_a_line_outside_the_subset_says_where_and_never_raises(line: str, where: tuple[str, int]) -> None:
    result = parse(line)
    assert isinstance(result, Outside), render(result)
    text, column = where
    assert result.column == column or (text == "" and result.column in (0, len(line.strip(" \t"))))
    assert (
        "outside" in result.reason
        or "empty" in result.reason
        or "missing" in result.reason
        or "must follow" in result.reason
        or "whole" in result.reason
        or "separated" in result.reason
    )
    assert "a stage is empty" not in result.reason  # the words of the old reason for `||`


def test_the_reason_for_command_substitution_names_it_with_its_column() -> None:
    result = parse("git log --grep $(id)")
    assert isinstance(result, Outside)
    assert result.reason == "`$(` at column 16: command substitution is outside the subset"
    assert result.caret().splitlines()[1] == " " * 15 + "^"


def test_the_grammar_file_states_its_alphabet_and_is_loaded_strict() -> None:
    text = grammar_text()
    assert "The alphabet, in plain words" in text
    from bastion.grammar import parser

    assert parser().options.parser == "lalr" and parser().options.strict
    assert parser() is parser()


# --- properties --------------------------------------------------------------------------------

_BARE = st.text("abcXYZ019_./:@%+,=-", min_size=1, max_size=6).filter(lambda s: not s.startswith(("~", "^")))
_QUOTED_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.just("\t"), max_size=6)
# An argument may also hold the other scripts' text (TEXT); a command word is ASCII.
_ARG_TEXT = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E)
    | st.sampled_from(["\t", "\u2713", "\u00e9", "\u2501"]),
    max_size=6,
)
_WORD = st.one_of(
    _BARE.map(lambda s: Word(s)),
    _ARG_TEXT.map(lambda s: Word(s)),
    st.from_regex(r"\A[a-z0-9_./-]{0,3}[*?][a-z0-9_./*?-]{0,3}\Z").map(lambda s: Word(s, glob=True)),
)
_COMMAND = st.one_of(_BARE, _QUOTED_TEXT).filter(lambda s: "=" not in s).map(lambda s: Word(s))


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    from bastion.grammar import Pipeline, Stage

    pipelines = []
    for _ in range(draw(st.integers(1, 3))):
        stages = []
        for _ in range(draw(st.integers(1, 3))):
            words = (draw(_COMMAND), *draw(st.lists(_WORD, max_size=4)))
            redirects = tuple(draw(st.lists(st.sampled_from(list(Redirect)), max_size=2)))
            stages.append(Stage(words, redirects))
        pipelines.append(Pipeline(tuple(stages)))
    operators = tuple(draw(st.sampled_from(list(Operator))) for _ in pipelines[1:])
    return Plan(tuple(pipelines), operators)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans())
def test_render_then_parse_gives_back_the_same_plan(plan: Plan) -> None:
    assert parse(render(plan)) == plan


@settings(max_examples=400, deadline=None)
@given(plans(), st.integers(0, 200), st.sampled_from("$`\\&<>(){}[]\r\x00\x7f\u00a0\u200b\u2028é"))
def test_a_line_with_a_byte_outside_the_alphabet_never_parses(plan: Plan, at: int, bad: str) -> None:
    line = render(plan)
    at %= len(line) + 1
    mutated = line[:at] + bad + line[at:]
    # Inside single quotes most bytes are literal text; the alphabet forbids only what can change meaning.
    if bad in "$`\\&<>(){}[]\u00e9" and mutated.count("'") >= 2:
        return
    assert isinstance(parse(mutated), Outside)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_never_raises(text: str) -> None:
    result = parse(text)
    assert isinstance(result, (Plan, Outside))
    if isinstance(result, Plan):
        assert parse(render(result)) == result


def test_the_plan_keeps_each_operator_and_renders_it_back() -> None:
    plan = parse("a || b; c\n# note\nd && e # end")
    assert isinstance(plan, Plan)
    assert plan.operators == (Operator.OR, Operator.SEMI, Operator.NEWLINE, Operator.AND)
    assert render(plan) == "'a' || 'b'; 'c'\n'd' && 'e'"
    assert parse(render(plan)) == plan


def test_a_plan_whose_operators_do_not_fit_its_pipelines_is_never_rendered() -> None:
    plan = parse("a && b")
    assert isinstance(plan, Plan)
    with pytest.raises(ValueError, match="operators"):
        render(plan._replace(operators=()))


def test_xargs_replace_flag_with_braces_attached_is_one_word_and_nothing_joins_it() -> None:
    plan = parse("find . | xargs -I{} wc -l {}")
    assert isinstance(plan, Plan)
    assert [w.text for w in plan.stages[-1].args] == ["-I{}", "wc", "-l", "{}"]
    joined = ("xargs -I{}x cat {}", "xargs x-I{} cat {}", "xargs -I{}{} cat", "xargs '-I'{} cat", "-I{} x")
    for line in joined:
        assert isinstance(parse(line), Outside), line
