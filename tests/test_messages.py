"""RDF Message Logs (conformance/streams/messages.py), tested as the RSP Community Group's draft
interoperability tests state them (w3c-cg/rsp, spec/messages-tests.md, read 2026-11-24): 11 parsing tests,
2 round trips, 3 errors; then a corpus case read from a message log gives the verdicts of its N-Quads form."""

import pytest
from rdflib import BNode, URIRef

from conformance.corpus.cases import load_corpus
from conformance.run.harness import run_case
from conformance.streams import messages
from engines.reference import ReferenceEngine
from oracle.model import Stream

EX = "http://example.org/"


def ex(name):
    return URIRef(EX + name)


def quads(text, fmt="trig"):
    """Each message as a list of (s, p, o, g) with IRIs shortened to their local names (g None: default)."""
    short = lambda t: None if t is None else (str(t)[len(EX):] if str(t).startswith(EX) else t)  # noqa: E731
    return [[tuple(short(x) for x in q) for q in m.quads] for m in messages.parse(text, "test", fmt)]


ONE = f"<{EX}s1> <{EX}p> <{EX}o1> ."
TWO = f"<{EX}s2> <{EX}p> <{EX}o2> ."


def test_1_single_message_without_delimiter():
    assert quads(f'VERSION "1.2-messages"\n{ONE}\n', "turtle") == [[("s1", "p", "o1", None)]]


def test_2_two_messages_with_MESSAGE():
    assert quads(f'VERSION "1.2-messages"\n{ONE}\nMESSAGE\n{TWO}\n', "turtle") == [
        [("s1", "p", "o1", None)], [("s2", "p", "o2", None)]]


def test_3_two_messages_with_at_message():
    text = f'@version "1.2-messages" .\n@prefix ex: <{EX}> .\n\nex:s1 ex:p ex:o1 .\n@message .\nex:s2 ex:p ex:o2 .\n'
    assert quads(text, "turtle") == [[("s1", "p", "o1", None)], [("s2", "p", "o2", None)]]


def test_4_empty_first_message():
    assert quads(f'VERSION "1.2-messages"\nMESSAGE\n{ONE}\n', "turtle") == [[], [("s1", "p", "o1", None)]]


def test_5_empty_message_between_non_empty_messages():
    assert quads(f'VERSION "1.2-messages"\n{ONE}\nMESSAGE\nMESSAGE\n{TWO}\n', "turtle") == [
        [("s1", "p", "o1", None)], [], [("s2", "p", "o2", None)]]


def test_6_final_delimiter_does_not_create_an_extra_empty_message():
    assert quads(f'VERSION "1.2-messages"\n{ONE}\nMESSAGE\n', "turtle") == [[("s1", "p", "o1", None)]]


def test_7_n_quads_messages_preserve_graph_names():
    text = (f'VERSION "1.2-messages"\n<{EX}s1> <{EX}p> <{EX}o1> <{EX}g1> .\nMESSAGE\n'
            f'<{EX}s2> <{EX}p> <{EX}o2> <{EX}g2> .\n')
    assert quads(text, "nquads") == [[("s1", "p", "o1", "g1")], [("s2", "p", "o2", "g2")]]


def test_8_message_with_default_graph_and_named_graph_quads():
    text = (f'VERSION "1.2-messages"\nPREFIX ex: <{EX}>\n\nex:s1 ex:p ex:o1 .\nex:g {{\n  ex:s2 ex:p ex:o2 .\n'
            '  ex:s3 ex:p ex:o3 .\n}\nMESSAGE\nex:s4 ex:p ex:o4 .\n')
    first, second = quads(text)
    assert sorted(first, key=str) == sorted([("s1", "p", "o1", None), ("s2", "p", "o2", "g"), ("s3", "p", "o3", "g")],
                                            key=str)
    assert second == [("s4", "p", "o4", None)]


def test_9_blank_node_labels_are_scoped_per_message():
    first, second = messages.parse(f'VERSION "1.2-messages"\n_:b0 <{EX}p> <{EX}o1> .\nMESSAGE\n_:b0 <{EX}p> <{EX}o2> .\n',
                                   "test", "turtle")  # one continuous input, one call
    (a,), (b,) = first.quads, second.quads
    assert isinstance(a[0], BNode) and isinstance(b[0], BNode) and a[0] != b[0]


def test_10_repeated_prefixes_across_messages():
    text = (f'VERSION "1.2-messages"\nPREFIX ex: <{EX}one/>\nex:s ex:p ex:o .\nMESSAGE\nPREFIX ex: <{EX}two/>\n'
            'ex:s ex:p ex:o .\n')
    assert quads(text, "turtle") == [[("one/s", "one/p", "one/o", None)], [("two/s", "two/p", "two/o", None)]]


def test_a_delimiter_right_after_a_sparql_style_prefix_line():
    text = f'VERSION "1.2-messages"\nPREFIX ex: <{EX}>\nMESSAGE\nex:s1 ex:p ex:o1 .\n'
    assert quads(text, "turtle") == [[], [("s1", "p", "o1", None)]]


def test_11_message_boundary_after_a_graph_block():
    text = f'VERSION "1.2-messages"\n<{EX}g> {{\n  <{EX}a> <{EX}b> <{EX}c> .\n}}\nMESSAGE\n<{EX}d> <{EX}e> <{EX}f> .\n'
    assert quads(text) == [[("a", "b", "c", "g")], [("d", "e", "f", None)]]


@pytest.mark.parametrize("given", [
    [[(ex("s1"), ex("p"), ex("o1"), None)], [], [(ex("s2"), ex("p"), ex("o2"), None)]],
    [[(ex("a"), ex("b"), ex("c"), ex("g"))], [(ex("d"), ex("e"), ex("f"), ex("g"))]],
], ids=["an-empty-message-between", "named-graph-quads"])
def test_serialization_round_trips(given):
    written = messages.write([messages.Message(tuple(q)) for q in given])
    assert [list(m.quads) for m in messages.parse(written, "round trip", "nquads")] == given


def test_error_1_a_delimiter_without_message_support_is_rejected():
    with pytest.raises(messages.MessagesError, match="does not open with VERSION"):
        messages.parse(f"{ONE}\nMESSAGE\n", "test", "turtle")


def test_error_2_at_message_without_its_trailing_dot():
    with pytest.raises(messages.MessagesError, match=r"test:3: '@message' must be followed by ' \.'"):
        messages.parse(f'VERSION "1.2-messages"\n{ONE}\n@message <{EX}invalid>\n', "test", "turtle")


def test_error_3_a_delimiter_inside_an_open_graph_block():
    text = f'VERSION "1.2-messages"\n<{EX}g> {{\n  <{EX}a> <{EX}b> <{EX}c> .\n@message\n  <{EX}d> <{EX}e> <{EX}f> .\n}}\n'
    with pytest.raises(messages.MessagesError, match="test:4: a message delimiter inside a graph block"):
        messages.parse(text, "test")


def test_a_corpus_case_read_from_a_message_log_gives_the_verdicts_of_its_n_quads_form(tmp_path):
    """The same elements, written as a message log by rspconf convert's code path and read back with the
    time declared, give the same reports and verdict for the reference engine and a faulty one."""
    from engines.faults import ShiftedEngine

    case = {c.id: c for c in load_corpus(__import__("pathlib").Path(__file__).parents[1] / "cases")}["edges.sliding-overlap"]
    stream = case.load_stream()
    log = tmp_path / "stream.nq"
    log.write_text(messages.write(messages.from_stream(stream)), encoding="utf-8")
    again = messages.read(log, {"property": str(messages.TIME)})
    assert [(e.t, set(e.triples)) for e in again.elements] == [(e.t, set(e.triples)) for e in stream.elements]
    for engine in (ReferenceEngine(), ShiftedEngine()):
        from dataclasses import replace
        same_case = replace(case, stream_spec={"file": str(log), "format": "messages",
                                               "time": {"property": str(messages.TIME)}})
        a, b = run_case(case, engine, engine.info()), run_case(same_case, engine, engine.info(), data_root=tmp_path)
        assert (a.verdict, a.reason, a.windows) == (b.verdict, b.reason, b.windows)


def test_a_fixed_interval_stamps_the_messages():
    stream = messages.to_stream(messages.parse(f'VERSION "1.2-messages"\n{ONE}\nMESSAGE\nMESSAGE\n{TWO}\n', "t",
                                               "turtle"), {"every": 1000, "start": 500}, "t")
    assert isinstance(stream, Stream) and [e.t for e in stream.elements] == [500, 1500, 2500]
    assert [len(e.triples) for e in stream.elements] == [1, 0, 1]


def test_rspconf_convert_writes_a_message_log_and_reads_it_back_to_the_same_stream(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from conformance.streams import readers

    root = Path(__file__).resolve().parents[1]
    case = {c.id: c for c in load_corpus(root / "cases")}["edges.sliding-overlap"]
    source = tmp_path / "in.nq"
    from conformance.streams import convert
    source.write_text(convert.nquads(case.load_stream()), encoding="utf-8")
    run = lambda *a: subprocess.run([sys.executable, "-m", "conformance.cli", "convert", *a], capture_output=True,  # noqa: E731
                                    text=True, timeout=60, cwd=tmp_path)
    out = run(str(source), "--to", "messages", "-o", str(tmp_path / "log.nq"))
    assert out.returncode == 0 and "elements as messages" in out.stderr, out.stderr
    assert (tmp_path / "log.nq").read_text().startswith('VERSION "1.2-messages"\n')
    back = run(str(tmp_path / "log.nq"), "--format", "messages", "--time-property", str(messages.TIME), "--to", "nquads",
               "-o", str(tmp_path / "back.nq"))
    assert back.returncode == 0, back.stderr
    original, again = readers.nquads(source), readers.nquads(tmp_path / "back.nq")
    assert [(e.t, set(e.triples)) for e in again.elements] == [(e.t, set(e.triples)) for e in original.elements]
    refused = run(str(tmp_path / "log.nq"), "--format", "messages", "--to", "nquads")
    assert refused.returncode == 2 and "gives its messages no time" in refused.stderr and "Traceback" not in refused.stderr
