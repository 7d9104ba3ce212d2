"""The app's screens by name, key and purpose: one table for the bindings, help and palette."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    name: str
    key: str
    title: str
    summary: str


PLACES = (
    Place("profiles", "f1", "Profiles", "switch tool profiles, keys, backups"),
    Place("launch", "f2", "Launch", "start an audit from a spec file or a form"),
    Place("run", "f3", "Run", "the live run: progress, ETA, judge outputs"),
    Place("results", "f4", "Results", "misselection by gap bucket, agent pairs, bias"),
    Place("review", "f5", "Review", "label a stratified sample with single keys"),
    Place("runs", "f6", "Runs", "open a past output dir or compare two runs"),
    Place("trends", "f7", "Trends", "figures over many runs or daily logs, with alerts"),
)
BY_NAME = {p.name: p for p in PLACES}
