"""Unstated choices the `traces` study's scored claims depend on (see
:mod:`skftl.studies.assumptions`)."""

from __future__ import annotations

from skftl.studies.assumptions import Assumption

_WEBSEARCH = {"wsrch-small": ["WebSearch1", "WebSearch2", "WebSearch3"]}

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        key="paper_rows",
        default={**_WEBSEARCH, "msr_web_0_excerpt": "MSR"},
        values=(
            {**_WEBSEARCH, "msr_web_0_excerpt": "MSR"},
            {**_WEBSEARCH, "heimdall_rw_20_80_105": "MSR"},
            {**_WEBSEARCH, "heimdall_rand_iops_1006": "MSR"},
        ),
        argument="The LPMT paper's Table III has one 'MSR' row and names no volume. The web_0 "
        "excerpt is the only cut of a named MSR Cambridge volume in the shared folder, and web "
        "serving is the volume class the LPMT paper's other workloads (WebSearch) come from.",
        sources="../shared/traces/README.md: the two msr_derived_heimdall cuts are MSR "
        "Cambridge traces of unnamed volumes (timing rescaled), the other real stand-ins a "
        "reader could pick for an unnamed MSR volume.",
        claims=("tab3.MSR.*",),
    ),
)
