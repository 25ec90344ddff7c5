"""Unstated choices the `lpmt` study's scored claims depend on (see
:mod:`skftl.studies.assumptions`): what the LPMT paper (Song et al., IEICE ELEX 16, 2019)
leaves open and the model has to pick, each with the default's argument from the paper's
text, where the alternatives come from, and the claims it may move.

Choices the paper does state are not here: 8 ways per set and the table size (Sec. 3), the
secondary table of the primary's size (Sec. 2.1: "twice the size"), 256 pages per block
(Table II), four banks (Sec. 2.2), Table I's cycles and Fig. 6's 4-read window, the folding
hash for Tables V-VI (Sec. 3). The workloads' length (``scale``) is ours, not the paper's
(it ran the full traces): ``config/paper.yaml`` runs that, beside the default.
"""

from __future__ import annotations

from skftl.studies.assumptions import READING, Assumption
from skftl.studies.lpmt.claims import READINGS

# what a rerun at a point of the sweep needs: Table IV's four hashes (the set occupancy comes
# from the first sensitivity placement's run of each hash), the three placements and the
# timing runs the default reading scores; the beyond-the-paper sweeps feed no claim
TRIM = {
    "hashes": ["shifting", "folding", "radix", "division"],
    "placements": ["single", "set_per_bank", "interleaved"],
    "sensitivity": {
        "placements": ["single"],
        "assoc": [],
        "load_factor": [],
        "n_banks": [],
        "bank_groups": [],
        "reaccess": [],
    },
}

# the claims every lookup's reads feed: Table V's shares, Table VI, Fig. 8's trends
_LOOKUPS = ("tab5.cases.*", "tab5.text.*", "tab6.*", "fig8.rises.*", "fig8.improvement_rises.*")
# ... and Table IV's occupancies (what is inserted where)
_TABLE = ("tab4.occupancy.*", "tab4.text.*")

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        key=READING,
        default=READINGS.default,
        values=tuple(READINGS.options),
        argument="The layouts of the two four-bank schemes as the text defines them: Table "
        "VI's 'each set is mapped to one of the four banks in turn' (a set in one bank) and "
        "Sec. 2.2's 'we distribute each set over the four banks' read in Fig. 7's order "
        "(ways one per bank); the paper's timing is its Fig. 6 rule, whose values are Table "
        "V's latency row; its classes as Fig. 6's caption and Table V's column heads define "
        "them, by the nearest read of the bank within the last 4 reads ('r[t] != r[t-n] where "
        "n = min{1, 2, 3, 4} such that b[t] = b[t-n]', 'b[t] != b[t-4]', 'r[t] = r[t-n]'): a "
        "row hit needs that read to have had the row, and a read with no read of its bank in "
        "the window is 'b[t] != b[t-4]' whatever its row (`+window`). The text keeps no open "
        "row per bank beyond the window. A set index built from binary folding. Argued in "
        "notebook 02_lpmt, 'The readings'. Rescored from the one dataset (no rerun).",
        sources="`paper_layouts` / `spread` (no suffix): each bank keeps its open row "
        "however long ago it was read, an open-page DRAM's behaviour ("
        "Fig. 6's rule gives it the same latencies, other classes); "
        "`spread`: Sec. 2.2's sentence applied to both four-bank rows (two consecutive ways "
        "per bank); `+per_probe`: one activation per set probe, what Table V's ~87 % row hits "
        "under every placement fit; `+ddr4`: the cited part's datasheet "
        "(Micron MT40A512M8, the paper's [27]) command by command; `decimal_folding`: the "
        "digit-group folding of the examples of the paper's [29].",
        claims=(
            "tab4.occupancy.*.folding",
            "tab4.text.*",
            "tab5.*",
            "fig3.same_bank_gap",
            "tab6.*",
            "fig8.rises.*",
            "fig8.improvement_rises.*",
        ),
    ),
    Assumption(
        key="early_exit",
        default="none",
        values=("none", "match", "match_or_empty"),
        argument="The paper never says where a set probe stops. Each entry is 42 bits (Table "
        "II), one DRAM burst per way. Its one account of a set access, Sec. 2.2's 'when a new "
        "set is to be accessed, the four banks are accessed in the order of access_{t-3}, "
        "..., access_t' (Fig. 7), visits every bank of the set. Table V's fixed-order row, a "
        "set in one bank, so one activation per set probe under any row rule (a hashed "
        "lookup almost never finds its set's row still open), has 87.18 % row hits: 1 / (1 - "
        "0.8718) = 7.8 reads per activation, what a whole 8-way probe gives (a probe stopped "
        "at a match or an empty way reads fewer). So every way is read (`none`). Not every "
        "number agrees: the single-bank row (84.31 % row hits) gives 6.4 reads per "
        "activation, and Table VI's WebSearch single-bank latencies 6.8-7.1 reads per lookup "
        "(notebook 02_lpmt, 'The paper against its own numbers'); the stop rules that read "
        "fewer are the alternatives.",
        sources="The paper's WebSearch single-bank latencies (69.47-71.14 "
        "ns, Table VI) imply 6.8-7.1 reads per lookup at tCK 1.5 ns, fewer than one 8-way "
        "probe. `match`: a set-associative lookup stops at the matching way; `match_or_empty`: "
        "it also stops, in a set without the key, at the first invalid way (inserts fill way "
        "0 first, so no later way holds the key). Both in the placement's read order: in "
        "Fig. 7's order a stop can come later than in way order (way 0's bank may be read "
        "last). Only reads are cut; hits, misses and inserts are the same under every rule.",
        claims=_LOOKUPS,
        trim=TRIM,
    ),
    Assumption(
        key="timing.tck_ns",
        default=1.5,
        values=(1.25, 1.5, 1.875),
        argument="Table I gives cycles and Table VI nanoseconds, but the paper names no "
        "clock. Its DRAM is 'a commercial DRAM [27]', Micron's MT40A512M8; Table I's RCD = "
        "CL = RP = 9, RTP 5, CCD 4 and DL 4 are that part's limits at tCK 1.5 ns (667 MHz): "
        "its speed-bin table supports CL 9 for tCK 1.5-1.9 ns (9 x 1.5 = 13.5 ns >= tAA "
        "13.32 ns) and tRTP = max(4 nCK, 7.5 ns) = 5 nCK there (skftl/dram/timing.py). The "
        "fastest clock at which Table I is within the datasheet is the default.",
        sources="1.875 ns: the slow end of CL 9's tCK range in the MT40A512M8 speed-bin "
        "table (1.5-1.9 ns; the DDR4-1066 clock). 1.25 ns: DDR4-1600, the slowest standard "
        "DDR4 data rate and the datasheet column the strict model takes its ns limits from "
        "(Table I's CL 9 is below that bin's tAA there); its arithmetic "
        "(first read 23 cycles, the others 4) then gives Table VI's WebSearch single-bank "
        "latencies 9.1-9.5 reads per lookup, at least one full 8-way probe (6.8-7.1 at 1.5 "
        "ns). Under Fig. 6's rule every latency scales with tCK: only the nanosecond values "
        "can move.",
        claims=("tab6.latency.*",),
        trim=TRIM,
    ),
    Assumption(
        key="la_unit",
        default=512,
        values=(512, 4096),
        argument="The paper hashes 'a logical address (LA)' of a file (Sec. 1) with no unit; "
        "its workloads are block traces (Table III: the SPC Financial and WebSearch traces, "
        "an MSR trace), which address 512-byte sectors, and Sec. 3's 'the addresses in the "
        "two workloads are all multiples of four' is a statement about those addresses. "
        "The key is the request's start offset in the traces' own unit.",
        sources="4096: the logical page number (Sec. 1: a file no larger than a page 'is "
        "mapped to a logical page number (LPN)'), the FTL's mapping unit; it merges requests "
        "that start in one page into one file and removes the sector alignment that makes "
        "division leave sets empty (Table IV's WebSearch2/3 text).",
        claims=("sec3.*", *_TABLE, *_LOOKUPS),
        trim=TRIM,
    ),
    Assumption(
        key="insert_on_read",
        default=True,
        values=(True, False),
        argument="The paper does not say when a file enters the LPMT. The WebSearch traces "
        "are 99.97-99.98 % reads (Table III), yet Table IV reports WebSearch1 at 100 % "
        "occupancy for three hashes: the table must be filled by reads too, i.e. the data "
        "pre-exist on the device and the first access of an LA, read or write, maps it.",
        sources="The alternative: only writes insert (a read of an unmapped LA misses), the "
        "usual FTL rule for a fresh device; it leaves the read-only WebSearch tables nearly "
        "empty.",
        claims=(*_TABLE, *_LOOKUPS),
        trim=TRIM,
    ),
    Assumption(
        key="timing.reorder_on_act",
        default=False,
        values=(False, True),
        argument="Sec. 2.2 describes Fig. 7 as 'the algorithm to record the order of banks "
        "recently accessed' ('if bank 0 was recently accessed, then the banks other than "
        "bank 0 better be accessed'), and Fig. 6 counts every read in its window: the order "
        "is updated on every read of a bank.",
        sources="Fig. 7's pseudo-code runs 'for each ACT command': updated on activations "
        "only (`true`), so row hits leave the order as it is.",
        claims=(
            "tab5.cases.dynamic.*",
            "tab5.text.favorable.dynamic",
            "tab6.*",
            "fig8.rises.*",
            "fig8.improvement_rises.*",
        ),
        trim=TRIM,
    ),
    Assumption(
        key="page_size",
        default=4096,
        values=(4096, 8192, 16384),
        argument="The paper gives 256 pages per block (Table II) but no page size. A "
        "request larger than a page is a multi-page file whose lookup reads its block-table "
        "chain (Sec. 2.1, Fig. 2); 4 KiB is the mapping unit of the page-level FTLs the "
        "paper builds on (DFTL [6], the page-level schemes of Sec. 1) and the page the "
        "traces study characterises Table III with (traces.page_size).",
        sources="8 and 16 KiB: the pages of the MLC NAND of the paper's time, whose blocks "
        "have 256 pages as Table II's do; larger pages make fewer requests multi-page, so "
        "fewer lookups read block tables.",
        claims=_LOOKUPS,
        trim=TRIM,
    ),
)
