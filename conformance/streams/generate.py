"""Deterministic stream generators: YABench's weather stations and a WAVES-like water network.

``yabench`` reproduces YABench's generator gen(s, i, d, r) exactly, so published YABench figures can
be compared: its random source is Java's ``java.util.Random`` (re-implemented here from the Java SE
specification: a 48-bit linear congruential generator).  ``waves`` is a water network in the spirit
of WAVES (seed 004 §5.1): sensors measuring flow, pressure and chlorine, all sampled on one clock.
Each observation is one event graph (an atomic stream element).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD

from conformance.streams.bulk import cyclic_gc_paused
from conformance.streams.readers import TIME, nquads_element
from oracle.model import Element, Stream

MASK48 = (1 << 48) - 1
MULTIPLIER = 0x5DEECE66D


class JavaRandom:
    """``java.util.Random``: same seed, same sequence as the JVM."""

    def __init__(self, seed: int):
        self.seed = (seed ^ MULTIPLIER) & MASK48

    def next(self, bits: int) -> int:
        self.seed = (self.seed * MULTIPLIER + 0xB) & MASK48
        value = self.seed >> (48 - bits)
        return value - (1 << 32) if value >= (1 << 31) else value  # Java int

    def next_int(self, bound: int | None = None) -> int:
        if bound is None:
            return self.next(32)
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self.next(31)
        m = bound - 1
        if bound & m == 0:  # power of two
            return (bound * r) >> 31
        u = r
        r = u % bound
        while u - r + m >= (1 << 31):  # Java int overflow: u - r + m < 0
            u = self.next(31)
            r = u % bound
        return r


SSW = "http://knoesis.wright.edu/ssw/"
OM = "http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#"
WEATHER = "http://knoesis.wright.edu/ssw/ont/weather.owl#"


@dataclass(frozen=True)
class YABenchSpec:
    stations: int
    interval: int  # ms
    duration: int  # ms, inclusive
    seed: int
    min_value: int = 0
    max_value: int = 100
    first_at_zero: bool = True  # YABench 1.1 stamps the very first observation 0


def yabench_observations(spec: YABenchSpec) -> Iterator[tuple[int, int, int]]:
    """(station, timestamp ms, value) in emission order."""
    rnd = JavaRandom(spec.seed)
    offsets = [rnd.next_int(spec.interval) for _ in range(spec.stations)]
    order = sorted(range(spec.stations), key=lambda s: offsets[s])
    first = True
    k = 0
    # rnd.next_int(bound) inlined (the big load draws 300,000 readings): next(31) is seed >> 17, never
    # negative; a bound that is not a power of two rejects draws as Java does
    seed, bound = rnd.seed, spec.max_value - spec.min_value
    if bound <= 0:
        raise GeneratorError(f"max_value {spec.max_value} must be above min_value {spec.min_value}")
    m, power_of_two, low = bound - 1, bound & (bound - 1) == 0, spec.min_value
    while True:
        for station in order:
            t = offsets[station] + k * spec.interval
            if t > spec.duration:
                return
            seed = (seed * MULTIPLIER + 0xB) & MASK48
            u = seed >> 17
            if power_of_two:
                value = ((bound * u) >> 31) + low
            else:
                r = u % bound
                while u - r + m >= 1 << 31:
                    seed = (seed * MULTIPLIER + 0xB) & MASK48
                    u = seed >> 17
                    r = u % bound
                value = r + low
            if first and spec.first_at_zero:
                t = 0
            first = False
            yield station, t, value
        k += 1


def yabench_triples(station: int, t: int, value: int) -> tuple:
    obs = _iri(f"{SSW}Observation_AirTemperature_A{station}_{t}")
    data = _iri(f"{SSW}MeasureData_AirTemperature_A{station}_{t}")
    return (
        (obs, _TYPE, _TEMPERATURE_OBSERVATION),
        (obs, _OBSERVED_PROPERTY, _AIR_TEMPERATURE),
        (obs, _PROCEDURE, _system(station)),
        (obs, _RESULT, data),
        (data, _TYPE, _MEASURE_DATA),
        (data, _FLOAT_VALUE, _reading(value)),
        (data, _UOM, _FAHRENHEIT),
    )


# Generating the big load (300,000 observations, 2.1 M triples) is mostly making terms: the constant
# ones are made once, a station's IRI once per station, a reading's literal once per value (0-100), and
# the two IRIs an observation names without rdflib's validity check (the text is the generator's own).
def _iri(text: str) -> URIRef:
    return str.__new__(URIRef, text)


_TYPE = RDF.type
_TEMPERATURE_OBSERVATION = URIRef(WEATHER + "TemperatureObservation")
_OBSERVED_PROPERTY = URIRef(OM + "observedProperty")
_AIR_TEMPERATURE = URIRef(WEATHER + "_AirTemperature")
_PROCEDURE = URIRef(OM + "procedure")
_RESULT = URIRef(OM + "result")
_MEASURE_DATA = URIRef(OM + "MeasureData")
_FLOAT_VALUE = URIRef(OM + "floatValue")
_UOM = URIRef(OM + "uom")
_FAHRENHEIT = URIRef(WEATHER + "fahrenheit")


@lru_cache(maxsize=None)
def _system(station: int) -> URIRef:
    return URIRef(f"{SSW}System_A{station}")


@lru_cache(maxsize=None)
def _reading(value: int) -> Literal:
    return Literal(f"{value}.0", datatype=XSD.float)


SOSA = "http://www.w3.org/ns/sosa/"
WV = "http://example.org/waves#"
WAVES_PROPERTIES = ("Flow", "Pressure", "Chlorine")


@dataclass(frozen=True)
class WavesSpec:
    sensors: int
    interval: int
    duration: int
    seed: int


def waves_observations(spec: WavesSpec) -> Iterator[tuple[int, int, str, float]]:
    """(sensor, timestamp, property, value): every sensor samples at each tick 0, i, 2i, … ≤ d."""
    rnd = JavaRandom(spec.seed)
    t = 0
    while t <= spec.duration:
        for sensor in range(spec.sensors):
            prop = WAVES_PROPERTIES[sensor % 3]
            yield sensor, t, prop, rnd.next_int(200) / 10.0
        t += spec.interval


def waves_triples(sensor: int, t: int, prop: str, value: float) -> tuple:
    obs = URIRef(f"{WV}obs_{sensor}_{t}")
    return (
        (obs, RDF.type, URIRef(SOSA + "Observation")),
        (obs, URIRef(SOSA + "madeBySensor"), URIRef(f"{WV}sensor{sensor}")),
        (obs, URIRef(SOSA + "observedProperty"), URIRef(WV + prop)),
        (obs, URIRef(SOSA + "hasSimpleResult"), Literal(repr(value), datatype=XSD.double)),
        (obs, URIRef(SOSA + "resultTime"), Literal(str(t), datatype=XSD.long)),
    )


def graph_name(model: str, key: str) -> URIRef:
    return URIRef(f"urn:rspconf:{model}:{key}")


class GeneratorError(ValueError):
    """A generator argument that cannot make a stream; the message names it and what to give."""


MAX_OBSERVATIONS = 150_000_000  # the nightly stress runs use 10^7–10^8 triples; past this a typo, most often


def check_params(model: str, **params) -> None:
    """Refuse, before anything is written, arguments no stream can be made of (0 stations would loop
    forever looking for the next observation; a 0 s interval too)."""
    units = "stations" if model == "yabench" else "sensors"
    count = params.get("stations", params.get("sensors"))
    if count is not None and (not isinstance(count, int) or count < 1):
        raise GeneratorError(f"--{units} {count}: give at least 1")
    interval = params.get("interval")
    if interval is not None and interval <= 0:
        raise GeneratorError(f"--interval {interval} ms: give a positive duration like 1s or 500ms")
    duration = params.get("duration")
    if duration is not None and duration < 0:
        raise GeneratorError(f"--duration {duration} ms: give a duration of 0 or more, like 30s")
    if None not in (count, interval, duration):
        observations = count * (duration // interval + 1)
        if observations > MAX_OBSERVATIONS:
            raise GeneratorError(
                f"{count} {units} every {interval} ms for {duration} ms make {observations:,} observations, more "
                f"than the generator's limit of {MAX_OBSERVATIONS:,} (about 10^9 triples); give a shorter "
                "--duration, a longer --interval or fewer --" + units)


def generate(model: str, **params) -> Iterator[tuple[int, URIRef, tuple]]:
    """(timestamp, graph name, triples) for each observation of a generator model."""
    if model not in ("yabench", "waves"):
        raise GeneratorError(f"unknown generator {model!r}: use yabench or waves")
    check_params(model, **params)
    if model == "yabench":
        spec = YABenchSpec(**params)
        for station, t, value in yabench_observations(spec):
            yield t, graph_name("yabench", f"A{station}_{t}"), yabench_triples(station, t, value)
    elif model == "waves":
        spec = WavesSpec(**params)
        for sensor, t, prop, value in waves_observations(spec):
            yield t, graph_name("waves", f"{sensor}_{t}"), waves_triples(sensor, t, prop, value)
    else:
        raise ValueError(f"unknown generator {model!r}: use yabench or waves")


def elements(model: str, event_graphs: bool = True, **params) -> Iterator[Element]:
    """A generated stream's elements one by one, in time order: what a streamed oracle run
    (oracle/expected/streamed.py) consumes without holding the stream; each observation one event graph (or
    one element per triple)."""
    if model == "yabench" and event_graphs:
        check_params(model, **params)
        new = object.__new__
        put = object.__setattr__
        iri, systems, readings = str.__new__, {}, {}
        for station, t, value in yabench_observations(YABenchSpec(**params)):
            key = f"A{station}_{t}"
            obs = iri(URIRef, f"{SSW}Observation_AirTemperature_{key}")
            data = iri(URIRef, f"{SSW}MeasureData_AirTemperature_{key}")
            system = systems.get(station) or systems.setdefault(station, _system(station))
            reading = readings.get(value) or readings.setdefault(value, _reading(value))
            element = new(Element)  # Element's frozen __init__, field by field, without its overhead
            put(element, "t", t)
            put(element, "triples", (  # the same triples as yabench_triples, inlined
                (obs, _TYPE, _TEMPERATURE_OBSERVATION), (obs, _OBSERVED_PROPERTY, _AIR_TEMPERATURE),
                (obs, _PROCEDURE, system), (obs, _RESULT, data), (data, _TYPE, _MEASURE_DATA),
                (data, _FLOAT_VALUE, reading), (data, _UOM, _FAHRENHEIT)))
            put(element, "batch", None)
            put(element, "source", f"urn:rspconf:yabench:{key}")
            yield element
        return
    for t, name, triples in generate(model, **params):
        if event_graphs:
            yield Element(t, triples, source=str(name))
        else:
            yield from (Element(t, (tr,), source=str(name)) for tr in triples)


def stream(model: str, event_graphs: bool = True, **params) -> Stream:
    """A generated stream, held: every element of :func:`elements`."""
    with cyclic_gc_paused():
        return Stream(tuple(elements(model, event_graphs, **params)))


def write(model: str, fmt: str, out, **params) -> int:
    """Write a generated stream as ``nquads``, ``trig`` or ``yabench`` lines; returns the triple count."""
    count = 0
    for t, name, triples in generate(model, **params):
        if fmt == "yabench":
            for s, p, o in triples:
                out.write(f'{s.n3()} {p.n3()} {o.n3()} "{t}" .\n')
        elif fmt == "nquads":
            out.write(nquads_element(name, t, triples))
        elif fmt == "trig":
            out.write(f"{name.n3()} {{\n")
            for s, p, o in triples:
                out.write(f"  {s.n3()} {p.n3()} {o.n3()} .\n")
            out.write(f'}}\n{name.n3()} <{TIME}> "{t}"^^<{XSD.long}> .\n')
        else:
            raise ValueError(f"unknown format {fmt!r}: use nquads, trig or yabench")
        count += len(triples)
    return count
