"""Breakpoint enumeration of t0 is exhaustive: checked against brute force over every millisecond."""

from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.model import Element, Stream, WindowSpec
from oracle.s2r.secret import simulate
from oracle.s2r.t0 import breakpoints, class_of, t0_range
from oracle.semantics import Profile
from tests.streams import iri


def _admissible(values: dict):
    try:
        return Profile(**values)
    except ValueError:  # a contradictory combination (Profile.contradictions) is no profile at all
        return None


profiles = st.fixed_dictionaries(dict(
    t0=st.just("any"),
    report=st.sampled_from([{"window-close"}, {"window-close", "non-empty-content"},
                            {"content-change"}, {"content-change", "non-empty-content"},
                            {"window-close", "content-change"}]),
    periodic=st.sampled_from([None, None, 3, 7]),
    tick=st.sampled_from(["tuple-driven", "time-driven", "batch-driven"]),
    granularity=st.sampled_from(["element", "timestamp"]),
    grain=st.sampled_from(["single", "multiple", "single-held"]),
    boundary=st.sampled_from(["[o,c)", "[o,c]", "(o,c]"]),
    close=st.sampled_from([">=", ">"]),
    end_of_stream=st.sampled_from(["flush", "drop"]),
)).map(_admissible).filter(lambda p: p is not None)


@st.composite
def streams(draw):
    gaps = draw(st.lists(st.integers(0, 9), min_size=1, max_size=9))
    t, elements = draw(st.integers(-5, 5)), []
    for i, gap in enumerate(gaps):
        t += gap
        elements.append(Element(t, ((iri(f"s{i}"), iri("p"), iri("o")),)))
    return Stream(tuple(elements))


@settings(max_examples=300, deadline=None)
@given(streams(), st.integers(1, 12), st.integers(1, 12), profiles, st.integers(-15, 0), st.integers(0, 25))
def test_every_millisecond_is_explained_by_its_class_representative(stream, size, slide, profile, lo, span):
    window = WindowSpec(size, slide)
    first = stream.elements[0].t
    from dataclasses import replace
    profile = replace(profile, t0_range=(first + lo, first + lo + span))
    starts = breakpoints(stream, window, profile)
    low, high = t0_range(stream, window, profile)
    assert starts[0] == low and all(low <= s <= high for s in starts)
    for t0 in range(low, high + 1):
        rep = class_of(t0, starts)
        brute = [t.structure(t0) for t in simulate(stream, window, profile, t0)]
        enumerated = [t.structure(rep) for t in simulate(stream, window, profile, rep)]
        assert brute == enumerated, f"t0={t0} differs from its class representative {rep}"


def test_breakpoints_are_few_on_a_regular_stream():
    # 34 timestamps one second apart, window 5 s / 1 s: all borders fall on whole seconds, so the
    # classes start at whole seconds and one millisecond after them.
    stream = Stream(tuple(Element(i * 1000, ((iri("s"), iri("p"), iri(str(i))),)) for i in range(34)))
    starts = breakpoints(stream, WindowSpec(5000, 1000), Profile())
    assert starts == [0, 1] + [x for s in range(1000, 5001, 1000) for x in (s, s + 1) if x <= 5000]
