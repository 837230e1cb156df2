"""Finding and building an engine adapter from ``--engine`` and ``--engine-option``.

``--engine NAME`` looks NAME up in the ``rspconf.engines`` entry-point group (and, when the kit runs
from a source checkout that is not installed, from ``pyproject.toml``: :func:`builtin`); ``--engine
path/to/file.py:Class`` loads a class from a file; ``--engine replay:manifest.yaml`` reads recorded
outputs (:mod:`engines.replay`); ``--engine 'cmd:command line'`` runs an engine process that speaks the
JSON Lines protocol (:mod:`engines.command`, ``docs/protocol.md``); ``--engine 'study:command line'`` runs
a runner written for the 2021 comparative study's interface (:mod:`engines.study`).  Options ``key=value`` become
keyword arguments.
"""

from __future__ import annotations

import importlib
import importlib.util
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

from conformance import schema as schemas
from conformance.corpus import datapaths
from engines.command import CommandEngine
from engines.dialects import variants
from engines.process import ProtocolError
from engines.replay import ManifestError, ReplayEngine
from engines.study import StudyEngine
from oracle import profiles


def builtin() -> dict[str, str]:
    """The registered engines as ``pyproject.toml`` declares them (its ``rspconf.engines`` entry points):
    for a source checkout that is not installed, where the entry points are not registered.  One list,
    read from the one place that declares it."""
    path = datapaths.PROJECT / "pyproject.toml"
    if not path.is_file():
        return {}
    with open(path, "rb") as f:
        return dict(tomllib.load(f)["project"]["entry-points"]["rspconf.engines"])


class EngineUnavailable(LookupError):
    """The engine cannot be found or built; the message says what to do."""


def parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise EngineUnavailable(f"--engine-option {pair!r}: write key=value")
        key, value = pair.split("=", 1)
        options[key.strip().replace("-", "_")] = value.strip()
    return options


def _from_target(target: str):
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _from_file(spec: str):
    path, _, attr = spec.rpartition(":")
    file = Path(path)
    if not file.exists():
        raise EngineUnavailable(f"--engine {spec}: file {file} does not exist")
    mod_spec = importlib.util.spec_from_file_location(f"rspconf_adapter_{file.stem}", file)
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    if not hasattr(module, attr):
        raise EngineUnavailable(f"--engine {spec}: {file} has no {attr}")
    return getattr(module, attr)


def available() -> dict[str, str]:
    names = builtin()
    for ep in entry_points(group="rspconf.engines"):
        names[ep.name] = ep.value
    return names


def build(spec: str, options: dict[str, str] | None = None, start_timeout: float | None = None,
          trace: str | None = None):
    """Build the adapter named by ``spec`` with ``options``.  ``start_timeout`` (seconds; the case
    timeout) bounds an engine process's start handshake unless the options set ``start_timeout``;
    ``trace`` (``--engine-trace``) is a file for the protocol lines of an engine process."""
    options = options or {}
    given = spec

    def traced(opts: dict, process: bool) -> dict:
        """``opts`` with the trace file, for an engine process; any other adapter has no pipe to trace."""
        if not trace:
            return opts
        if not process:
            raise EngineUnavailable(
                f"--engine-trace: {given} is not an engine process speaking the JSON Lines protocol (cmd:…, "
                "rsp-js): nothing crosses a pipe to trace. An in-process adapter can log its RunRequest itself")
        return {**opts, "trace": trace}

    if spec.startswith("replay:"):
        options = traced(options, False)
        root = datapaths.data_root()
        options = {"data_root": str(root) if root else None, **options}
        try:
            return ReplayEngine(spec[len("replay:"):], **options)
        except (ManifestError, TypeError) as exc:
            raise EngineUnavailable(f"--engine {spec}: {exc}") from exc
    if spec.startswith("cmd:"):
        options = traced(options, True)
        if start_timeout is not None:
            options = {"start_timeout": start_timeout, **options}
        try:
            return CommandEngine(spec[len("cmd:"):], **options)
        except (ProtocolError, OSError, TypeError, ValueError) as exc:
            raise EngineUnavailable(f"--engine {spec}: {exc}") from exc
    if spec.startswith("study:"):
        options = traced(options, False)
        try:
            return StudyEngine(spec[len("study:"):], **options)
        except (OSError, TypeError, ValueError) as exc:
            raise EngineUnavailable(f"--engine {spec}: {exc}") from exc
    if ".py:" in spec:
        cls = _from_file(spec)
    else:
        if "@" in spec:  # name@version: a registered engine that ships several pinned releases (rsp-js@1.1.2)
            spec, options = spec.split("@", 1)[0], {**options, "version": spec.split("@", 1)[1]}
        names = available()
        if spec not in names:
            raise EngineUnavailable(
                f"--engine {spec}: unknown engine. Give a registered name ({', '.join(sorted(names))}), "
                "'cmd:<command line>' for an engine process speaking the JSON Lines protocol (docs/protocol.md), "
                "'replay:<manifest.yaml>' for recorded outputs, 'study:<command line>' for a runner of the "
                "2021 comparative study's interface, or 'path/to/file.py:Class' for an in-process "
                "adapter; `rspconf engines` lists them")
        try:
            cls = _from_target(names[spec])
        except ImportError as exc:
            raise EngineUnavailable(f"--engine {spec}: cannot import {names[spec]} ({exc}); "
                                    "is its extra installed? (see README)") from exc

    process = isinstance(cls, type) and issubclass(cls, CommandEngine)
    options = traced(options, process)
    if start_timeout is not None and process:
        options = {"start_timeout": start_timeout, **options}
    try:
        return cls(**options)
    except (TypeError, ValueError) as exc:
        raise EngineUnavailable(f"--engine {spec}: cannot start it with options {options}: {exc}") from exc


def declared_info(adapter, spec: str):
    """The adapter's info, refused (:class:`EngineUnavailable`, one line) when what it declares cannot be run
    against: a syntax deviation the kit does not know, a profile that is not valid (every case is judged
    against it), capabilities the registry does not know.  ``rspconf check-adapter`` reports each apart."""
    info = adapter.info()
    try:
        variants.check(info.dialect, info.syntax)
    except variants.UnknownDeviation as exc:
        raise EngineUnavailable(f"--engine {spec}: its declared syntax: {exc}") from None
    try:
        profiles.space(info.profile)
    except ValueError as exc:
        raise EngineUnavailable(
            f"--engine {spec}: its declared profile is not valid: {exc}. Fix the profile the engine declares (the "
            "start answer's engine.profile, or EngineInfo's profile; docs/protocol.md); `rspconf check-adapter` "
            "checks it") from None
    unknown = schemas.unknown_capabilities(info.capabilities)
    if unknown:
        raise EngineUnavailable(
            f"--engine {spec}: declares capabilities the registry does not know: {', '.join(unknown)}; the names are "
            "in conformance/schema/capabilities.json (rspconf capabilities lists them)")
    return info
