"""Stream readers: every layout, and errors that name the file and the line."""

from dataclasses import replace

import pytest
from rdflib import BNode

from conformance.streams.generate import write
from conformance.streams.readers import StreamInputError, nquads, trig, yabench
from oracle.model import Stream, StreamError

T = "https://w3id.org/rspconf#time"


def test_nquads_one_graph_per_element_in_file_order(tmp_path):
    f = tmp_path / "s.nq"
    f.write_text(
        '<http://e/a> <http://e/p> "1" <http://e/g1> .\n'
        f'<http://e/g1> <{T}> "10" .\n'
        '<http://e/b> <http://e/p> "2" <http://e/g2> .\n'
        '<http://e/c> <http://e/p> "3" <http://e/g2> .\n'
        f'<http://e/g2> <{T}> "20" .\n')
    s = nquads(f)
    assert [(e.t, len(e.triples)) for e in s.elements] == [(10, 1), (20, 2)]


def test_nquads_going_back_in_time_names_file_and_line(tmp_path):
    f = tmp_path / "s.nq"
    f.write_text(
        '<http://e/a> <http://e/p> "1" <http://e/g1> .\n'
        f'<http://e/g1> <{T}> "20" .\n'
        '<http://e/b> <http://e/p> "2" <http://e/g2> .\n'
        f'<http://e/g2> <{T}> "10" .\n')
    with pytest.raises(StreamInputError, match=r"s\.nq:4: timestamp 10 is earlier than the previous element's 20"):
        nquads(f)


def test_unparsable_line_names_file_line_and_column(tmp_path):
    f = tmp_path / "s.nq"
    f.write_text('<http://e/a> <http://e/p> "1" <http://e/g1> .\n<http://e/a> oops .\n')
    with pytest.raises(StreamInputError, match=r"s\.nq:2: expected a predicate .* at column 14"):
        nquads(f)


def test_yabench_lines_and_generated_formats_agree(tmp_path):
    params = dict(stations=4, interval=1000, duration=3000, seed=11)
    for fmt in ("nquads", "trig", "yabench"):
        with open(tmp_path / f"s.{fmt}", "w") as out:
            write("yabench", fmt, out, **params)
    a = nquads(tmp_path / "s.nquads")
    b = trig(tmp_path / "s.trig")
    c = yabench(tmp_path / "s.yabench")
    assert [e.t for e in a.elements] == [e.t for e in b.elements]
    assert [set(e.triples) for e in a.elements] == [set(e.triples) for e in b.elements]
    assert sorted(tr for e in a.elements for tr in e.triples) == sorted(tr for e in c.elements for tr in e.triples)
    assert len(c.elements) == 7 * len(a.elements)


def test_yabench_bad_line(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text('<http://e/a> <http://e/p> <http://e/o> "5" .\n<http://e/a> <http://e/p> <http://e/o> .\n')
    with pytest.raises(StreamInputError, match=r"s\.txt:2: expected '<s> <p> <o> \"T\" \.'"):
        yabench(f)


def test_the_model_refuses_unordered_streams():
    from oracle.model import Element
    with pytest.raises(StreamError, match="earlier than the previous"):
        Stream((Element(5, ()), Element(3, ())))


TERMS = [  # what the fast path (Oxigraph's parser) must read exactly as the line reader and rdflib do
    ('<http://e/s\\u00E9>', '<http://e/p>', '"01"^^<http://www.w3.org/2001/XMLSchema#integer>'),
    ('_:b1', '<http://e/p>', '"chat"@fr'),
    ('<http://e/t>', '<http://e/q>', '_:b1'),
    ('<http://e/t>', '<http://e/p>', '"line\\nbreak \\"q\\" \\u00E9"'),
    ('<http://e/t>', '<http://e/p>', '"1.0E0"^^<http://www.w3.org/2001/XMLSchema#double>'),
]


def _written(tmp_path, fmt: str):
    lines = []
    if fmt == "nquads":
        for i, (s, p, o) in enumerate(TERMS):
            lines += [f"{s} {p} {o} <http://e/g{i // 2}> .", "# a comment", ""]
        lines += [f'<http://e/g{g}> <{T}> "{10 * g}" .' for g in range(3)]
        return _file(tmp_path / "s.nq", lines)
    if fmt == "yabench":
        return _file(tmp_path / "s.txt", [f'{s} {p} {o} "{5 * i}" .' for i, (s, p, o) in enumerate(TERMS)] + ["# end"])
    lines = ["@prefix e: <http://e/> ."]
    for g in range(3):
        lines += [f"e:g{g} {{"] + [f"  {s} {p} {o} ." for s, p, o in TERMS[2 * g:2 * g + 2]] + ["}"]
    lines += [f'e:g{g} <{T}> "{10 * g}" .' for g in range(3)] + ["<http://e/g9> { }", f'<http://e/g9> <{T}> "40" .']
    return _file(tmp_path / "s.trig", lines)


def _labelled_in_order(stream):
    """The stream with its blank nodes renamed b0, b1, … by first appearance (equality up to renaming)."""
    names: dict = {}

    def named(term):
        return names.setdefault(term, BNode(f"b{len(names)}")) if isinstance(term, BNode) else term
    return Stream(tuple(replace(e, triples=tuple(tuple(map(named, t)) for t in e.triples)) for e in stream.elements))


def _file(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["nquads", "yabench", "trig"])
def test_the_fast_parser_reads_every_term_as_the_slow_readers_do(tmp_path, monkeypatch, fmt):
    from conformance.streams import oxparse
    from conformance.streams import readers as streams

    path = _written(tmp_path, fmt)
    fast = streams.READERS[fmt](path)
    monkeypatch.setattr(oxparse, "quads", lambda data, fmt: None)  # the line reader (rdflib for TriG)
    slow = streams.READERS[fmt](path)
    if fmt == "trig":  # rdflib's TriG parser renames blank nodes at random; Oxigraph keeps the file's labels
        assert {o for e in fast.elements for _, _, o in e.triples if isinstance(o, BNode)} == {BNode("b1")}
        fast, slow = _labelled_in_order(fast), _labelled_in_order(slow)
    assert fast == slow
    assert [e.source for e in fast.elements] == [e.source for e in slow.elements]
    if fmt == "trig":
        assert [(e.t, len(e.triples), e.source.rsplit(":", 1)[1]) for e in fast.elements] == [
            (0, 2, "2"), (10, 2, "6"), (20, 1, "10"), (40, 0, "16")]
    literals = {str(o) for e in fast.elements for _, _, o in e.triples}
    assert {"01", "1.0E0", 'line\nbreak "q" é'} <= literals  # as written, escapes read


def test_the_fast_parser_leaves_xsd_string_and_relative_iris_to_the_slow_readers(tmp_path):
    from rdflib import Literal, URIRef
    from rdflib.namespace import XSD

    from conformance.streams import oxparse

    assert oxparse.quads(b'<http://e/a> <http://e/p> "x"^^<http://www.w3.org/2001/XMLSchema#string> .\n', "nt") is None
    assert oxparse.quads(b'<a> <http://e/p> "x" .\n', "nt") is None
    f = _file(tmp_path / "s.txt", ['<http://e/a> <http://e/p> "x"^^<http://www.w3.org/2001/XMLSchema#string> "1" .',
                                   '<a> <http://e/p> "y" "2" .'])
    s = yabench(f)
    assert s.elements[0].triples[0][2] == Literal("x", datatype=XSD.string)
    assert s.elements[1].triples[0][0] == URIRef("a")
