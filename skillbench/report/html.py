"""One self-contained HTML page: tables, plots (base64), and every transcript behind every cell.

No external resource is referenced (inline CSS, data: images, inline script), so the file opens
offline (also from file://, where a page may not fetch() files next to it) and can be mailed or
archived as is. Transcripts are embedded gzip-compressed, one chunk per agent, and decoded by the
browser only when one is opened. The per-cell scenario tables are inline in a small report (so the
browser's find works on them); above ``INLINE_CELL_ROWS`` rows they are embedded the same way and
filled in when a cell is opened: at the paper's scale (17 × 5 × 500) the page is a few MB and its DOM
a few thousand nodes, so it opens at once.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from html import escape, unescape
from operator import attrgetter
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pandas as pd

from skillbench.core.records import Rollout
from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.engine.results import ResultRow
from skillbench.report.build import ReportContext
from skillbench.report.jobs import Job
from skillbench.report.model import Cell, Report
from skillbench.report.rows import unit_ids
from skillbench.report.tables import DIMENSION_HEADERS, Table, all_tables, looks_numeric
from skillbench.report.transcripts import TranscriptFinder

CSS = """
.filters{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:center;background:#f7f7f7;border:1px solid #ddd;padding:.5rem .8rem;position:sticky;top:0;z-index:1}
.filters label{font-size:.86rem} #filter-count{font-weight:600;margin-left:auto}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:1rem 2rem;color:#222}
h1{margin-bottom:.2rem} h2{border-bottom:2px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.86rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3} td.num{text-align:right;font-variant-numeric:tabular-nums}
.foot{font-size:.8rem;color:#555;margin:.1rem 0}
.banner{background:#fff3cd;border:1px solid #e0c36b;padding:.5rem .8rem;border-radius:4px}
.status-missing,.status-unfinished,.status-unreadable,.status-no_verdicts{background:#eee;color:#a00;font-style:italic}
.pass{color:#176b21;font-weight:600} .fail{color:#a11;font-weight:600} .none{color:#777;font-style:italic}
nav a{margin-right:.8rem} img{max-width:100%;border:1px solid #eee;margin:.5rem 0}
details.rows>summary{cursor:pointer;color:#335;margin:.4rem 0}
article.transcript{border:1px solid #ccc;border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
article.transcript:target,div.cell:target{outline:3px solid #4a7bd0}
.msg{margin:.25rem 0;padding:.3rem .6rem;border-radius:5px;white-space:pre-wrap}
.user{background:#eef4ff} .assistant{background:#f1f8ee} .tool{background:#f7f7f7;font-family:monospace;font-size:.8rem}
.cut{color:#a00;font-weight:600}
.reasoning{margin:.25rem 0;padding:.3rem .6rem;color:#555;font-size:.85rem;white-space:pre-wrap;border-left:3px solid #bbb}
.call{font-family:monospace;font-size:.8rem;background:#fff8e6;padding:.2rem .5rem;margin:.15rem 0;border-left:3px solid #e0a800}
.err{border-left:3px solid #c00} .who{font-weight:600;margin-right:.4rem}
.expl{white-space:pre-wrap;font-size:.85rem}
"""

# Above this many scenario rows in all cells, the cell tables are embedded compressed (see the module doc).
INLINE_CELL_ROWS = 5000
# A report table longer than this is collapsed (<details>): every cell is in the page, found by the browser's find
# (which opens it), but not laid out until opened. At paper scale the two 510-row breakdown tables took ~0.6 s of
# the page's load in headless Chromium.
COLLAPSED_TABLE_ROWS = 100

# Decodes embedded chunks on demand: a gzip chunk (base64 in a <script type="application/gzip">) holds
# one <div data-entry="ID">HTML</div> per entry; the browser gunzips it with DecompressionStream and parses
# it once, then keeps it. The URL's fragment opens what it names: #tr-... shows that transcript in
# #transcript-view; #cell-... fills that cell's table (when the cells are embedded compressed), as does
# the cell's "show" button.
PAGE_JS = """
(()=>{const cache={};const index=n=>{const e=document.getElementById(n);return e?JSON.parse(e.textContent):{};};
const tr=index('tr-index'),cells=index('cell-index');
function chunk(kind,n){const k=kind+n;if(!cache[k]){const b=Uint8Array.from(atob(document.getElementById(kind+'-chunk-'+n).textContent),c=>c.charCodeAt(0));
cache[k]=new Response(new Blob([b]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(t=>{
const tpl=document.createElement('template');tpl.innerHTML=t;const m={};
for(const e of tpl.content.children)m[e.dataset.entry]=e.innerHTML;return m;});}return cache[k];}
async function fill(id){const el=document.getElementById(id);if(!el||el.dataset.loaded)return;
const rows=(await chunk('cell',cells[id]))[id];if(el.dataset.loaded)return;el.dataset.loaded='1';
el.querySelector('.cell-rows').innerHTML=rows;const b=el.querySelector('button');if(b)b.remove();}
async function show(){const id=decodeURIComponent(location.hash.slice(1));
if(id in cells){await fill(id);document.getElementById(id).scrollIntoView();return;}if(!(id in tr))return;
const view=document.getElementById('transcript-view');view.innerHTML=(await chunk('tr',tr[id]))[id];
const el=document.getElementById(id);if(el)el.scrollIntoView();}
document.addEventListener('click',e=>{const b=e.target.closest('button[data-cell]');if(b)fill(b.dataset.cell);});
window.addEventListener('hashchange',show);show();})();
"""

# The rows' filter and search: every control of #row-filter narrows the cell rows (data-* attributes), cells left
# without a shown row are hidden, the count says how many rows are shown; the URL's query sets the controls on
# load and follows them (a filtered view is a link). Cells embedded compressed are filled in first. The search
# looks in a row's agent, judge, scenario, path, data-search (industry, skill) and reasons, read from the row on
# first use: the page carries each text once (a lower-cased copy per row was a third of the cells' weight).
FILTER_JS = """
(()=>{const form=document.getElementById('row-filter');if(!form)return;
const ctl=[...form.querySelectorAll('[data-filter]')],count=document.getElementById('filter-count');
const params=new URLSearchParams(location.search);
for(const c of ctl){const v=params.get(c.dataset.filter);if(v!==null){if(c.type==='checkbox')c.checked=v==='1';else c.value=v;}}
function state(){const s={};for(const c of ctl){const v=c.type==='checkbox'?(c.checked?'1':''):c.value.trim().toLowerCase();if(v)s[c.dataset.filter]=v;}return s;}
async function fillAll(){const btns=[...document.querySelectorAll('#cells button[data-cell]')];for(const b of btns)b.click();
for(let i=0;i<200&&document.querySelector('#cells button[data-cell]');i++)await new Promise(r=>setTimeout(r,25));}
async function apply(){const s=state();if(Object.keys(s).length)await fillAll();
const words=(s.q||'').split(/\s+/).filter(Boolean);let shown=0,total=0;
for(const cell of document.querySelectorAll('#cells .cell')){let any=false;
for(const tr of cell.querySelectorAll('tr[data-agent]')){total++;const d=tr.dataset,c=tr.cells;
const text=tr._search||(tr._search=[d.agent,d.judge,c[0].textContent,c[1].textContent,d.search,c[3].textContent].join(' ').toLowerCase());
const ok=(!s.agent||d.agent.toLowerCase()===s.agent)&&(!s.judge||d.judge.toLowerCase()===s.judge)&&(!s.verdict||d.verdict===s.verdict)
&&(!s.path||d.path.toLowerCase()===s.path)&&(!s.disagree||d.disagree==='1')&&words.every(w=>text.includes(w));
tr.hidden=!ok;if(ok){shown++;any=true;}}
cell.hidden=Object.keys(s).length>0&&!any&&cell.querySelector('tr[data-agent]')!==null;}
count.textContent=shown+' of '+total+' rows';form.dataset.applied=JSON.stringify(s);
const q=new URLSearchParams(s).toString();history.replaceState(null,'',location.pathname+(q?'?'+q:'')+location.hash);}
for(const c of ctl)c.addEventListener(c.tagName==='SELECT'||c.type==='checkbox'?'change':'input',apply);apply();})();
"""


def _gzip_entries(entries: dict[str, str]) -> str:
    """Base64 of the gzipped entries, each ``<div data-entry="id">html</div>`` (HTML, not JSON: nothing
    to escape; mtime=0: equal reports give byte-identical pages)."""
    text = "".join(f'<div data-entry="{escape(key)}">{html}</div>' for key, html in entries.items())
    # Level 3: at paper scale 0.13 s for 34 MB of articles (level 6: 0.34 s) for a page 1 MB larger.
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=3, mtime=0)).decode()


_ENTRY = re.compile(r'<div data-entry="([^"]*)">')


def _split_entries(text: str) -> dict[str, str]:
    """``_gzip_entries``'s text back into {id: html}: our entries' HTML never holds the marker, since
    every text in it is escaped."""
    starts = list(_ENTRY.finditer(text))
    ends = [m.start() for m in starts[1:]] + [len(text)]
    return {unescape(m.group(1)): text[m.end() : end - len("</div>")] for m, end in zip(starts, ends, strict=True)}


def _chunks(kind: str, groups: Iterable[tuple[str, dict[str, str]]]) -> tuple[dict[str, int], list[str]]:
    """One compressed chunk per (agent, {id: html}) group, compressed as it comes (so only one agent's
    HTML is ever held uncompressed), and the index id → chunk number."""
    index: dict[str, int] = {}
    blobs: list[str] = []
    for number, (agent, articles) in enumerate(groups):
        index.update(dict.fromkeys(articles, number))
        blobs.append(
            f'<script type="application/gzip" id="{kind}-chunk-{number}" data-agent="{escape(agent)}">'
            f"{_gzip_entries(articles)}</script>"
        )
    return index, blobs


def _index_script(kind: str, index: dict[str, int]) -> str:
    text = json.dumps(index).replace("</", "<\\/")  # ids are hex, but never let data close the script
    return f'<script type="application/json" id="{kind}-index">{text}</script>'


# Names, ids and kinds repeat across thousands of transcripts: escaped once each (bounded, so a long-lived
# process that renders many reports holds at most this many).
_label = functools.lru_cache(maxsize=8192)(escape)


def anchor(prefix: str, *parts: str) -> str:
    """A stable, HTML-safe id for labels that may hold any character."""
    return f"{prefix}-" + hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:12]


def _cell(text: str, href: str | None = None, css: str = "") -> str:
    content = f'<a href="#{href}">{escape(text)}</a>' if href else escape(text)
    classes = " ".join(c for c in (css, "num" if looks_numeric(text) and text.strip() else "") if c)
    return f'<td class="{classes}">{content}</td>' if classes else f"<td>{content}</td>"


def html_table(
    table: Table,
    link: Callable[[int, int], str | None] | None = None,
    css: Callable[[int, int], str] | None = None,
) -> str:
    """A table section; ``link``/``css`` give an anchor and a class per (row, column)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    body = []
    for i, row in enumerate(table.display):
        cells = "".join(
            _cell(v, link(i, j) if link else None, css(i, j) if css else "") for j, v in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    foot = "".join(f'<p class="foot">{escape(n)}</p>' for n in table.footnotes)
    rows = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    if len(body) > COLLAPSED_TABLE_ROWS:
        rows = f'<details class="rows"><summary>{len(body)} rows</summary>{rows}</details>'
    return f'<section id="{table.key}"><h2>{escape(table.title)}</h2>{rows}{foot}</section>'



def _verdict(passed: Any) -> str:
    if passed is True:
        return '<span class="pass">pass</span>'
    if passed is False:
        return '<span class="fail">fail</span>'
    return '<span class="none">no verdict</span>'


def messages_html(rollout: Rollout) -> str:
    """A rollout's messages, calls and results as HTML (the system prompt left out); the lab's page uses it too.
    Calls and results are paired with their records by the call's identity and named as the judge prompt and the
    viewer name them (the catalogue name), so the three views of one conversation agree."""
    records = rollout.call_records()
    out: list[str] = []
    for message in rollout.messages:
        if message.role == "system":
            continue
        cut = f' <span class="cut">[{escape(message.cut)}]</span>' if message.cut else ""
        if message.role == "user":
            out.append(
                f'<div class="msg user"><span class="who">[{message.turn}] caller{cut}</span>{escape(message.content or "")}</div>'
            )
        elif message.role == "assistant":
            if message.reasoning:  # shown to the reader; the judge prompt renders content only
                out.append(
                    f'<details class="reasoning"><summary>[{message.turn}] agent reasoning (not shown to the judge)'
                    f"</summary>{escape(message.reasoning)}</details>"
                )
            if message.content or cut:
                out.append(
                    f'<div class="msg assistant"><span class="who">[{message.turn}] agent{cut}</span>{escape(message.content or "")}</div>'
                )
            for call in message.tool_calls:
                args = (
                    call.raw_arguments
                    if call.raw_arguments is not None
                    else json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
                )
                record = records.get(call.seq)
                offered = "" if record is None or record.offered else " (NOT in the offered toolkit)"
                name = record.name if record is not None else call.name
                out.append(
                    f'<div class="call"><span class="who">[{message.turn}] tool call</span>{escape(name)} {escape(args)}{escape(offered)}</div>'
                )
        elif message.role == "tool":
            record = records.get(message.call_seq)
            failed = record is not None and record.is_error
            status = (
                f"error: {record.error_kind}"
                if failed and record and record.error_kind
                else ("error" if failed else "ok")
            )
            css = "msg tool err" if failed else "msg tool"
            name = record.name if record is not None else message.name or ""
            out.append(
                f'<div class="{css}"><span class="who">[{message.turn}] result {escape(name)} ({escape(status)})</span>{escape(message.content or "")}</div>'
            )
    ending = f"conversation ended: {rollout.termination}" + (
        f" — {rollout.termination_detail}" if rollout.termination_detail else ""
    )
    out.append(f'<p class="foot">{escape(ending)}</p>')
    return "".join(out)


def _rule_checks(row: ResultRow) -> str:
    if not row.rule_checks:
        return '<p class="foot">No rule checks recorded.</p>'
    lines = "".join(
        f"<tr><td>{_label(c.name)}</td><td>{'passed' if c.passed else 'FAILED'}</td><td>{'hard' if c.hard else 'soft'}</td><td>{_label(c.detail)}</td></tr>"
        for c in row.rule_checks
    )
    rule = {True: "passes", False: "fails", None: "n/a (infra error)"}[row.rule_passed]
    # The kind shown is the check's default; one transcript may be scored by jobs with different pass rules
    # (hard_checks), and each judge row's fail reasons below name the hard failures under its job's rule.
    return (
        f"<h4>Rule checks (rule-based verdict: {rule})</h4><table><tr><th>Check</th><th>Result</th>"
        f"<th>Default kind</th><th>Detail</th></tr>{lines}</table>"
        '<p class="foot">A pass rule\'s <code>hard_checks</code> can make a soft check hard; the fail reasons '
        "of each judge's verdict apply that job's rule.</p>"
    )


_JUDGES_HEAD = (
    "<h4>Judges</h4><table><tr><th>Judge</th><th>Verdict</th><th>Task completion</th>"
    + "".join(f"<th>{escape(DIMENSION_HEADERS[d])}</th>" for d in DIMENSION_NAMES)
    + "<th>Hallucinated action</th><th>Fail reasons</th></tr>"
)  # the same for every transcript (8,500 of them at paper scale)


_dimension_values = attrgetter(*DIMENSION_NAMES)
_DIMENSION_CELLS = '<td class="num">{}</td>' * len(DIMENSION_NAMES)


def _judges(rows: list[ResultRow]) -> str:
    body = []
    for row in rows:
        s = row.scores
        if s is None:
            why = row.judge_error or row.infra_error or "no scores"
            body.append(
                f"<tr><td>{_label(row.judge)}</td><td>{_verdict(row.passed)}</td><td colspan='{len(DIMENSION_NAMES) + 3}'>{escape(why)}</td></tr>"
            )
            if row.judge_attempts:  # the evidence: what the judge actually said, attempt by attempt
                body.append(f"<tr><td></td><td colspan='{len(DIMENSION_NAMES) + 4}'>{_judge_attempts(row)}</td></tr>")
            continue
        dims = _DIMENSION_CELLS.format(*_dimension_values(s))
        reasons = _label("; ".join(row.fail_reasons))
        body.append(
            f"<tr><td>{_label(row.judge)}</td><td>{_verdict(row.passed)}</td><td>{_label(s.task_completion)}</td>{dims}"
            f"<td>{'yes' if s.hallucinated_action else 'no'}</td><td>{reasons}</td></tr>"
            f"<tr><td></td><td colspan='{len(DIMENSION_NAMES) + 4}' class='expl'>{escape(s.explanation)}</td></tr>"
        )
    return f"{_JUDGES_HEAD}{''.join(body)}</table>"


def _judge_attempts(row: ResultRow) -> str:
    items = "".join(
        f"<details class='attempt'><summary>attempt {i}: {escape(a.reason.replace('_', ' '))}"
        f"{' (finish_reason ' + escape(a.finish_reason) + ')' if a.finish_reason else ''} — {escape(a.detail[:300])}"
        f"</summary><pre class='tool'>{escape(a.reply) or '(no reply text)'}</pre></details>"
        for i, a in enumerate(row.judge_attempts, start=1)
    )
    return f"<div class='foot'>The judge's raw replies ({len(row.judge_attempts)}):</div>{items}"


def _raw(value: Any) -> str:
    return f"<pre class='tool'>{escape(json.dumps(value, indent=1, ensure_ascii=False)[:20000])}</pre>"


def _cell_of(report: Report, table_row: int, column: int) -> Cell | None:
    """The agent × judge cell behind a Table 1 position (judge columns start at index 2)."""
    judge = column - 2
    if 0 <= judge < len(report.judges):
        return report.cell(report.table1[table_row].agent, report.judges[judge])
    return None


def _header(report: Report) -> list[str]:
    counts = report.counts
    parts = [
        f"<header><h1>{escape(report.title)}</h1>",
        f'<p class="foot">Generated {escape(report.generated_at)} from {escape(", ".join(report.sources))}. '
        f"{counts['jobs_finished']} finished job(s) of {counts['jobs']}; {counts['rows']} rows, "
        f"{counts['scored']} with a verdict, {counts['judge_errors']} judge error(s), "
        f"{counts['infra_errors']} infra error(s), {counts['cells_missing']} missing cell(s); "
        f"pass rule(s): {escape(', '.join(report.pass_rules) or '—')}.</p>",
    ]
    if counts.get("jobs_running"):
        parts.append('<p class="banner">STILL RUNNING: a process is still writing these jobs; the results are partial '
                     '(see the notes).</p>')
    if counts.get("lines_damaged"):
        parts.append(f'<p class="banner">DAMAGED INPUT: {counts["lines_damaged"]} line(s) of results.jsonl skipped '
                     "(named in the notes); every other row is used.</p>")
    if report.simulated:
        parts.append(
            '<p class="banner">Contains SIMULATED models: offline, deterministic stand-ins. '
            "Their numbers are not real model results.</p>"
        )
    if report.rescore:
        parts.append(
            f'<p class="banner">Rescored with pass rule {escape(str(report.rescore.get("rule_name")))}: '
            "no model calls were made.</p>"
        )
    return parts


def _trial(row: ResultRow) -> str:
    """" · trial t" after a scenario id, for rows of a run with repeated trials (trial > 0)."""
    return f" · trial {row.trial}" if row.trial else ""


def _transcript(unit_id: str, agent: str, rows: list[ResultRow], finder: TranscriptFinder, job: Path) -> str:
    first = rows[0]
    rollout, problem = finder.load(job, first.rollout_key)
    body = [
        f'<article class="transcript" id="{unit_id}">',
        f"<h3>{_label(agent)} — {_label(first.scenario_id)}{_trial(first)}</h3>",
        f'<p class="foot">skill {_label(first.skill_id)} · path {_label(first.path)} · persona {_label(first.persona)} · '
        f"expected {_label(first.expected_outcome)} · ended {_label(first.termination)} after {first.turns} turn(s) · "
        f"{first.tool_calls} tool call(s), {first.tool_errors} error(s) · rollout {escape(first.rollout_key or '—')}</p>",
    ]
    if first.infra_error:
        body.append(f'<p class="banner">Infrastructure error: {escape(first.infra_error)}</p>')
    if isinstance(rollout, Rollout):
        body.append(messages_html(rollout))
    elif rollout is not None:
        body.append(_raw(rollout))
    if problem:
        body.append(f'<p class="foot">Transcript: {escape(problem)}</p>')
    body.append(_rule_checks(first))
    body.append(_judges(rows))
    body.append("</article>")
    return "".join(body)


def _transcript_section(units: dict[str, tuple[str, Path, list[ResultRow]]], finder: TranscriptFinder) -> str:
    """Every transcript, compressed per agent; shown one at a time when a link to it is followed.
    ``units`` holds each agent's transcripts together (the frame is sorted by agent)."""
    groups = (
        (agent, {unit_id: _transcript(unit_id, agent, rows, finder, job) for unit_id, (_, job, rows) in members})
        for agent, members in itertools.groupby(units.items(), key=lambda item: item[1][0])
    )
    return embedded_transcripts(groups, 'follow a "transcript" link in the cells above to open one')


def embedded_transcripts(groups: Iterable[tuple[str, dict[str, str]]], hint: str) -> str:
    """The transcripts section (``hint`` is trusted HTML): each (group, {id: article html}) becomes one gzip
    chunk, decoded on first use by ``PAGE_JS`` (which the page must include once); a link to ``#<id>``
    shows that article. The lab's page embeds its transcripts the same way."""
    index, blobs = _chunks("tr", groups)
    return (
        '<section id="transcripts"><h2>Transcripts</h2>'
        f'<p class="foot">{len(index)} transcript(s); {hint} '
        "(needs JavaScript).</p>"
        f'<div id="transcript-view"></div>{_index_script("tr", index)}{"".join(blobs)}</section>'
    )


def _decode(kind: str, page: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for blob in re.findall(
        rf'<script type="application/gzip" id="{kind}-chunk-\d+"[^>]*>([^<]*)</script>', page
    ):
        found.update(_split_entries(gzip.decompress(base64.b64decode(blob)).decode("utf-8")))
    return found


def decode_transcripts(page: str) -> dict[str, str]:
    """The transcript articles embedded in a page, by id (for tests and tools; the browser does the same)."""
    return _decode("tr", page)


def decode_cells(page: str) -> dict[str, str]:
    """The cell tables embedded compressed in a large page, by cell id (empty when they are inline)."""
    return _decode("cell", page)


def _verdict_name(passed: Any) -> str:
    return "pass" if passed is True else "fail" if passed is False else "error"


def _cell_rows(entries: list[tuple[ResultRow, str]], transcripts: bool, agent: str = "", judge: str = "",
               disagreeing: frozenset[str] = frozenset()) -> str:
    """A cell's scenario rows; each carries what the page's filter reads (agent, judge, verdict, path, whether the
    judges disagree on its transcript, and what the search box looks in beside the row's own text: industry, skill)."""
    lines = []
    for row, unit_id in entries:
        link = f'<a href="#{unit_id}">transcript</a>' if transcripts else ""
        why = "; ".join(row.fail_reasons) or row.judge_error or row.infra_error or ""
        if row.termination == "model_error":
            why = f"model error: {row.termination_detail}; {why}"
        search = f"{row.industry} {row.skill_id}"
        lines.append(
            f'<tr data-agent="{_label(agent)}" data-judge="{_label(judge)}" data-verdict="{_verdict_name(row.passed)}" '
            f'data-path="{_label(row.path)}" data-disagree="{"1" if unit_id in disagreeing else ""}" '
            f'data-search="{_label(search)}">'
            f"<td>{_label(row.scenario_id)}{_trial(row)}</td><td>{_label(row.path)}</td><td>{_verdict(row.passed)}</td>"
            f"<td>{_label(why)}</td><td>{link}</td></tr>"
        )
    return (
        "<table><tr><th>Scenario</th><th>Path</th><th>Verdict</th><th>Reasons</th><th></th></tr>"
        f"{''.join(lines)}</table>"
    )


def _select(name: str, label: str, values: Iterable[str]) -> str:
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return f'<label>{label} <select id="filter-{name}" data-filter="{name}"><option value="">any</option>{options}</select></label>'


def _filter_bar(report: Report, paths: list[str], total: int) -> str:
    """The controls of the rows' filter and search (FILTER_JS); the URL's query sets them too
    (``report.html?agent=A&judge=J&verdict=fail&path=transfer&disagree=1&q=refund``), so a filtered view is a link."""
    return (
        '<form class="filters" id="row-filter" onsubmit="return false">'
        + _select("agent", "Agent", report.agents) + _select("judge", "Judge", report.judges)
        + _select("verdict", "Verdict", ["pass", "fail", "error"]) + _select("path", "Path", paths)
        + '<label><input type="checkbox" id="filter-disagree" data-filter="disagree"> judges disagree</label>'
        + '<label>Search <input type="search" id="filter-q" data-filter="q" placeholder="scenario, skill, reason…"></label>'
        + f'<span id="filter-count">{total} of {total} rows</span></form>'
    )


def _cell_section(
    report: Report, cells: dict[tuple[str, str], list[tuple[ResultRow, str]]], transcripts: bool, inline: bool,
    disagreeing: frozenset[str] = frozenset(),
) -> str:
    """Every cell's scenario table: inline, or (``inline`` False) compressed per agent and filled in when
    the cell is opened, behind a heading that stays in the page (Table 1's links still land on it). A filter bar
    above them filters and searches the rows of every cell."""
    paths = sorted({row.path for entries in cells.values() for row, _ in entries})
    total = sum(len(entries) for entries in cells.values())
    parts = ['<section id="cells"><h2>Cells — every scenario of every agent × judge</h2>', _filter_bar(report, paths, total)]
    embedded: list[tuple[str, dict[str, str]]] = []
    for agent in report.agents:
        tables: dict[str, str] = {}
        for judge in report.judges:
            entries = cells.get((agent, judge))
            if not entries:
                continue
            cell_id = anchor("cell", agent, judge)
            heading = f'<div class="cell" id="{cell_id}"><h3>{escape(agent)} × {escape(judge)}</h3>'
            rows = _cell_rows(entries, transcripts, agent, judge, disagreeing)
            if inline:
                parts.append(f"{heading}{rows}</div>")
                continue
            tables[cell_id] = rows
            parts.append(
                f'{heading}<p class="foot">{len(entries)} scenario(s) '
                f'<button type="button" data-cell="{cell_id}">show</button></p><div class="cell-rows"></div></div>'
            )
        if tables:
            embedded.append((agent, tables))
    if embedded:
        index, blobs = _chunks("cell", embedded)
        parts.append(_index_script("cell", index) + "".join(blobs))
    parts.append("</section>")
    return "".join(parts)


class PageOptions(TypedDict, total=False):
    """``html_parts``' keyword settings (defaults there)."""

    transcripts: bool
    tables: list[Table] | None
    inline_cell_rows: int


def render_html(report: Report, frame: pd.DataFrame, jobs: list[Job], plots: dict[str, bytes],
                **options: Unpack[PageOptions]) -> str:
    """The page as one string (``html_parts`` joined); ``skillbench report`` writes the parts as they come."""
    return "".join(html_parts(report, frame, jobs, plots, **options))


def html_parts(
    report: Report,
    frame: pd.DataFrame,
    jobs: list[Job],
    plots: dict[str, bytes],
    *,
    transcripts: bool = True,
    tables: list[Table] | None = None,
    inline_cell_rows: int = INLINE_CELL_ROWS,
) -> Iterator[str]:
    """The page, part by part (head, tables, plots, cells, transcripts), so a writer never holds the whole page:
    at paper scale it is 5.5 MB of UTF-8, 11 MB as one Python string (one non-ASCII character makes every
    character two bytes) and 5.5 MB more encoded. ``frame`` decides which rows are shown (finished,
    de-duplicated); the rows' full records (rule checks, scores) come from the jobs. ``tables``: the registered
    tables, when the caller already has them. Cell tables are inline up to ``inline_cell_rows`` rows in all."""
    if tables is None:
        tables = all_tables(ReportContext.of(report, frame, jobs))
    rows_by_key: dict[tuple[str, str, int], ResultRow] = {
        (str(j.path), r.scenario_id, r.trial): r for j in jobs for r in j.rows
    }

    def t1_link(i: int, j: int) -> str | None:
        cell = _cell_of(report, i, j)
        return anchor("cell", cell.agent, cell.judge) if cell is not None and cell.scenarios else None

    def t1_css(i: int, j: int) -> str:
        cell = _cell_of(report, i, j)
        return f"status-{cell.status}" if cell is not None and cell.pass_rate is None else ""

    yield (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(report.title)}</title><style>{CSS}</style></head><body>"
    )
    yield from _header(report)
    nav = [(t.key, t.title.split(" —")[0]) for t in tables]
    nav += [("plots", "Plots"), ("notes", "Notes"), ("cells", "Cells")]
    nav += [("transcripts", "Transcripts")] if transcripts else []
    yield "</header><nav>" + "".join(f'<a href="#{k}">{escape(label)}</a>' for k, label in nav) + "</nav>"
    for table in tables:
        # Table 1's judge columns link to their cells below; other tables are plain.
        yield html_table(table, t1_link, t1_css) if table.key == "table1" else html_table(table)
    yield '<section id="plots"><h2>Plots</h2>'
    for name, png in plots.items():
        yield (
            f'<figure><img alt="{escape(name)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
            f'<figcaption class="foot">{escape(name)}</figcaption></figure>'
        )
    yield "</section>"
    notes = "".join(f"<li>{escape(n)}</li>" for n in report.notes) or "<li>none</li>"
    yield f'<section id="notes"><h2>Notes</h2><ul>{notes}</ul></section>'

    # One transcript per agent × rollout, shared by every judge that scored it.
    units: dict[str, tuple[str, Path, list[ResultRow]]] = {}
    cells: dict[tuple[str, str], list[tuple[ResultRow, str]]] = {}
    unit_anchors: dict[str, str] = {}  # each transcript's anchor, hashed once (not once per judge)
    job_paths: dict[str, Path] = {}
    columns = (frame[c].tolist() for c in ("agent_label", "judge_label", "job", "scenario_id", "trial"))  # fast to iterate
    for agent, judge, job, scenario, trial, unit in zip(*columns, unit_ids(frame).tolist(), strict=True):
        row = rows_by_key[(job, scenario, trial)]
        if unit not in unit_anchors:
            unit_anchors[unit] = anchor("tr", unit)
        unit_id = unit_anchors[unit]
        if job not in job_paths:
            job_paths[job] = Path(job)
        units.setdefault(unit_id, (agent, job_paths[job], []))[2].append(row)
        cells.setdefault((agent, judge), []).append((row, unit_id))

    # A transcript the judges disagree on: both a pass and a fail among its rows' verdicts.
    verdicts: dict[str, set[bool]] = {}
    for unit_id in units:
        verdicts[unit_id] = {bool(r.passed) for r in units[unit_id][2] if r.passed is not None}
    disagreeing = frozenset(u for u, seen in verdicts.items() if len(seen) > 1)
    yield _cell_section(report, cells, transcripts, inline=len(frame) <= inline_cell_rows, disagreeing=disagreeing)
    if transcripts:
        yield _transcript_section(units, TranscriptFinder(jobs))
    yield f"<script>{PAGE_JS}{FILTER_JS}</script></body></html>"

