"""Assumptions of the `mtpm` study: the parameters You et al. do not state on which a scored
claim depends, each with its default, the argument for it from the paper's text, the plausible
values and where they come from, and the claims it may move (see
:mod:`skftl.studies.assumptions`; the robustness sweep varies each one alone).
"""

from __future__ import annotations

from skftl.studies.assumptions import READING, Assumption

#: every claim the simulation computes (the analytic Table III and the trace properties of
#: Sec. IV-A excepted)
_SIMULATED = (
    "fig11.*", "fig12.*", "fig13.*", "fig14.*", "fig15.*", "fig16.*", "fig17.*", "fig18.*",
    "sec5.*", "sec3f2.*",
)  # fmt: skip
#: the claims computed on the synthetic traces R0-R100 (and what compares with them)
_SYNTHETIC = (
    "fig11.*", "fig12.*", "fig13.*", "fig14.trend", "fig15.*", "fig16.*", "fig17.*", "fig18.*",
    "sec5.*", "sec3f2.mtpm_more_chips",
)  # fmt: skip
#: the claims DCC's throughput or peak enters (directly, or as a scheme a comparison ranks, or
#: through a Fig. 13 mean bound to a DCC comparison)
_DCC = ("fig13.*", "fig14.*", "fig15.throughput_rises", "fig15.overhead_alpha8.DCC")

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        key="dcc_decision_ns",
        default=4000,
        values=(1000, 4000, 16000),
        argument=(
            "The paper gives DCC no decision time, but describes one. DCC [7] is 'a "
            "firmware-based method' that 'requires more computation and storage space as the "
            "number of chips increases' (Sec. I), 'calculates the current for an operation before "
            "starting the operation using the current model in the controller' (Sec. II-B), and "
            "'as read operation time is shorter than program operation time, it is greatly "
            "affected by delayed time' (Sec. IV-C2). A decision of no time (0) contradicts all "
            "three: firmware takes time, a computation that grows with the chips is not free, "
            "and a delay that 'greatly' affects a 52 us read is microseconds. The range is "
            "therefore 1-16 us (sources), and the default its middle on the scale it spans "
            "(4 us: per decision, checks over the envelopes of the 8 chips the controller "
            "tracks, the growth with chips Sec. I names; about 8 % of tR). The labelled "
            "calibration (reading dcc_calibrated: the latency that makes DCC's alpha-8 overhead "
            "the paper's 8.21 %) is not among these values: the range comes from the "
            "description, not from the number it should predict; the notebook's sweep still "
            "shows 0."
        ),
        sources=(
            "1 us: a short firmware routine (a few hundred instructions on an SSD controller "
            "core at a few hundred MHz): Chang et al. [7] run their scheduler as controller "
            "firmware (verified on the OpenSSD platform in its ASP-DAC 2017 version) and check "
            "'only a few time points' per decision. 4 us: those checks over the envelopes of the "
            "8 chips the controller tracks (Sec. I: its computation grows with the chips). "
            "16 us: the upper end, about 30 % of tR = 52 us (Table IV), where a delay would "
            "dominate a read, 'greatly affected by delayed time' (Sec. IV-C2)."
        ),
        claims=_DCC,
    ),
    Assumption(
        key="device.read_current_scale",
        default=0.6,
        values=(0.5, 0.6, 0.7, 0.8, 1.0),
        argument=(
            "The shipped profiles give a read the 85.43 % of I_max that Sec. II-B cites from "
            "Grupp et al. [8], a characterisation of other chips, in the paper's motivation. The "
            "paper's own chip shows only in its evaluation, and three of its sentences bound a "
            "read's peak, the 85.43 % outside them. (1) Sec. IV-B: 'NPM and PPM incur power "
            "violations on all traces', R100 (reads only) included: at most the 8 chips read at "
            "once, so 8 reads exceed PB = 4 I_max, a read peaks above 0.5 I_max. (2) Sec. IV-C1: "
            "'R100 consists of only read operations consuming fewer tokens than other "
            "operations', an erase included, whose 72.29 % (the same source) needs 11 of 15 "
            "tokens at TG = 4 while 85.43 % needs 13: a read needs at most 10. (3) 'Therefore, "
            "it rarely waits for tokens' (Sec. IV-C1) and 'a read operation consumes a small "
            "number of tokens' (Sec. IV-C2): the fewest tokens (1) allows. A peak above 0.5 "
            "I_max needs 8 tokens at TG = 4 (7 cover 0.467 I_max), so the default is the scale "
            "of 8 tokens: 0.6 (0.513 I_max; 7 reads within the 60 tokens of alpha = 4, the "
            "eighth waits). Every read phase (setup, execution, data-out) is scaled alike, the "
            "shape kept."
        ),
        sources=(
            "1.0: the 85.43 % of [8] as Sec. II-B cites it (13 tokens). 0.8: 11 tokens, as many "
            "as an erase (72.29 % of [8]): a read no longer needs 'fewer tokens than other "
            "operations' (Sec. IV-C1). 0.7: 9 tokens, between the default's 8 and an erase's "
            "11. 0.5: 7 tokens, all 8 reads within the 60 tokens (never a wait), but 8 "
            "reads peak at 3.4 I_max, below the budget, so NPM would not violate it on R100 "
            "(Sec. IV-B)."
        ),
        claims=_SIMULATED,
    ),
    Assumption(
        key="device.channel_arbitration",
        default="commands_first",
        values=("commands_first", "dataout_first", "fifo"),
        argument=(
            "The 8 chips share one channel (Table IV: 1 channel x 8 ways); the paper's controller "
            "'delivers commands to each chip according to the address' (Sec. IV-A) and says "
            "nothing of how it orders the channel's transfers. A controller arbitrates the "
            "channel when it frees, among the chips then waiting for it; the Cosmos+ OpenSSD "
            "controller's scheduler (an SSD controller in use, firmware public) serves waiting "
            "read commands first, then erase and program commands, read data-outs last, so a "
            "chip that has finished a transfer gets its next command on the channel before the "
            "long data-outs queued behind it and no chip idles while others move data (default, "
            "'commands_first'). The alternative 'fifo' books each transfer when it is "
            "requested, which no arbiter does: a read command waits behind every data-out "
            "booked before it, so NPM's burst of reads runs in lock-step (all chips in tR "
            "together, then all data-outs), and the token schemes, which stagger starts, beat "
            "it on R100."
        ),
        sources=(
            "commands_first: Cosmos+ OpenSSD firmware (request_scheduler.c: read trigger, erase, "
            "write, then read transfer lists, each in arrival order). dataout_first: MQSim "
            "(NVM_PHY_ONFI_NVDDR2: waiting data-outs are transferred before the scheduler is "
            "told the channel is idle), a simulator's choice. fifo: each transfer booked when "
            "requested, behind every transfer booked before it."
        ),
        claims=_SIMULATED,
    ),
    Assumption(
        key="device.subatomic_guard_pct",
        default=0,
        values=(0, 25, 50, 100),
        argument=(
            "Sec. III-F1: in KMTPM (sub-atomic) 'an NFM chip transmits OI to KMTPM after a fixed "
            "delay', so token modelling 'should consider the worst-case latency' (aging) and 'the "
            "timing for the sub-atomic operations should be modeled using the worst-case "
            "latency' (process variation, 3D page location): a sub-atomic operation's surplus "
            "returns at its worst-case end, later than its nominal one. The paper's simulator "
            "'uses the measurement data' of one chip (Sec. IV-A), whose worst case is its own "
            "timing, and its evaluation varies no latency: the default times the returns at the "
            "profiles' own ends (0 %); the guard band is the alternative a real chip would "
            "carry."
        ),
        sources=(
            "Sec. III-F1 (temporal variation lengthens erases; spatial: loop counts and, in 3D "
            "chips, page location). 100 %: twice the nominal time, the spread of access speed "
            "between the layers of a 64-layer 3D charge-trap chip ('within 2x', the PPB paper "
            "of this repository, ../shared/papers/ppb_*). 25 % and 50 %: margins between none "
            "and that spread (no source gives a sub-atomic spread)."
        ),
        claims=_SIMULATED,
    ),
    Assumption(
        key=READING,
        default="subatomic",
        values=("subatomic", "atomic", "verify2", "read_on_chip"),
        argument=(
            "Three unstated choices, each a named reading scored on the same dataset (the "
            "default, 'subatomic', takes the first option of each). (1) DCC's current model: "
            "Sec. II-B says DCC 'includes current models for all operations based on a series "
            "of linear functions' and Sec. IV-C2 that an operation whose 'scheduling result "
            "... causes power budget violation at time t_x' is delayed after t_x: a "
            "time-resolved envelope, whose finest form our profiles define is the peak of every "
            "sub-atomic operation (default); 'atomic' (the peak of every atomic operation) is "
            "the coarser series. (2) Verifies per MSB loop: 'several verify operations (up to 3 "
            "times)' (Sec. IV-A); with Table IV's tPROG (LSB) 770 us and (MSB) 1.022 ms over 10 "
            "loops only 3 reproduces both with the LSB loop's phases (default); 'verify2' "
            "re-splits the phases so both tPROGs still hold. (3) Where a read's data-out "
            "happens: Sec. II-C, 'data-out is the process of transmitting data in the page "
            "buffer to the NFM controller', puts it on the channel (default). Table III gives "
            "the 3-atomic read, data-out included, an operation latency of 52 us, which read "
            "alone puts the data-out inside the chip ('read_on_chip'); but that row repeats "
            "Table IV's tPROG (LSB), tR and tBER for all three operations, and 770 us is a "
            "program's array time without the data-in its page crosses the channel with first: "
            "the row gives the chip's array times, not where a transfer to the controller goes."
        ),
        sources=(
            "DCC model: the paper (Sec. II-B, IV-C2) and Chang et al. [7]'s linear current "
            "models; verifies: Sec. IV-A ('up to 3', after Micheloni et al. [1]) with Table IV's "
            "two tPROGs; data-out: Sec. II-C (after [13]) for the channel, Table III (52 us "
            "operation latency over 3 atomic operations) and Table IV's tR for the chip."
        ),
        claims=_SIMULATED + ("tab3.*",),
    ),
    Assumption(
        key="synthetic.burst_gap_ns",
        default=0,
        values=(0, 385_000, 770_000),
        argument=(
            "The paper says only 'we use a synthetic trace because power violation occurs when "
            "chips process the burst operations. A trace consists of 5000 operations' "
            "(Sec. IV-A), and compares throughputs: the operations a scheme completes per "
            "second differ between schemes only while the chips have work queued. The default "
            "issues the 5000 operations at once (a saturated backlog: every chip always has a "
            "next operation), the only arrival the text implies; the alternatives space bursts "
            "of one operation per chip (burst_size 8) apart."
        ),
        sources=(
            "Table IV's tPROG (LSB) = 770 us: a burst of one operation per chip every 385 us "
            "(half an LSB program: program-heavy traces stay backlogged, read-heavy ones, whose "
            "operations take tR = 52 us plus the data-out, start to idle) and every 770 us (one "
            "LSB program: only R0 and R25, whose LSB / MSB programs average 896 us, still "
            "queue). A gap of tR (52 us) changes nothing: every chip is still backlogged."
        ),
        claims=_SYNTHETIC,
    ),
    Assumption(
        key="real.time_scale",
        default=0.0,
        values=(0.0, 0.1, 1.0),
        argument=(
            "The paper replays the real traces (Sec. IV-A: Financial1/2, Web1, MSR1, TPC-C from "
            "[25], [26]) without saying how their timestamps are used. Fig. 14 reports "
            "throughput losses of several % vs NPM ('on average, the throughput is decreased "
            "only by 7.1 %', Sec. IV-C2), which a device that idles between requests cannot "
            "show: the default issues every request at once (a saturated replay, as for the "
            "synthetic traces)."
        ),
        sources=(
            "The traces' own timestamps (UMass [25], SNIA [26], MQSim's bundled excerpts): 1.0 "
            "replays them as recorded, 0.1 ten times faster (an accelerated replay), 0 "
            "saturates."
        ),
        claims=("fig14.*", "sec3f2.*"),
    ),
    Assumption(
        key="device.xfer_program_ns",
        default=40960,
        values=(20480, 40960, 81920),
        argument=(
            "A program's command and data-in occupy the channel before the chip starts; the "
            "paper gives neither page size nor bus rate, only the 200 MHz system clock of "
            "Table IV (after ONFI [22]) and 'the data size is increased up to 32KB' (Sec. II-A). "
            "The default is an 8 KiB page at 200 MB/s (40.96 us), the middle of the page sizes "
            "of the chips the paper cites."
        ),
        sources=(
            "Sec. II-A ([11], [12]: pages up to 32 KB) and ONFI [22] (Table IV's 200 MHz): "
            "4 KiB (20.48 us) and 16 KiB (81.92 us) at 200 MB/s; the 14 nm chip of [17] has "
            "an 800 MB/s interface (8 KiB in 10 us), below this range."
        ),
        claims=_SIMULATED,
    ),
    Assumption(
        key="device.read_dataout_ns",
        default=40960,
        values=(20480, 40960, 81920),
        argument=(
            "Under the channel read model a read's data-out holds the channel for a page at the "
            "bus rate; the paper gives neither (see device.xfer_program_ns). The default is the "
            "same 8 KiB page at 200 MB/s as a program's data-in."
        ),
        sources=(
            "As device.xfer_program_ns: 4, 8 and 16 KiB pages at 200 MB/s (Sec. II-A, ONFI [22])."
        ),
        claims=_SIMULATED,
    ),
)
