"""RDF Message Logs (the W3C RSP Community Group's draft "RDF Messages"): Turtle, TriG, N-Triples or
N-Quads documents opened by ``VERSION "1.2-messages"`` (or ``@version "1.2-messages" .``) whose messages
are separated by ``MESSAGE`` or ``@message .``; blank nodes are scoped to their message.

The kit splits the document at its top-level delimiters (one scan that knows strings, IRIs, comments and
graph blocks, so a delimiter inside a graph block is an error) and parses each message with rdflib, the
directives seen so far in front of it (a later ``PREFIX`` overrides an earlier one): no RDF parser of its
own.  One message is one stream element.  The draft gives a message no time of its own, so a case
declares it: the value of a property in the message (``sosa:resultTime``, ``prov:generatedAtTime``,
``rspconf:time``, …) or a fixed interval from message to message.  A message's default-graph triples are
its content; its named graphs carry metadata (the kit writes its times there), not content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rdflib import Dataset, Literal, URIRef

from conformance.streams.readers import TIME, StreamInputError, static_triples, time_value
from oracle.model import Element, Stream

VERSION = "1.2-messages"
FORMATS = {"turtle": "trig", "trig": "trig", "ntriples": "nquads", "nquads": "nquads"}
#: the graph the kit writes a message's time into (metadata, not content)
TIME_GRAPH = URIRef("https://w3id.org/rspconf#message")
_VERSION_LINE = re.compile(r'^\s*(?:VERSION\s+"([^"]*)"|@version\s+"([^"]*)"\s*\.)', re.IGNORECASE)
_DIRECTIVE = re.compile(r"@prefix\s+\S*\s*<[^>]*>\s*\.|@base\s*<[^>]*>\s*\.|(?:PREFIX|BASE)\s+\S*\s*<[^>]*>",
                        re.IGNORECASE)


_SPARQL_DIRECTIVE = re.compile(r"[ \t]*(?:PREFIX|BASE)\b", re.IGNORECASE)


class MessagesError(StreamInputError):
    """A document that is not an RDF Message Log (the message names the line and what is wrong)."""


@dataclass(frozen=True)
class Message:
    """One RDF Message: its quads (graph ``None`` for the default graph), in document order."""

    quads: tuple[tuple, ...]

    @property
    def triples(self) -> tuple:
        return tuple((s, p, o) for s, p, o, g in self.quads if g is None)


def parse(text: str, where: str = "input", fmt: str = "trig") -> list[Message]:
    """The messages of an RDF Message Log, in order (``fmt``: turtle, trig, ntriples or nquads)."""
    chunks, directives = split(text, where)
    out = []
    for (line, chunk), seen in zip(chunks, directives):
        out.append(_parse_message("".join(seen) + "\n" + chunk, where, line, fmt))
    return out


def split(text: str, where: str = "input") -> tuple[list[tuple[int, str]], list[list[str]]]:
    """((first line, text) of each message, the directives in force at each): the delimiters found at the
    top level; the version directive must open the document."""
    first = next((line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    version = _VERSION_LINE.match(first)
    if not version:
        if _delimiters(text, where):
            raise MessagesError(f"{where}: a message delimiter, but the document does not open with VERSION "
                                f"\"{VERSION}\" (or @version \"{VERSION}\" .): it is not an RDF Message Log")
        raise MessagesError(f"{where}:1: not an RDF Message Log: open it with VERSION \"{VERSION}\"")
    if (version.group(1) or version.group(2)) != VERSION:
        raise MessagesError(f"{where}:1: version {version.group(1) or version.group(2)!r}; an RDF Message Log is "
                            f"version \"{VERSION}\"")
    start = text.index(first) + version.end()
    body = " " * start + text[start:]  # offsets (and so line numbers) stay those of the document
    cuts = _delimiters(body, where)
    pieces, at = [], 0
    for begin, end in cuts:
        pieces.append((at, body[at:begin]))
        at = end
    pieces.append((at, body[at:]))
    if len(pieces) > 1 and not _statements(pieces[-1][1]):
        pieces.pop()  # a trailing delimiter ends the last message; it opens no empty one
    chunks, directives, seen = [], [], []
    for offset, piece in pieces:
        seen = seen + [d + "\n" for d in _DIRECTIVE.findall(_without_comments(piece))]
        chunks.append((body.count("\n", 0, offset) + 1, piece))
        directives.append(list(seen))
    return chunks, directives


def _without_comments(text: str) -> str:
    return re.sub(r"(?m)#[^\n]*$", "", text)


def _statements(piece: str) -> bool:
    """Whether a piece holds a statement (directives, comments and space are not one)."""
    return bool(_DIRECTIVE.sub("", _without_comments(piece)).strip())


def _delimiters(text: str, where: str) -> list[tuple[int, int]]:
    """(start, end) of each top-level delimiter; one inside a graph block, or ``@message`` without its dot,
    is an error."""
    found, depth, i, n = [], 0, 0, len(text)
    at_statement = True
    while i < n:
        ch = text[i]
        if ch == "#":
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if ch in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else ch
            j = i + len(quote)
            while j < n and text[j:j + len(quote)] != quote:
                j += 2 if text[j] == "\\" else 1
            i, at_statement = j + len(quote), False
            continue
        if ch == "<" and re.match(r"<[^\s<>\"{}|^`\\]*>", text[i:]):
            i, at_statement = text.index(">", i) + 1, False
            continue
        word = re.match(r"(@message\b[^\n]*|MESSAGE\b)", text[i:]) if at_statement or ch == "@" else None
        if word:
            line = text.count("\n", 0, i) + 1
            if depth:
                raise MessagesError(f"{where}:{line}: a message delimiter inside a graph block; close the block first")
            if word.group(0).startswith("@message"):
                if not re.fullmatch(r"@message\s*\.\s*", word.group(0)):
                    raise MessagesError(f"{where}:{line}: '@message' must be followed by ' .' and nothing else")
            found.append((i, i + len(word.group(0))))
            i += len(word.group(0))
            at_statement = True
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if not ch.isspace():
            at_statement = ch in ".{}"
        elif ch == "\n" and _SPARQL_DIRECTIVE.match(text, text.rfind("\n", 0, i) + 1):
            at_statement = True  # a SPARQL-style PREFIX or BASE line ends without a dot
        i += 1
    return found


def _parse_message(text: str, where: str, line: int, fmt: str) -> Message:
    ds = Dataset()
    try:
        ds.parse(data=text, format=FORMATS[fmt])
    except Exception as exc:  # noqa: BLE001 - rdflib raises several kinds; one message says which message
        raise MessagesError(f"{where}: the message starting at line {line} is not valid {fmt}: "
                            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    quads = []
    for s, p, o, g in ds.quads((None, None, None, None)):
        graph = None if g is None or g == ds.default_context.identifier or str(g).startswith("urn:x-rdflib:default") \
            else g
        quads.append((s, p, o, graph))
    return Message(tuple(quads))


def write(messages: list[Message]) -> str:
    """An RDF Message Log in N-Quads (one ``MESSAGE`` between messages) that parses back into the same
    messages and quads."""
    parts = [f'VERSION "{VERSION}"\n']
    for i, message in enumerate(messages):
        if i:
            parts.append("MESSAGE\n")
        for s, p, o, g in message.quads:
            parts.append(f"{s.n3()} {p.n3()} {o.n3()}{' ' + g.n3() if g is not None else ''} .\n")
    if len(messages) > 1 and not messages[-1].quads:
        parts.append("MESSAGE\n")  # an empty last message needs a delimiter after it to be kept
    return "".join(parts)


def to_stream(messages: list[Message], time: dict, where: str, static=()) -> Stream:
    """One element per message; its time is the declared ``property``'s value in the message (an integer
    of ms or an xsd:dateTime), or ``start + i × every`` (ms)."""
    elements = []
    for i, message in enumerate(messages):
        if "every" in time:
            t = int(time.get("start", 0)) + i * int(time["every"])
        else:
            values = [o for s, p, o, g in message.quads if p == URIRef(time["property"])]
            if len(values) != 1:
                raise MessagesError(f"{where}: message {i + 1} has {len(values)} values of <{time['property']}>; "
                                    "the stream's time property needs exactly one per message")
            t = time_value(values[0], f"{where}: message {i + 1}")
        elements.append(Element(t, message.triples, source=f"{where}: message {i + 1}"))
    return Stream(tuple(elements), tuple(static or ()))


def from_stream(stream: Stream) -> list[Message]:
    """The kit's stream as messages: each element's triples in the default graph, its time as
    ``<…#message> rspconf:time T`` in the metadata graph (read back with ``time: {property: rspconf:time}``)."""
    return [Message(tuple((s, p, o, None) for s, p, o in e.triples)
                    + ((TIME_GRAPH, TIME, Literal(e.t), TIME_GRAPH),)) for e in stream.elements]


SUFFIXES = {".nt": "ntriples", ".nq": "nquads", ".ttl": "turtle", ".trig": "trig"}


def read(path: Path, time: dict, static: Path | None = None) -> Stream:
    """A stream file that is an RDF Message Log (its syntax from the extension, TriG otherwise); ``static``:
    a file of background data, as for the other readers."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MessagesError(f"{path}: cannot read it as an RDF Message Log ({exc})") from None
    return to_stream(parse(text, str(path), SUFFIXES.get(path.suffix, "trig")), time, str(path), static_triples(static))
