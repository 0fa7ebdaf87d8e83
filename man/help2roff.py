#!/usr/bin/env python3
"""Writes a tool's man page (roff, man macros) from its --help text.

Every LOS tool prints a man page as its --help: sections in capitals
(NAME, SYNOPSIS, DESCRIPTION, OPTIONS, ...) at column 0, their text indented
by 4 spaces; a definition ("--socket PATH   Query socket ...", or a term
alone with its text indented below it) becomes a tagged paragraph; text
indented deeper under a paragraph is shown as is; SYNOPSIS and EXAMPLES are
shown as is. So the page and --help cannot drift apart: the page is built from
the binary (man/CMakeLists.txt).

  help2roff.py --name NAME --section N --source "LOS 0.1.0" -o FILE -- PROGRAM [ARGS...]
"""
import argparse
import re
import subprocess
import sys

BASE = 4  # the indentation of a section's text
GAP = re.compile(r"\S(\s{2,})\S")  # two or more spaces between words: a column


def escape(text):
    out = []
    for c in text:
        if c == "\\":
            out.append("\\e")
        elif c == "-":
            out.append("\\-")
        elif ord(c) > 127:
            out.append("\\[u%04X]" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def text_line(text):
    """A roff text line: a leading '.' or ' would be read as a request."""
    line = escape(text)
    return "\\&" + line if line[:1] in (".", "'") else line


def term(text):
    """A definition's term: option names bold, their arguments italic."""
    words = []
    for word in text.split(" "):
        tail = ""
        if word.endswith(","):
            word, tail = word[:-1], ","
        if word.startswith("-") or not any(w.startswith("-") for w in text.split(" ")):
            # an option name, or a term that is no option (a command, a file)
            name, eq, arg = word.partition("=")
            words.append("\\fB" + escape(name) + "\\fR" + (escape(eq) + "\\fI" + escape(arg) + "\\fR" if eq else "") + tail)
        else:
            words.append("\\fI" + escape(word) + "\\fR" + tail)
    return " ".join(words)


def indent(line):
    return len(line) - len(line.lstrip(" "))


def is_tabular(line):
    return GAP.search(line.strip()) is not None


class Page:
    def __init__(self):
        self.out = []

    def emit(self, *lines):
        self.out.extend(lines)

    def literal(self, lines, relative=True):
        """Lines shown as they are, keeping their indentation relative to each
        other; `relative`: indented beneath the text before them."""
        if relative:
            self.emit(".RS")
        self.emit(".nf")
        left = min(indent(l) for l in lines)
        for l in lines:
            self.emit(text_line(" " * (indent(l) - left) + l.strip()))
        self.emit(".fi")
        if relative:
            self.emit(".RE")

    def filled(self, lines):
        for l in lines:
            self.emit(text_line(l.strip()))

    def body(self, lines):
        """Continuation lines under a definition: runs of plain text are
        filled, runs of columns are shown as is."""
        runs = []
        for l in lines:
            kind = "table" if is_tabular(l) else "text"
            if runs and runs[-1][0] == kind and (kind == "table" or indent(l) == indent(runs[-1][1][-1])):
                runs[-1][1].append(l)
            else:
                runs.append((kind, [l]))
        for i, (kind, run) in enumerate(runs):
            if kind == "table":
                self.literal(run, relative=False)
            else:
                if i > 0:
                    self.emit(".br")
                self.filled(run)


def items(lines):
    """A section's lines grouped: (base line, [deeper lines]) or None for a blank."""
    groups = []
    for l in lines:
        if not l.strip():
            groups.append(None)
        elif indent(l) <= BASE or not groups or groups[-1] is None:
            groups.append((l, []))
        else:
            groups[-1][1].append(l)
    return groups


def section(page, name, lines, page_name):
    page.emit(".SH " + escape(name))
    if name == "NAME":
        text = " ".join(l.strip() for l in lines if l.strip())
        prog, sep, what = text.partition(" - ")
        if not sep or prog.replace(" ", "-") != page_name:
            sys.exit("help2roff: NAME must read '%s - what it is', got: %s" % (page_name, text))
        # whatis and apropos need the page's name ("los-sim-generate").
        page.emit(escape(page_name) + " \\- " + escape(what))
        return
    if name in ("SYNOPSIS", "EXAMPLE", "EXAMPLES"):
        for block in "\n".join(lines).strip("\n").split("\n\n"):
            block_lines = [l for l in block.split("\n") if l.strip()]
            if block_lines:
                page.literal(block_lines, relative=False)
                page.emit(".PP")
        page.out.pop()
        return
    prose = False  # the last thing written is running text (a paragraph open)
    new_paragraph = True
    for group in items(lines):
        if group is None:
            new_paragraph = True
            continue
        base, deeper = group
        text = base.strip()
        gap = GAP.search(text)
        # A definition: "TERM  TEXT", or a term (an option, or one word) with
        # its text indented below it.
        starts_term = gap or (deeper and (text.startswith("-") or " " not in text))
        if starts_term and indent(base) == BASE:
            if gap:
                head, desc = text[: gap.start(1)], text[gap.end(1):]
            else:
                head, desc = text, ""
            page.emit(".TP", term(head))
            if desc:
                page.emit(text_line(desc))
                column = indent(base) + gap.end(1) if gap else None
                aligned = [l for l in deeper if indent(l) == column and not is_tabular(l)]
                if len(aligned) == len(deeper):
                    page.filled(deeper)
                    deeper = []
                elif deeper:
                    page.emit(".br")
            if deeper:
                page.body(deeper)
            prose, new_paragraph = False, False
            continue
        if new_paragraph or not prose:
            page.emit(".PP")
        page.filled([base])
        if deeper:
            page.literal(deeper)
        prose, new_paragraph = True, False
        if name == "SEE ALSO":
            page.out[-1] = re.sub(r"([\w\\-]+)\((\d)\)", r"\\fB\1\\fR(\2)", page.out[-1])


def convert(help_text, name, section_number, source):
    lines = help_text.rstrip("\n").split("\n")
    sections = []
    for l in lines:
        if re.fullmatch(r"[A-Z][A-Z ]*[A-Z]", l):
            sections.append((l, []))
        elif not sections:
            if l.strip():
                sys.exit("help2roff: --help must start with a section (NAME), got: " + l)
        else:
            sections[-1][1].append(l)
    if not sections or sections[0][0] != "NAME":
        sys.exit("help2roff: --help has no NAME section first")
    for title in ("SYNOPSIS", "DESCRIPTION"):
        if title not in (s for s, _ in sections):
            sys.exit("help2roff: --help has no %s section" % title)
    page = Page()
    page.emit('.TH %s %s "" "%s" "LOS manual"' % (escape(name.upper()), section_number, escape(source)))
    for title, body in sections:
        while body and not body[-1].strip():
            body.pop()
        section(page, title, body, name)
    return "\n".join(page.out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--name", required=True, help="the page's name (e.g. losctl)")
    parser.add_argument("--section", required=True, help="the manual section (1, 8)")
    parser.add_argument("--source", required=True, help='e.g. "LOS 0.1.0"')
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("command", nargs="+", help="the program and its arguments that print the help")
    a = parser.parse_args()
    help_run = subprocess.run(a.command, capture_output=True, text=True)
    if help_run.returncode != 0:
        sys.exit("help2roff: %s exited with %d: %s" % (" ".join(a.command), help_run.returncode, help_run.stderr))
    page = convert(help_run.stdout, a.name, a.section, a.source)
    with open(a.output, "w", encoding="ascii") as f:
        f.write(page)


if __name__ == "__main__":
    main()
