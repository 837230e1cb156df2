"""Stream readers: every layout, and errors that name the file and the line."""

import pytest

from conformance.generate import write
from conformance.streams import StreamInputError, nquads, trig, yabench
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
