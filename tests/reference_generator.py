"""YABench's generator written the plain way, term by term with rdflib and java.util.Random's own
next_int: the reference the fast generator (conformance/streams/generate.py) must equal element for element.
The benchmark bench/generator.py times the two side by side."""

from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD

from conformance.streams.generate import OM, SSW, WEATHER, JavaRandom
from oracle.model import Element, Stream


def reference_stream(stations: int, interval: int, duration: int, seed: int, first_at_zero: bool = True) -> Stream:
    rnd = JavaRandom(seed)
    offsets = [rnd.next_int(interval) for _ in range(stations)]
    order = sorted(range(stations), key=lambda s: offsets[s])
    elements, first, k = [], True, 0
    while True:
        for station in order:
            t = offsets[station] + k * interval
            if t > duration:
                return Stream(tuple(elements))
            value = rnd.next_int(100)
            if first and first_at_zero:
                t = 0
            first = False
            obs = URIRef(f"{SSW}Observation_AirTemperature_A{station}_{t}")
            data = URIRef(f"{SSW}MeasureData_AirTemperature_A{station}_{t}")
            triples = (
                (obs, RDF.type, URIRef(WEATHER + "TemperatureObservation")),
                (obs, URIRef(OM + "observedProperty"), URIRef(WEATHER + "_AirTemperature")),
                (obs, URIRef(OM + "procedure"), URIRef(f"{SSW}System_A{station}")),
                (obs, URIRef(OM + "result"), data),
                (data, RDF.type, URIRef(OM + "MeasureData")),
                (data, URIRef(OM + "floatValue"), Literal(f"{value}.0", datatype=XSD.float)),
                (data, URIRef(OM + "uom"), URIRef(WEATHER + "fahrenheit")),
            )
            elements.append(Element(t, triples, source=f"urn:rspconf:yabench:A{station}_{t}"))
        k += 1
