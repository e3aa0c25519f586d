"""JSON Lines are split where JSON can hold no raw line break, so no row's text can split a row."""

from __future__ import annotations

import json

from skillbench.core.jsonl import json_lines


def test_rows_holding_unicode_line_separators_stay_whole() -> None:
    rows = [{"explanation": "first\u2028second\u2029third\x85fourth\x0bfifth\x1cend"}, {"n": 2}]
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    assert len(text.splitlines()) > len(rows)  # what str.splitlines would have made of it
    assert [json.loads(line) for line in json_lines(text)] == rows
    assert [json.loads(line) for line in json_lines(text.encode())] == rows


def test_the_last_newline_ends_a_line_and_crlf_is_whitespace() -> None:
    assert json_lines('{"a": 1}\n{"b": 2}') == ['{"a": 1}', '{"b": 2}']  # a cut-off last line is still a line
    assert json_lines(b'{"a": 1}\r\n\r\n{"b": 2}\r\n') == [b'{"a": 1}\r', b"\r", b'{"b": 2}\r']
    assert json_lines("") == [] and json_lines(b"\n") == [b""]
