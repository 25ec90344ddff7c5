"""Assumptions of the `skrm` study: the parameters SK-FTL's paper (Yang et al.) does not state
on which a scored claim depends, each with its default (``config/config.yaml``'s ``skrm``
section), the argument for it from the paper's text, the plausible values and where they
come from, and the claims it may move (see :mod:`skftl.studies.assumptions`).

Not declared, because no scored claim depends on them in these runs: the FTL's
over-provisioning and GC settings (``ftl.spare_factor``, ``ftl.gc_*``: no replay of any
set-up does GC), ``wrap`` (only addresses beyond the logical capacity), ``fill_fraction``
(the cold set-up is a fresh device by definition; the warm set-up's fill is
``setups.warm_fraction`` below), ``rows`` (its alternative is the ``match`` reading, scored
from the same dataset), the costs (Table II gives them: inputs) and the sensitivity sweeps
(figures, not claims).

Fig. 9's scope (every entry write, or updates of mapped entries only) has no config key: both
are in the dataset, so it is the ``updates`` reading (``claims.READINGS``), swept under
:data:`READING`. Unstated choices with no config key (yet), so not declared here: the device's
channels and chips, and the MLC chip's page times beyond the LSB/MSB program ratio.
"""

from __future__ import annotations

from skftl.studies.assumptions import READING, Assumption

# the claims on SK-FTL's own counts: its NAND placement moves all of them
_SK_COUNTS = ("fig9.*", "fig10.*", "fig13.*", "sec5.*")
# the claims on shift counts (vertical moves)
_SHIFTS = ("sec5.*", "fig12.shift.similar*")
# at every point of the sweep: skip the sensitivity sweeps that replay the NAND side again
# (fill fraction, open blocks per class, first-write rule on one trace): they feed figures
# and a note, no claim; the cheap re-costing sweeps stay (Fig. 12's W order reads one)
TRIM = {
    "sensitivity.fill_fraction": [],
    "sensitivity.open_per_class": [],
    "sensitivity.first_write": [],
}

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        key="open_per_class",
        default="list",
        values=("list", 1, 2, 16, 32),
        argument="Sec. III-B allocates 'free NAND flash block horizontally across blocks in the "
        "same bits-number-based block list' and 'horizontal allocation ensures the page number "
        "is identical' (Fig. 6). The scope the sentence names is the list, with no subset of "
        "it: 'list' rotates a row across every block of a chip's list before the next row. "
        "Holding every free block open would leave GC none, a limit the paper does not "
        "discuss; the rotation leaves the FTL's GC high watermark of free blocks per chip out "
        "(taken only when no open block has room), which no replay here reaches",
        sources="1: one open block per class (the least the plural 'across blocks' allows); "
        "2: the earlier default, the most whose open blocks (32 chips x 15 classes x H) fit "
        "in the device's over-provisioned blocks, a GC constraint that never binds here (no "
        "replay of any set-up does GC); 16 and 32: from the study's own sensitivity sweep "
        "(skrm.sensitivity.open_per_class, 1-32; the issue's measurement on web_0, cold: Fig. "
        "13 -31 % at 2, -54 % at 16, -66 % at 32). 32 is the most a fixed H takes: a study "
        "with 32 stops in its fill-fraction sweep (90 % of the logical pages written first "
        "leaves a chip no free block; the sweep is trimmed at every point)",
        claims=_SK_COUNTS,
        trim=TRIM,
    ),
    Assumption(
        key="nand.page_speed",
        default="lsb_msb",
        values=("lsb_msb", "uniform"),
        argument="Sec. IV-A runs every comparison 'in a flash simulator [2]', Chang and Kuo's "
        "simulator of MLC flash-memory storage systems, and Fig. 14 reports NAND latencies "
        "that differ between the allocators (0.89 % and 0.28 %), which a device whose pages "
        "all take one time cannot show: 'lsb_msb' (2-bit MLC, odd pages MSB) programs an MSB "
        "page 1022/770 times an LSB page, the one LSB/MSB pair in these papers (MTPM's Table "
        "IV MLC chip), and reads both in one time (that table gives one tR)",
        sources="'uniform': every page programs and reads in one time (the sk-ftl preset's "
        "V-NAND timing, skftl/nand/presets.py); with it and no GC, a page's chip is fixed by "
        "its LPN and Fig. 14's differences are zero by construction",
        claims=("fig14.*",),
        trim=TRIM,
    ),
    Assumption(
        key="first_write",
        default="largest",
        values=("largest", "lowest"),
        argument="The allocator minimises 'the bit difference between the previously-stored "
        "PBA and the to-be-allocated PBA' (Sec. I, Sec. III-A); a page written for the first "
        "time has no previously-stored PBA, so the text sets no class for it. 'largest' (the "
        "class with most free blocks on the chip) consumes the classes in proportion to their "
        "size, so later updates find room in their own class, the property Sec. III-B's lists "
        "exist for",
        sources="every rule the allocator implements (skftl.nand.policies_skftl.FIRST_WRITE: "
        "'largest', 'lowest'; a test ties the two lists), the paper giving none: 'lowest' "
        "reads the empty entry as an old address of popcount 0 (Fig. 5's lists from the 0-bit "
        "list up), which minimises the first write's own injections (the issue's measurement: "
        "web_0, cold, Fig. 9 -28.6 % under 'largest', -36.5 % under 'lowest'; SK-FTL's "
        "first-write injections exceed PW FTL's under 'largest' on every trace)",
        claims=_SK_COUNTS,
        trim=TRIM,
    ),
    Assumption(
        key=READING,
        default="paper",
        values=("paper", "skrmsim", "hamming", "lockstep", "match", "updates"),
        argument="Four things the text leaves to the reader (claims.READINGS). Counting: Sec. "
        "IV-A's naive write 'remove[s] all previous-injected skyrmions and inject[s] new "
        "skyrmions', i.e. the 1 bits the entry holds, and Table II's insert and remove "
        "'include one shift operation' ('paper'). 1-bit difference: Sec. I glosses bit "
        "difference as 'the number of data bits 1' and Sec. III-B says a list of equal "
        "popcount 'will not change the number of 1 bits' (popcount change, 'paper'). Row "
        "rule: 'horizontal allocation ensures the page number is identical' (Sec. III-B): the "
        "open blocks of a class advance row by row ('lockstep' = 'paper' under skrm.rows: "
        "lockstep). Fig. 9's scope: every entry write ('paper'): Sec. IV-B plots 'the "
        "accumulated latency of each operation ... while running different traces', and "
        "writing a never-mapped entry is the same permutation write of a segment (from no "
        "skyrmion) as an update; the same sentence covers Figs. 10-12, whose counts include "
        "first writes too",
        sources="'skrmsim': the public SK-RMSim's bookkeeping (naive removes W and shifts 2W; "
        "permutation write shifts 2W + 2), the one public implementation of the scheme [12]; "
        "'hamming': the usual meaning of a bit difference (Hamming distance); 'match': the "
        "allocator's objective (Sec. I) applied to the page bits too, ours and beyond the "
        "text; 'updates': Fig. 9 on updates of mapped entries only, from Sec. IV-B's 'during "
        "updating mapping entries', Fig. 2's use of 'update' for a rewrite of chunk C's entry "
        "and Fig. 13's 1-bit difference 'between entry updates' (the issue's measurement: "
        "-71.4 / -73.6 / -73.4 % cold / warm / multi-pass, mean over all traces)",
        claims=(
            "fig9.*",
            "fig10.*",
            "fig11.*",
            "fig12.shift.similar*",
            "sec5.*",
            "fig13.*",
            "fig14.*",
        ),
    ),
    Assumption(
        key="layout.entries_per_track",
        default=16,
        values=(3, 16, 64),
        argument="The paper gives no number of mapping entries per racetrack (Sec. III-A: "
        "'each mapping entry fits into the distance between access ports' and 'multiple "
        "racetracks are included'; Fig. 7(b): Entry N and Entry 2N on adjacent racetracks). "
        "16 is the first of the public SK-RMSim's options for data per racetrack (16, 32), "
        "the simulator of the permutation write the paper builds on [12]",
        sources="3: Fig. 8 draws three entries per racetrack (Entries 0-2, 3 and 6 a "
        "racetrack apart); 64: the largest value SK-RMSim's config template lists for data "
        "per racetrack ('NDR 8 16 32 64'; README of github.com/LarryCCLai/"
        "NTUT-Special-Project-SKRMSim)",
        claims=("fig9.*", "fig10.*", *_SHIFTS),
        trim=TRIM,
    ),
    Assumption(
        key="layout.vertical_reach",
        default=1,
        values=(1, 2),
        argument="Secs. III-C and III-D repurpose free or invalid entries 'on adjacent "
        "racetracks' ('the same racetrack or the adjacent racetracks'), so a buffer is at "
        "most one racetrack away",
        sources="2: Sec. III-A's own example moves skyrmions 'from racetrack N to racetrack "
        "N+2' (two shift operations), a buffer two racetracks away",
        claims=("fig9.*", "fig10.*", *_SHIFTS),
        trim=TRIM,
    ),
    Assumption(
        key="layout.vertical_cost",
        default="per_move",
        values=("per_move", "per_skyrmion"),
        argument="Sec. III-A charges 'two shift operations' for moving skyrmions from "
        "racetrack N to N+2 without saying per what; the skyrmions of a segment pass the "
        "access port together (Fig. 7(a)), so one shift per racetrack crossed per move",
        sources="'per_skyrmion': the same sentence read per skyrmion moved",
        claims=_SHIFTS,
        trim=TRIM,
    ),
    Assumption(
        key="layout.entry_bits",
        default=32,
        values=(24, 32, 48),
        argument="'each mapping entry fits into the distance between access ports' (Sec. "
        "III-A) without a width; the entry is the PPN of 64 GB / 16 KB = 2^22 pages (22 bits), "
        "stored in a 32-bit word",
        sources="24: the smallest whole-byte width that holds 22 bits; 48: the widest of the "
        "study's W sweep (skrm.sensitivity.entry_bits), toward the public SK-RMSim's fixed "
        "64-bit data width ('dataWidth 64'), which the cost model's 63-bit entries cannot take",
        claims=_SHIFTS,
        trim=TRIM,
    ),
    Assumption(
        key="layout.tracks_per_stack",
        default=0,
        values=(0, 3),
        argument="The paper includes 'multiple racetracks' between which skyrmions move "
        "vertically (Sec. III-A) and does not group them: one stack (0), no racetrack without "
        "a neighbour but the table's first and last",
        sources="3: Fig. 8 draws three racetracks stacked (a vertical stack of three, whose "
        "edge racetracks have one neighbour)",
        claims=("fig9.*", "fig10.*", *_SHIFTS),
        trim=TRIM,
    ),
    Assumption(
        key="prefill_reads",
        default=True,
        values=(True, False),
        argument="The MSR volumes and the authors' PC held data before their traces began "
        "(Sec. IV-A: 'realistic traces'; their reads return data), so the pages a trace reads "
        "are mapped before it, not counted",
        sources="false: the paper does not say how its simulator [2] treats reads of pages "
        "nothing wrote; they then cost no flash access and their entries stay free (more "
        "free entries to park in, more first writes)",
        claims=(*_SK_COUNTS, "fig14.*"),
        trim=TRIM,
    ),
    Assumption(
        key="setups.warm_fraction",
        default=0.5,
        values=(0.25, 0.5, 0.9),
        argument="The paper replays week-long MSR volumes and a month of PC I/O (Sec. IV-A), "
        "whose entry writes are mostly updates of mapped entries, and does not say how full "
        "the table is when they begin: half of the logical pages mapped is the midpoint",
        sources="0.25 and 0.9 bracket it; 0.9 is just below the logical capacity (7 % "
        "over-provisioning), as in the study's fill-fraction sweep (0, 0.5, 0.9)",
        claims=("*.warm",),
        trim=TRIM,
    ),
    Assumption(
        key="setups.passes",
        default=4,
        values=(2, 4, 8),
        argument="Sec. IV-A: one-week MSR traces and a one-month PC trace; four passes of a "
        "trace stand for a month of the same I/O",
        sources="2: the least a multi-pass set-up can be; 8: two months of the same I/O",
        claims=("*.multipass",),
        trim=TRIM,
    ),
    Assumption(
        key="synthetic_requests",
        default=100000,
        values=(100000, 300000, 1000000),
        argument="The paper's traces are real (Sec. IV-A) and week- or month-long; the "
        "synthetic stand-ins' length is ours, and a short cold trace's entry writes are "
        "mostly first writes: 100,000 requests at default scale",
        sources="1,000,000: the paper-scale setting (skrm.paper_scale.synthetic_requests); "
        "300,000 between",
        claims=("*.synthetic*", "*.desktop*", "*.mds*"),
        trim=TRIM,
    ),
    Assumption(
        key="ftl.chip_alloc",
        default="static",
        values=("static", "dynamic"),
        argument="The paper's flash simulator [2] is not described; a page-mapped FTL "
        "striping LPNs over chips statically keeps an update on its entry's chip, so Sec. "
        "III-B's per-chip class lists see every update of the entries they hold",
        sources="'dynamic': the other chip allocation of skftl.nand (the least busy chip "
        "takes the write)",
        claims=(*_SK_COUNTS, "fig14.*"),
        trim=TRIM,
    ),
)
