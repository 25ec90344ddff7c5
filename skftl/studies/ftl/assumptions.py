"""Unstated choices the `ftl` study's scored claims depend on (see
:mod:`skftl.studies.assumptions`)."""

from __future__ import annotations

from skftl.studies.assumptions import Assumption

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        key="waf.warmup_passes",
        default=3,
        values=(1, 3, 5),
        argument="Desnoyers' Eq. 12 is the steady state of greedy cleaning under uniform "
        "overwrites and states no warm-up: the default measures after three overwrite passes "
        "of the logical space, past the first pass, whose cleaning still meets blocks of the "
        "sequential fill.",
        sources="1 pass: the first full overwrite, the least a steady state can follow a "
        "sequential fill with; 5: config.yaml's ftl.paper_scale.warmup_passes.",
        claims=("eq12.*",),
    ),
)
