"""The HTML report (``SRC_STEM.kiln.html``), in the spirit of Cython's ``-a``.

One self-contained page (inline CSS and JS, no network): a summary, then the
source with each line marked by what kiln did there — native tensor kernel,
native scalar code, Python fallback, rejected by a plugin, or a function left
as Python — the diagnostic code and message under each site that is not
native, and the generated C for a line on click.

The generated C carries a comment ``/* N: source text */`` above the C of
``.py`` line N; :func:`split_c_by_line` cuts it at those markers.
"""

from __future__ import annotations

import ast
import html
import json
import re
from collections import Counter
from typing import Any

# outcome -> CSS class; rank decides a line's colour when it has several sites
OUTCOME_CLASS = {"claimed": "kernel", "scalar": "scalar", "not-covered": "fallback",
                 "rejected": "rejected"}
CLASS_RANK = {"": 0, "kernel": 1, "scalar": 2, "fallback": 3, "python": 4, "rejected": 5}
LEGEND = [("kernel", "native tensor kernel"), ("scalar", "native scalar"),
          ("fallback", "Python fallback"), ("rejected", "rejected (Python fallback)"),
          ("python", "function left as Python, or code in it CPython runs")]
MARK = {"kernel": "K", "scalar": "S", "fallback": "P", "rejected": "R", "python": "Py", "": ""}

_MARKER = re.compile(r"^\s*/\* (\d+): .*\*/\s*$")
_FAIL = re.compile(r"KL_FAIL\((\d+)\)")


def split_c_by_line(c_source: str | None) -> dict[int, str]:
    """Generated C grouped by the ``.py`` line it was emitted for.

    A block runs from a ``/* N: ... */`` marker to the next marker or the end
    of the C function (a line starting in column 0). The prologue of a
    function (argument unboxing, before its first marker) goes to the line
    its ``KL_FAIL(N)`` calls name, which is the ``def`` line.
    """
    out: dict[int, list[str]] = {}
    if not c_source:
        return {}
    # (indent, line) of the markers enclosing the current position: C less
    # indented than a marker (a loop's increment, a closing brace) belongs
    # to the enclosing statement's line.
    stack: list[tuple[int, int]] = []
    prologue: list[str] | None = None

    def flush_prologue() -> None:
        nonlocal prologue
        if prologue:
            fails = Counter(int(m) for ln in prologue for m in _FAIL.findall(ln))
            if fails:
                line = fails.most_common(1)[0][0]
                out.setdefault(line, []).extend(prologue)
        prologue = None

    for raw in c_source.splitlines():
        indent = len(raw) - len(raw.lstrip(" "))
        m = _MARKER.match(raw)
        if m:
            flush_prologue()
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, int(m.group(1))))
            out.setdefault(int(m.group(1)), []).append(raw)
            continue
        if raw[:1] not in ("", " ", "\t", "#"):  # column 0: a new top-level item
            flush_prologue()
            stack = []
            if raw.rstrip().endswith("{") and "(" in raw:
                prologue = []  # a function body starts
            continue
        if raw.strip():
            while len(stack) > 1 and indent < stack[-1][0]:
                stack.pop()
        if stack:
            out[stack[-1][1]].append(raw)
        elif prologue is not None:
            prologue.append(raw)
    flush_prologue()
    return {line: _dedent("\n".join(chunk)) for line, chunk in out.items()}


def _dedent(text: str) -> str:
    lines = text.splitlines()
    indents = [len(ln) - len(ln.lstrip(" ")) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(ln[cut:] for ln in lines)


def function_spans(source_text: str) -> dict[tuple[str, int], int]:
    """(name, def line) -> last line, from Python's parser (nothing runs)."""
    spans: dict[tuple[str, int], int] = {}
    try:
        tree = ast.parse(source_text)
    except (SyntaxError, ValueError):
        return spans
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = node.end_lineno or node.lineno
            spans[(node.name, node.lineno)] = end
            for deco in node.decorator_list:  # a report may count from a decorator
                spans[(node.name, deco.lineno)] = end
    return spans


def summarize(report: dict[str, Any]) -> dict[str, Any]:
    """Counts for the summary: functions, native sites, fallback sites by reason."""
    funcs = report.get("functions", []) or []
    native_fns = [f for f in funcs if f.get("status") == "native"]
    python_fns = [f for f in funcs if f.get("status") != "native"]
    outcomes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for fn in native_fns:
        for site in fn.get("sites", []) or []:
            outcome = site.get("outcome") or "?"
            outcomes[outcome] += 1
            if outcome == "rejected":
                reasons[f"rejected {site.get('code') or '?'}"] += 1
            elif outcome not in ("claimed", "scalar"):
                reasons["not covered by any plugin"] += 1
    return {"functions": len(funcs), "native_functions": len(native_fns),
            "python_functions": python_fns, "kernel": outcomes["claimed"],
            "scalar": outcomes["scalar"],
            "fallback": sum(n for o, n in outcomes.items() if o not in ("claimed", "scalar")),
            "reasons": reasons}


def _site_note(site: dict[str, Any]) -> str:
    what = f"{site.get('kind')} {site.get('target') or ''}".rstrip()
    outcome = site.get("outcome")
    if outcome == "claimed":
        return f"col {site.get('col')}: {what}: native kernel ({site.get('rule')})"
    if outcome == "scalar":
        return f"col {site.get('col')}: {what}: native scalar"
    if outcome == "rejected":
        return (f"col {site.get('col')}: {what}: rejected [{site.get('code')}] "
                f"{site.get('message') or ''}; runs on the Python fallback").rstrip()
    return f"col {site.get('col')}: {what}: no plugin covers it; runs on the Python fallback"


_CSS = """
:root { --kernel:#9be3ad; --scalar:#d7f3de; --fallback:#ffe98a; --rejected:#ff9e9e;
        --python:#ffc78a; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5em 2em; color: #1d1d1d; }
h1 { font-size: 1.35em; margin: .8em 0 .2em; }
.meta { color: #666; margin: 0 0 .6em; }
.summary { display: flex; gap: 2em; flex-wrap: wrap; border: 1px solid #ddd;
           border-radius: 6px; padding: .6em 1em; background: #fafafa; }
.summary h2 { font-size: 1em; margin: 0 0 .3em; }
.summary ul { margin: 0; padding-left: 1.2em; }
.big { font-size: 1.6em; font-weight: 600; }
.legend { margin: .8em 0; }
.legend span { padding: .1em .6em; border-radius: 3px; margin-right: .5em; }
.kernel { background: var(--kernel); } .scalar { background: var(--scalar); }
.fallback { background: var(--fallback); } .rejected { background: var(--rejected); }
.python { background: var(--python); }
table.src { border-collapse: collapse; width: 100%; font: 13px/1.45 ui-monospace, monospace; }
table.src td { padding: 0 .5em; vertical-align: top; }
tr.line td.n { color: #888; text-align: right; width: 3.5em; user-select: none; }
tr.line td.m { width: 2.2em; text-align: center; font-weight: 600; color: #333; }
tr.line td.code { white-space: pre; }
tr.line.has-c { cursor: pointer; }
tr.line.has-c td.n::before { content: "+"; color: #aaa; margin-right: .3em; }
tr.line.open td.n::before { content: "\\2212"; }
tr.line:hover td { outline: 1px solid #bbb; }
tr.note td.msg { white-space: pre-wrap; font-size: 12px; padding-left: 2em; color: #5a1d1d; }
tr.note.fallback td.msg { color: #5a4a00; } tr.note.python td.msg { color: #6a3500; }
tr.cview td { padding: 0; }
details.fullc { margin-top: 1.5em; } details.fullc summary { cursor: pointer; color: #444; }
details.fullc pre { font: 12px/1.4 ui-monospace, monospace; background: #f4f4f4; padding: .6em; overflow-x: auto; }
tr.cview pre { margin: 0 0 0 5.7em; padding: .4em .8em; background: #1e1f24; color: #e6e6e6;
               font: 12px/1.4 ui-monospace, monospace; overflow-x: auto; border-radius: 0 0 4px 4px; }
"""

_JS = """
(function () {
  var cs = JSON.parse(document.getElementById('kiln-c').textContent);
  function toggle(tr, force) {
    var line = tr.getAttribute('data-line');
    var open = tr.nextElementSibling;
    while (open && open.classList.contains('note')) open = open.nextElementSibling;
    var shown = open && open.classList.contains('cview');
    if (force === true && shown) return;
    if (shown) { open.parentNode.removeChild(open); tr.classList.remove('open'); return; }
    var row = document.createElement('tr');
    row.className = 'cview';
    row.setAttribute('data-line', line);
    var td = document.createElement('td');
    td.colSpan = 3;
    var pre = document.createElement('pre');
    pre.className = 'c';
    pre.textContent = cs[line];
    td.appendChild(pre);
    row.appendChild(td);
    var after = tr;
    while (after.nextElementSibling && after.nextElementSibling.classList.contains('note'))
      after = after.nextElementSibling;
    after.parentNode.insertBefore(row, after.nextElementSibling);
    tr.classList.add('open');
  }
  var rows = document.querySelectorAll('tr.line');
  for (var i = 0; i < rows.length; i++) {
    var tr = rows[i];
    if (Object.prototype.hasOwnProperty.call(cs, tr.getAttribute('data-line'))) {
      tr.classList.add('has-c');
      tr.title = 'click to show the generated C';
      tr.addEventListener('click', function () { toggle(this); });
    }
  }
  function fromHash() {
    var m = /^#L(\\d+)$/.exec(location.hash);
    if (!m) return;
    var tr = document.getElementById('L' + m[1]);
    if (tr && tr.classList.contains('has-c')) toggle(tr, true);
  }
  window.addEventListener('hashchange', fromHash);
  fromHash();
  document.body.setAttribute('data-kiln-ready', String(Object.keys(cs).length));
})();
"""


def render_html(source: bytes, report: dict[str, Any], c_source: str | None) -> str:
    """A self-contained page: each source line marked by what kiln did."""
    esc = html.escape
    text = source.decode("utf-8", "replace")
    lines = text.splitlines()
    cls: dict[int, str] = {}
    notes: dict[int, list[tuple[str, str]]] = {}

    def mark(line: int, klass: str) -> None:
        if CLASS_RANK[klass] > CLASS_RANK[cls.get(line, "")]:
            cls[line] = klass

    spans = function_spans(text)
    for fn in report.get("functions", []) or []:
        name, line = fn.get("name", "?"), int(fn.get("line") or 0)
        if fn.get("status") != "native":
            reason = fn.get("reason") or "not compiled"
            mark(line, "python")
            notes.setdefault(line, []).append(
                ("python", f"function {name} is left as Python: {reason}"))
            for body in range(line + 1, spans.get((name, line), line) + 1):
                cls.setdefault(body, "python")
            construct_line = fn.get("construct_line")
            if isinstance(construct_line, int) and construct_line != line:
                notes.setdefault(construct_line, []).append(
                    ("python", f"{fn.get('code') or ''}: {fn.get('construct') or 'this construct'}"
                               f" keeps {name} in Python".lstrip(": ")))
            continue
        guards = [g for g in fn.get("import_guards", []) or [] if isinstance(g, dict)]
        if guards:
            spelled = ", ".join(f"{g.get('name')} ({g.get('path')})" for g in guards)
            notes.setdefault(line, []).append(
                ("fallback", f"function {name} resolved {spelled} ahead of time (a conditional import "
                             "or an alias): it runs natively only if, once the module has run, each is the "
                             "object at its path, else as Python"))
        for body in fn.get("python_bodies", []) or []:
            # a nested def, class, lambda or generator expression: CPython runs its code
            first, last = int(body.get("line") or 0), int(body.get("end_line") or 0)
            what = body.get("kind", "body") + (f" {body['name']}" if body.get("name") else "")
            notes.setdefault(first, []).append(("python", f"{what}: CPython runs its code"))
            for bline in range(first, max(first, last) + 1):
                mark(bline, "python")
        for site in fn.get("sites", []) or []:
            klass = OUTCOME_CLASS.get(site.get("outcome", ""), "fallback")
            sline = int(site.get("line") or 0)
            mark(sline, klass)
            if klass in ("fallback", "rejected"):
                notes.setdefault(sline, []).append((klass, _site_note(site)))
    for line_notes in notes.values():
        line_notes.sort(key=lambda n: -CLASS_RANK[n[0]])

    c_by_line = split_c_by_line(c_source)
    rows = []
    for i, src in enumerate(lines, start=1):
        klass = cls.get(i, "")
        rows.append(f'<tr id="L{i}" class="line {klass}" data-line="{i}">'
                    f'<td class="n">{i}</td><td class="m">{MARK[klass]}</td>'
                    f'<td class="code">{esc(src) or " "}</td></tr>')
        for nklass, note in notes.get(i, []):
            rows.append(f'<tr class="note {nklass}" data-line="{i}"><td></td><td></td>'
                        f'<td class="msg">&#8627; {esc(note)}</td></tr>')

    s = summarize(report)
    reasons = "".join(f"<li>{esc(r)}: {n}</li>" for r, n in sorted(s["reasons"].items()))
    py_fns = "".join(
        f"<li><code>{esc(str(f.get('name')))}</code> (line {f.get('line')}): "
        f"{esc(str(f.get('reason') or 'not compiled'))}</li>" for f in s["python_functions"])
    total_sites = s["kernel"] + s["scalar"] + s["fallback"]
    summary = f"""<section class="summary" id="summary">
<div><h2>Functions compiled</h2><span class="big" id="sum-functions">{s['native_functions']} of {s['functions']}</span></div>
<div><h2>Sites native</h2><span class="big" id="sum-native">{s['kernel'] + s['scalar']} of {total_sites}</span>
<ul><li>tensor kernel: {s['kernel']}</li><li>scalar: {s['scalar']}</li></ul></div>
<div><h2>Sites on the Python fallback</h2><span class="big" id="sum-fallback">{s['fallback']}</span>
<ul id="sum-reasons">{reasons or '<li>none</li>'}</ul></div>
<div><h2>Functions left as Python</h2><span class="big">{len(s['python_functions'])}</span>
<ul id="sum-python">{py_fns or '<li>none</li>'}</ul></div>
</section>"""
    legend = " ".join(f'<span class="{k}">{MARK[k]} {esc(v)}</span>' for k, v in LEGEND)
    title = esc(str(report.get("source", "kiln report")))
    c_json = json.dumps({str(k): v for k, v in sorted(c_by_line.items())})
    c_json = c_json.replace("</", "<\\/")  # never close the script element early
    full_c = ""
    if c_source:
        full_c = ('<details class="fullc"><summary>The whole generated C module '
                  f'({len(c_source.splitlines())} lines)</summary><pre>{esc(c_source)}</pre></details>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kiln: {title}</title>
<style>{_CSS}</style></head><body>
<h1>kiln report: {title}</h1>
<p class="meta">kiln {esc(str(report.get("kiln_version", "")))}.
Lines marked <strong>+</strong> have generated C: click one to show it.</p>
{summary}
<p class="legend">{legend}</p>
<table class="src"><tbody>
{chr(10).join(rows)}
</tbody></table>
{full_c}
<script type="application/json" id="kiln-c">{c_json}</script>
<script>{_JS}</script>
</body></html>
"""
