"""Unstated choices the `bnvm` study's scored claims depend on (see
:mod:`skftl.studies.assumptions`): what Kwon's paper (IEEE Access 2019) leaves open and the
model has to pick, each with the default's argument from the paper's text and where the
alternatives come from."""

from __future__ import annotations

from skftl.studies.assumptions import READING, Assumption
from skftl.studies.bnvm.claims import READINGS

# the claims that rest on the traces (every per-trace and pooled claim, and the tables sized
# from the device): what a change of the simulated traffic may move
_TRAFFIC = (
    "sec4a.block_slower",
    "fig2.*",
    "sec4b2.*",
    "sec5.*",
    "fig3.*",
    "sec4c2b.clean_rounds_per_flush",
)

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        key="device.capacity_gib",
        default=128.0,
        values=(16.0, 32.0, 128.0),
        argument="The paper gives no BNVM-SSD capacity. It sizes the log area as a share of "
        "the device ('the policies allocate 0.1% of flash memory for log blocks', Sec. II.B.3) "
        "and names one SSD size, '64 MB per 128 GB' and '128 GB of triple-level-cell based "
        "SSD' (Sec. II.B.1-2); 128 GiB is also the storage of the Pixel 6a our real stand-in "
        "traces were recorded on. It sets the 0.1 % log (8,320 pages, 65 refresh units, per "
        "chip at 128 GiB, which fills only on traces C and F, so fig3.refresh_share.A/B/D/E "
        "are not evaluated there and fig3.dirty_ratio.A/B/D/E are 0); it never changes the "
        "simulated traffic. The stand-in traces address up to 119 GiB of their phone's "
        "storage, so a device that holds their addresses unfolded has 128 GiB.",
        sources="The paper's traces were recorded on a Nexus 5 (Sec. IV.B.1: 'Traces A to F "
        "are workloads from NEXUS5'), sold with 16 GB or 32 GB of storage: a 0.1 % log of "
        "1,024 or 2,048 pages per chip; 128 GiB: the paper's only named SSD size and the "
        "stand-ins' phone.",
        claims=("fig3.*", "sec5.log_slower.*", "sec4c2b.clean_rounds_per_flush"),
    ),
    Assumption(
        key="idle_pick",
        default="round_robin",
        values=("round_robin", "lowest"),
        argument="Dynamic striping 'allocates logical addresses to physical addresses on any "
        "\"idle\" chip, regardless of the physical offsets' (Sec. II.A) and 'adaptively "
        "distribut[es] the write requests to the idle chips': the paper names no order among "
        "idle chips. Round-robin from the last chip used distributes first writes over the "
        "chips as evenly as a stripe, the reading of 'distributing'.",
        sources="The two orders an allocator can take among idle chips: the next after the "
        "last one used (round-robin) or the first free one (lowest index); both are kernel "
        "options (skftl.pcm.schemes.IDLE_PICKS); `lowest` turns trace F (static faster).",
        claims=("fig2.*", "sec4b2.no_benefit", "sec5.winner_varies"),
    ),
    Assumption(
        key=READING,
        default=READINGS.default,
        values=tuple(READINGS.options),
        argument="Which page operations share one parallel write is never stated: `queue` "
        "follows the paper's mechanism, a chip's busy or idle state when a request arrives "
        "(Sec. II.A, IV.B.2; a flush 'has to wait for chips 0 and 1 to finish the previous "
        "write request', Sec. IV.C.2.b). A flush counts one parallel clean write in Sec. "
        "IV.C.1 and two in Sec. IV.C.2.b, which explains Fig. 3's results: two. The paper "
        "says nothing of a warm-up: each trace runs on an empty device (no `+install`). Argued "
        "in notebook 05_bnvm, 'Readings'. Rescored from the one dataset (no rerun), so every "
        "combination is listed.",
        sources="The three grouping rules bound the choice: `request` (only pages of one host "
        "request, the strictest), `queue`, `stream` (arrival times ignored, the upper bound on "
        "parallelism); flush counts 1 and 2 are the paper's own two statements; `+install` "
        "replays each usage trace's install trace first, as the stand-in traces' README "
        "suggests.",
        claims=(
            "sec4a.example.*",
            "sec4a.block_slower",
            "fig2.*",
            "sec4b2.*",
            "sec5.winner_varies",
            "sec4c1.flush_one_round",
            "sec4c2b.*",
            "fig3.*",
            "sec5.log_slower.*",
        ),
    ),
    Assumption(
        key="device.page_size",
        default=4096,
        values=(2048, 4096),
        argument="'To remain compatible with current file systems, the units of write/read "
        "are sectors (512 B) or pages (2 KB or 4KB)' (Sec. III.A): the paper allows both page "
        "sizes and does not say which its simulation used. 4 KiB is the block size of the "
        "Android file systems the traces (the paper's Nexus 5 and our Pixel 6a stand-ins) "
        "were recorded under: every request of the six stand-in traces starts and ends on a "
        "4 KiB boundary (checked on the prepared traces), so a 4 KiB page splits none.",
        sources="Sec. III.A's two page sizes, 2 KB and 4 KB (512 B sectors would multiply "
        "every page count by eight and are not a page size).",
        claims=_TRAFFIC,
    ),
    Assumption(
        key="include_reads",
        default=True,
        values=(True, False),
        argument="Traces C-F 'are composed of read and write commands' (Sec. IV.B.1) and the "
        "chips serve both ('enables each chip to read or write the incoming data "
        "independently', Sec. IV.A.1), so reads occupy the device between writes; the "
        "figures count writes only and the paper never says whether its simulation replayed "
        "the reads.",
        sources="The two cases the text leaves open: reads replayed (they take device time "
        "and break first-come-first-served write rounds) or dropped (only the writes the "
        "figures count).",
        claims=_TRAFFIC,
    ),
    Assumption(
        key="device.t_read_us",
        default=25.0,
        values=(12.5, 25.0, 38.0),
        argument="Table 2 gives no read latency. 25 us per 4 KB page (~160 MB/s per chip) is "
        "the order of the read bandwidth of the Onyx PCM prototype [22], the paper's source "
        "for its write and refresh latencies, and no slower than NAND flash, which the paper "
        "says PCM beats in reads (Sec. I).",
        sources="38 us: Onyx's 4 KB random read (Akel et al., HotStorage 2011, ref. [22]), a "
        "whole-device latency that includes its controller, hence the slow end; 12.5 us: half "
        "the default, for the faster PCM chips the paper anticipates ('faster read and write "
        "performance ... than NAND flash memory', Sec. I).",
        claims=_TRAFFIC,
    ),
)
