"""``rspconf convert``: a stream from one of the kit's formats into another — an RDF Message Log (one message
per element, its time in the message's metadata graph) or the kit's N-Quads form (one named graph per
element, ``<g> rspconf:time "T"`` in the default graph).  Reading it back gives the same elements."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rdflib import URIRef

from conformance.streams import messages
from conformance.streams import readers as streams
from oracle.durations import parse_duration
from oracle.model import Stream

OUTPUTS = ("messages", "nquads")


def nquads(stream: Stream) -> str:
    """The kit's N-Quads form of a stream (static data is not part of it: give it to the case apart)."""
    return "".join(streams.nquads_element(URIRef(f"urn:rspconf:element:{i}"), element.t, element.triples)
                   for i, element in enumerate(stream.elements))


def read(path: Path, fmt: str | None, time: dict | None) -> Stream:
    """A stream file in any of the kit's formats (``messages`` needs ``time``)."""
    fmt = fmt or streams.guess_format(path)
    if fmt == "messages":
        if not time:
            raise messages.MessagesError(f"{path}: an RDF Message Log gives its messages no time: give --time-property "
                                         "IRI or --every DURATION")
        return messages.read(path, time)
    if fmt == "csrbench":
        return streams.csrbench(path)
    return streams.READERS[fmt](path)


def main(args) -> int:
    """The command: read, write the other form (to a temporary file renamed into place), say what was done."""
    time = ({"property": args.time_property} if args.time_property else
            {"every": parse_duration(args.every), "start": args.start} if args.every else None)
    try:
        stream = read(Path(args.input), args.format, time)
    except (streams.StreamInputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = messages.write(messages.from_stream(stream)) if args.to == "messages" else nquads(stream)
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        print(f"error: cannot write {target}: {exc.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {target}: {len(stream.elements)} elements as {args.to}", file=sys.stderr)
    return 0
