"""skftl and MQSim side by side: same traces, matched device, whole process. Not in CI.

Run: PYTHONPATH=. python benchmarks/compare_mqsim.py --mqsim /path/to/MQSim [--requests N]

For each workload (below) and set-up (``fresh``, ``aged``) it exports one MQSim ASCII trace,
writes MQSim's ssdconfig.xml / workload.xml for it, and runs both simulators one after the
other (never at once: MQSim needs GBs) under ``/usr/bin/time -v``: wall, CPU (user + system)
and peak RSS of the whole process. skftl is ``python -m skftl replay`` on the same file (one
untimed run first compiles the kernels and caches the trace). It reports mean and p99
read / write latency, GC page copies and erases, prints a table and writes
``compare_mqsim.csv`` and ``compare_mqsim.md`` into ``--out``.

Workloads (issue #20): ``uniform_40us`` and ``uniform_10us`` — ``--requests`` requests of
4 KiB, 70 % writes, uniform over 16 GiB, one every 40 us (unsaturated) or 10 us
(saturating); ``msr_web_0`` — the first ``--requests`` of the MSR web_0 excerpt.

Devices. MQSim runs its default ssdconfig.xml (commit 7ec40e3; the copy next to the
binary), skftl the ``mqsim`` preset (skftl/nand/presets.py) that mirrors it. ``fresh``: both
empty (MQSim ``Enabled_Preconditioning`` false). ``aged``: MQSim preconditions with
``Initial_Occupancy_Percentage`` ``--aged-occupancy`` (default 70, as in MQSim's own example
workloads: that share of logical pages valid, blocks in the GC steady state of its analytic
model, FTL::Perform_precondition; 100 aborted on a 32 GiB device in
Allocate_address_for_preconditioning, "not possible to assign PPA to all LPAs"), skftl
with ``--precondition fill-random`` (every logical page written, then each overwritten once
in random order: 100 %, no other choice in ``skftl replay``). The set-ups are therefore
aged alike but not equally full.
MQSim's preconditioning collects the logical pages by random draws in a std::map (a coupon
collector over the whole logical space: 14 min for 70 % of 512 GiB here, 5 GiB RSS). A smaller
aged device (``--aged-blocks``, in BOTH simulators) would be quicker, but MQSim 7ec40e3 aborts
preconditioning at 128 blocks per plane (Allocate_address_for_preconditioning, at 100 % and
70 %), so the default is the full device; a trace whose addresses do not fit the aged device
runs fresh only.

Latency. MQSim's output XML gives one mean response time per flow, not per direction and no
percentiles. ``--instrument`` builds a copy of the MQSim source (next to the binary) with one
added line in each IO_Flow_Base::*_consume_io_request that, when the environment variable
MQSIM_LATENCY_LOG names a file, appends "is_read end_to_end_delay_ns" per request (nothing
else changes). Without it the per-direction columns of MQSim stay empty and the flow's
mean (``mean_all_us``) is reported. The same copy fixes one stale variable in
FTL::Perform_precondition without which MQSim aborts preconditioning any trace-based flow
("Unhandled address distribution type"): the aged set-up needs ``--instrument``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from bench_ftl import issue_trace  # this folder is on sys.path when run as a script

from skftl.traces import Requests, load_trace, write_mqsim

GIB = 1 << 30
SETUPS = ("fresh", "aged")
COLUMNS = (
    "workload",
    "setup",
    "sim",
    "requests",
    "read_mean_us",
    "read_p99_us",
    "write_mean_us",
    "write_p99_us",
    "mean_all_us",
    "gc_copies",
    "erases",
    "flash_programs",
    "wall_s",
    "cpu_s",
    "peak_rss_gib",
)
# MQSim's NVMe completion path and its SATA twin: the latency log goes after the delay line
DELAY_LINE = "sim_time_type request_delay = Simulator->Time() - request->Arrival_time;"
LOG_LINE = (
    ' if (FILE* f = mqsim_latency_log()) std::fprintf(f, "%d %lld\\n", '
    "request->Type == Host_IO_Request_Type::READ ? 1 : 0, (long long)request_delay);"
)
# FTL::Perform_precondition reads the trace's address distribution into decision_dist_type
# before step 1-3 classifies it, so a trace flow hits "Unhandled address distribution type"
# (the field is never set before): re-read it once classified
STEP_1_4 = "//Step 1-4: If both read and write LPAs are not enough"
PRECONDITION_FIX = "decision_dist_type = stat->Address_distribution_type;\n\t\t\t\t"
LOG_HELPER = """#include <cstdio>
#include <cstdlib>
static FILE* mqsim_latency_log()
{
	static const char* path = std::getenv("MQSIM_LATENCY_LOG");
	static FILE* f = path ? std::fopen(path, "w") : NULL;
	return f;
}
"""


def uniform(n: int, every_us: int, seed: int) -> Requests:
    """The issue's trace: 4 KiB requests, 70 % writes, uniform over 16 GiB."""
    return issue_trace(n, seed, every_us, name=f"uniform_{every_us}us")


def workloads(n: int, seed: int, trace_dirs: list[str] | None) -> dict[str, Requests]:
    real = load_trace("msr_web_0_excerpt", trace_dirs=trace_dirs)
    return {
        "uniform_40us": uniform(n, 40, seed),
        "uniform_10us": uniform(n, 10, seed),
        "msr_web_0": real.head(n),
    }


def instrument(binary: Path, work: Path) -> Path:
    """A copy of MQSim's source tree (the binary's directory) with the latency log and the
    trace-preconditioning fix, built incrementally from the copied objects; returns the new
    binary."""
    src = binary.parent
    dst = work / "mqsim_instrumented"
    if not (dst / "MQSim").exists():
        shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
        cpp = dst / "src/host/IO_Flow_Base.cpp"
        text = cpp.read_text()
        if text.count(DELAY_LINE) != 2:
            sys.exit(f"{cpp}: expected the request-delay line twice; another MQSim version?")
        text = text.replace(DELAY_LINE, DELAY_LINE + LOG_LINE)
        text = text.replace(
            '#include "IO_Flow_Base.h"\n', '#include "IO_Flow_Base.h"\n' + LOG_HELPER
        )
        cpp.write_text(text)
        ftl = dst / "src/ssd/FTL.cpp"
        text = ftl.read_text()
        if text.count(STEP_1_4) != 1:
            sys.exit(f"{ftl}: expected one step 1-4 comment; another MQSim version?")
        ftl.write_text(text.replace(STEP_1_4, PRECONDITION_FIX + STEP_1_4))
        (dst / "MQSim").unlink()
        subprocess.run(["make", "-s", "-C", str(dst)], check=True)
    return dst / "MQSim"


def ssdconfig(default: str, *, aged: bool, blocks_per_plane: int | None, ideal: bool) -> str:
    """MQSim's default ssdconfig.xml with preconditioning on/off, optionally fewer blocks
    per plane and the whole mapping table in DRAM (``Ideal_Mapping_Table``: no CMT misses)."""
    if ideal:
        default = default.replace("<Ideal_Mapping_Table>false<", "<Ideal_Mapping_Table>true<")
    text = re.sub(
        r"<Enabled_Preconditioning>\w+<",
        f"<Enabled_Preconditioning>{'true' if aged else 'false'}<",
        default,
    )
    if blocks_per_plane:
        text = re.sub(r"<Block_No_Per_Plane>\d+<", f"<Block_No_Per_Plane>{blocks_per_plane}<", text)
    return text


def workload_xml(trace: Path, occupancy: int) -> str:
    return f"""<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>
<Priority_Class>HIGH</Priority_Class>
<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs><Chip_IDs>0,1,2,3</Chip_IDs>
<Die_IDs>0,1</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>{occupancy}</Initial_Occupancy_Percentage>
<File_Path>{trace}</File_Path>
<Percentage_To_Be_Executed>100</Percentage_To_Be_Executed>
<Relay_Count>1</Relay_Count><Time_Unit>NANOSECOND</Time_Unit>
</IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>
"""


def timed(cmd: list[str], log: Path, env: dict | None = None) -> dict[str, float]:
    """Run ``cmd`` under /usr/bin/time -v (stdin closed: MQSim waits for a key at the end);
    wall and CPU seconds, peak RSS in GiB."""
    tv = log.with_suffix(".time")
    with open(log, "w") as out:
        subprocess.run(
            ["/usr/bin/time", "-v", "-o", str(tv), *cmd],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=log.parent,  # not the repository: `python -m` would import its skftl first
            check=True,
        )
    t = tv.read_text()

    def field(name: str) -> str:
        return re.search(rf"{re.escape(name)}: (.+)", t).group(1).strip()

    h_m_s = [float(x) for x in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")]
    wall = sum(v * 60**i for i, v in enumerate(reversed(h_m_s)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    rss = int(field("Maximum resident set size (kbytes)")) / (1 << 20)
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_gib": rss}


def latency_stats(is_read: np.ndarray, lat_us: np.ndarray) -> dict[str, float]:
    out = {}
    for name, mask in (("read", is_read), ("write", ~is_read)):
        x = lat_us[mask]
        out[f"{name}_mean_us"] = float(x.mean()) if len(x) else float("nan")
        out[f"{name}_p99_us"] = float(np.quantile(x, 0.99)) if len(x) else float("nan")
    out["mean_all_us"] = float(lat_us.mean()) if len(lat_us) else float("nan")
    return out


def run_mqsim(
    binary: Path, trace: Path, setup: str, args, work: Path, *, ideal: bool = False
) -> dict:
    default = (args.mqsim.parent / "ssdconfig.xml").read_text()
    aged = setup == "aged"
    name = f"{trace.stem}_{setup}{'_ideal' if ideal else ''}"
    cfg = work / f"{name}_ssd.xml"
    cfg.write_text(
        ssdconfig(
            default, aged=aged, blocks_per_plane=args.aged_blocks if aged else None, ideal=ideal
        )
    )
    wl = work / f"{name}_workload.xml"
    wl.write_text(workload_xml(trace, args.aged_occupancy if aged else 0))
    lat_log = work / f"{name}_latency.txt"
    env = {**os.environ, "MQSIM_LATENCY_LOG": str(lat_log)}
    row = timed([str(binary), "-i", str(cfg), "-w", str(wl)], work / f"{name}_mqsim.log", env)
    res = ET.parse(work / f"{name}_workload_scenario_1.xml").getroot()
    flow = res.find("Host/Host.IO_Flow")
    row["requests"] = int(flow.findtext("Request_Count"))
    row["mean_all_us"] = float(flow.findtext("End_to_End_Request_Delay"))
    ftl = res.find("SSDDevice/SSDDevice.FTL").attrib
    gc_runs = int(ftl["Total_GC_Executions"])
    moved = float(ftl["Average_Page_Movement_For_GC"]) if gc_runs else 0.0
    row["gc_copies"] = round(gc_runs * moved)  # MQSim reports runs x mean pages moved
    row["erases"] = sum(
        int(v) for k, v in ftl.items() if re.fullmatch(r"Issued_Flash_.*Erase_CMD", k)
    )
    row["flash_programs"] = sum(
        int(v)
        for k, v in ftl.items()
        if re.fullmatch(r"Issued_Flash_.*Program_CMD(_For_Mapping)?", k)
    )
    if lat_log.exists() and lat_log.stat().st_size:
        log = np.loadtxt(lat_log, dtype=np.int64, ndmin=2)
        row.update(latency_stats(log[:, 0] == 1, log[:, 1] / 1e3))
    return row


def skftl_command(trace: Path, setup: str, args, work: Path, summary: Path) -> list[str]:
    """``python -m skftl replay`` as a whole process; for the smaller aged device the child
    first overrides the preset's blocks_per_plane (replay takes a preset by name only)."""
    argv = ["--cache-dir", str(work / "cache"), "replay", str(trace), "--format", "mqsim"]
    argv += ["--preset", "mqsim", "--json", str(summary)]
    if setup == "fresh":
        return [sys.executable, "-m", "skftl", *argv]
    argv += ["--precondition", "fill-random"]
    child = (
        "import sys; from skftl.nand.presets import PRESETS; "
        f"PRESETS['mqsim'] = {{**PRESETS['mqsim'], 'blocks_per_plane': {args.aged_blocks}}}; "
        f"from skftl.cli import main; sys.exit(main({argv!r}))"
    )
    return [sys.executable, "-c", child]


def run_skftl(trace: Path, setup: str, args, work: Path) -> dict:
    name = f"{trace.stem}_{setup}"
    summary = work / f"{name}_skftl.json"
    cmd = skftl_command(trace, setup, args, work, summary)
    # untimed: compile, cache the trace
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=work)
    row = timed(cmd, work / f"{name}_skftl.log")
    s = json.loads(summary.read_text())
    row["requests"] = s["requests"]
    for d in ("read", "write"):
        row[f"{d}_mean_us"] = s[f"{d}_latency_mean_us"]
        row[f"{d}_p99_us"] = s[f"{d}_latency_p99_us"]
    n_r, n_w = s["read_requests"], s["write_requests"]
    row["mean_all_us"] = (n_r * row["read_mean_us"] + n_w * row["write_mean_us"]) / (n_r + n_w)
    row["gc_copies"], row["erases"] = s["gc_copies"], s["erases"]
    row["flash_programs"] = round(s["waf"] * s["host_writes"])  # waf: programs / host pages
    return row


def fmt(v) -> str:
    if isinstance(v, float):
        return "" if v != v else f"{v:,.1f}" if abs(v) < 1e5 else f"{v:,.0f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def write_outputs(rows: list[dict], out: Path) -> None:
    with open(out / "compare_mqsim.csv", "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(fmt(r.get(c, float("nan"))) for c in COLUMNS) + " |" for r in rows]
    (out / "compare_mqsim.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--mqsim", type=Path, default=None, help="MQSim binary (its source dir next to it)"
    )
    ap.add_argument("--requests", type=int, default=100_000, help="requests per trace")
    ap.add_argument("--aged-blocks", type=int, default=2048, help="blocks per plane, aged set-up")
    ap.add_argument(
        "--aged-occupancy",
        type=int,
        default=70,
        help="MQSim's Initial_Occupancy_Percentage, aged set-up (see above)",
    )
    ap.add_argument(
        "--instrument",
        action="store_true",
        help="build a copy of MQSim with a latency log and the trace-preconditioning fix",
    )
    ap.add_argument("--workloads", default="uniform_40us,uniform_10us,msr_web_0")
    ap.add_argument("--setups", default=",".join(SETUPS))
    ap.add_argument(
        "--sims",
        default="skftl,MQSim,MQSim ideal map",
        help="MQSim ideal map: Ideal_Mapping_Table true (no CMT, no mapping reads)",
    )
    ap.add_argument(
        "--sims-aged",
        default="skftl,MQSim",
        help="simulators of the aged set-up (MQSim's preconditioning takes minutes per run)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trace-dir", action="append", help="where msr_web_0_excerpt is found")
    ap.add_argument("--out", type=Path, default=Path("/tmp/compare_mqsim"))
    args = ap.parse_args(argv)
    if args.mqsim is None or not args.mqsim.is_file() or not os.access(args.mqsim, os.X_OK):
        sys.exit(
            f"--mqsim: no MQSim binary at {args.mqsim}. Build CMU-SAFARI/MQSim (make, g++ -O3) "
            "and pass the binary; its ssdconfig.xml must sit next to it."
        )
    if not (args.mqsim.parent / "ssdconfig.xml").exists():
        sys.exit(f"--mqsim: no ssdconfig.xml next to {args.mqsim}")
    args.out.mkdir(parents=True, exist_ok=True)
    if "aged" in args.setups and not args.instrument:
        sys.exit("the aged set-up needs --instrument (MQSim cannot precondition a trace flow)")
    binary = instrument(args.mqsim, args.out) if args.instrument else args.mqsim
    chosen = args.workloads.split(",")
    traces, fits_aged = {}, {}
    aged_logical = 8 * 4 * 2 * 2 * args.aged_blocks * 256 * 8192 * 0.93  # mqsim preset
    for name, req in workloads(args.requests, args.seed, args.trace_dir).items():
        if name in chosen:
            traces[name] = args.out / f"{name}.trace"
            write_mqsim(req, traces[name])
            fits_aged[name] = int((req.offset_bytes + req.size_bytes).max()) <= aged_logical
    rows = []
    for setup in args.setups.split(","):  # every fresh run first: the aged ones are slow
        for name, trace in traces.items():
            if setup == "aged" and not fits_aged[name]:
                print(f"{name}: addresses beyond the aged device's logical space; fresh only")
                continue
            sims = {
                "skftl": run_skftl,
                "MQSim": lambda t, s, a, w: run_mqsim(binary, t, s, a, w),
                "MQSim ideal map": lambda t, s, a, w: run_mqsim(binary, t, s, a, w, ideal=True),
            }
            for sim in (args.sims if setup == "fresh" else args.sims_aged).split(","):
                run = sims[sim]
                print(f"{name} {setup} {sim} ...", flush=True)
                row = {
                    "workload": name,
                    "setup": setup,
                    "sim": sim,
                    **run(trace, setup, args, args.out),
                }
                rows.append(row)
                write_outputs(rows, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
