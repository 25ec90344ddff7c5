"""Registry of known block traces: what each is, where it comes from, how to check it,
and where to look for a copy a user placed by hand.

Verification rule: ``checksums`` ("algorithm:hex") describe the file as distributed
(``filenames[0]``) and apply to a located file compressed the same way; ``content_sha256``
is the sha256 of the decompressed text and applies to any copy (plain, .gz or .bz2).
A located file must pass one applicable check; with no applicable check it is used
unverified (``locate`` says so).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from skftl.config import DEFAULT_CONFIG, REPO_ROOT, load_config
from skftl.config import trace_dirs as config_trace_dirs
from skftl.errors import ChecksumError, ConfigError, SkftlError, UnknownTraceError
from skftl.traces.textio import DECOMPRESSION_ERRORS, compression_of, content_digest, file_digest

DEFAULT_RAW_DIR = REPO_ROOT / "data" / "raw"
FETCH_TIMEOUT_S = 5


class TraceNotFoundError(UnknownTraceError):
    """A registered trace with no copy in the trace folders."""


class FetchError(SkftlError):
    """A download that failed or cannot be automated."""


@dataclass(frozen=True)
class KnownTrace:
    name: str
    format: str
    description: str
    stands_for: str
    citation: str
    urls: tuple[str, ...]  # canonical source(s); fetch tries them in order
    filenames: tuple[str, ...]  # candidate paths relative to a trace folder
    checksums: tuple[str, ...] = ()  # "algorithm:hex" of the distributed file
    content_sha256: str | None = None  # sha256 of the decompressed text
    requests: int | None = None  # number of requests, where known (checked after a load)
    size_bytes: int | None = None  # published size of filenames[0] as distributed
    direct_download: bool = True  # False: urls[0] is a landing page (licence terms)
    archive: bool = False  # a tarball of several traces, not one trace
    options: dict[str, Any] = field(default_factory=dict)  # reader options

    @property
    def download_name(self) -> str:
        """File name a download (or a copy placed by hand in data/raw) gets."""
        if self.direct_download:
            return self.urls[0].rsplit("/", 1)[-1]
        return self.filenames[0]


# --- the entries -----------------------------------------------------------------------

_UMASS_PAGE = "https://traces.cs.umass.edu/docs/traces/storage/"
_UMASS_CITE = (
    "UMass Trace Repository, Storage traces (OLTP Application I/O and Search Engine I/O), "
    "courtesy of the Storage Performance Council; " + _UMASS_PAGE
)
_OLTP = "OLTP at a large financial institution"
_UMASS = {
    "Financial1": ("5f705113ef5ab0b7cf033894e03ff0b050927ffd", _OLTP),
    "Financial2": ("ca788d7ec7b3700c989c252752af54c68a637a4a", _OLTP),
    "WebSearch1": ("4952e8eee9ea0117d6fc010779b32c3260ce6ead", "a popular search engine"),
    "WebSearch2": ("6d44ce16f4233a74be4a42c54bce7cca1197098a", "a popular search engine"),
    "WebSearch3": ("b01df4d3a1d3379d8a33dfb35958e8749e6c4e02", "a popular search engine"),
}

_MSR_PAGE = "http://iotta.snia.org/traces/block-io/388"
_MSR_CITE = (
    "D. Narayanan, A. Donnelly, A. Rowstron, 'Write Off-Loading: Practical Power Management "
    "for Enterprise Storage', USENIX FAST 2008; SNIA IOTTA trace set 388 (MSR Cambridge)"
)
_MSR_SERVERS = {
    "hm": ("hardware monitoring", 2),
    "mds": ("media server", 2),
    "prn": ("print server", 2),
    "proj": ("project directories", 5),
    "prxy": ("firewall/web proxy", 2),
    "rsrch": ("research projects", 3),
    "src1": ("source control", 3),
    "src2": ("source control", 3),
    "stg": ("web staging", 2),
    "ts": ("terminal server", 1),
    "usr": ("user home directories", 3),
    "wdev": ("test web server", 4),
    "web": ("web/SQL server", 4),
}
# published facts about the full volumes (shared traces README: hm_0.csv.gz is 41,967,571
# bytes with 3,993,317 records); no checksum of any MSR volume is published
_MSR_REQUESTS = {"hm_0": 3_993_317}
_MSR_SIZES = {"hm_0": 41_967_571}

_GH = "https://raw.githubusercontent.com"
_MQSIM_CITE = (
    "A. Tavakkol et al., 'MQSim: A Framework for Enabling Realistic Studies of Modern "
    "Multi-Queue SSD Devices', USENIX FAST 2018; trace bundled with umn-cris/MQSim"
)
_HEIMDALL_CITE = (
    "ucare-uchicago/Heimdall (FlashNet/Heimdall ML-based I/O admission), "
    "ds_pipeline/data/raw_data; cut of an unnamed MSR Cambridge volume"
)
_PIXEL_CITE = (
    "Technion ACSL, 'Space-efficient FTL for Mobile Storage via Tiny Neural Nets', "
    "acsl-technion/MobileBlockIOTraces (Pixel 6a block traces, 2023-24)"
)
_PIXEL_APPS = {
    "cod": "Call of Duty",
    "diablo": "Diablo Immortal",
    "genshin_impact": "Genshin Impact",
    "pubg": "PUBG",
    "slideshow": "F-Stop slideshow",
    "telegram": "Telegram",
    "you_cut": "YouCut",
}
# name, folder, file, upstream repo@commit/path, sha256 of the .gz copy,
# sha256 of the text, requests: from ../shared/traces/MANIFEST.tsv
_SHARED: tuple[tuple[str, str, str, str, str, str, int], ...] = (
    ("msr_web_0_excerpt", "msr_cambridge", "web_1.csv.gz",
     "pbhandar2/skeletor-offline/1745e13b815e63a3265310364f16595a00925ccb/test/web_1.csv.gz",
     "07c4ddc7a4054669f353b3b621359621f358ef0233aaf77c5f970be9eaf559b5",
     "9dcf213cd031f19cc6fd46028c3d34191f2b35e958e05e16ca5ff08b3ef751c2", 100_000),
    ("wsrch-small", "mqsim_bundled", "wsrch-small.trace.gz",
     "umn-cris/MQSim/0f82479945da001dfc166d5006126e8c6d9a0641/traces/wsrch-small.trace",
     "926e1e8e673a406c8236e43588d53405394f93b85e1a541710bfd346feedd37a",
     "84ebefd565aeb5db3bb807ef3c609e952aeaa59c4e78e132181059d0c5ea74d1", 24_783),
    ("tpcc-small", "mqsim_bundled", "tpcc-small.trace.gz",
     "umn-cris/MQSim/0f82479945da001dfc166d5006126e8c6d9a0641/traces/tpcc-small.trace",
     "cdb5f6e5e962bb8a52aa79d8cabe59a2fecf2d75d32f4406d97ee000a14902d3",
     "404dd97c3fd4bf605c23abb1f57823226d31da9ed5caeb37b01236496a81fa56", 6_999),
    ("heimdall_rw_20_80_105", "msr_derived_heimdall", "msr.cut.per_10k.rw_20_80.105.trace.gz",
     "ucare-uchicago/Heimdall/dd0e0d1903e9c9a2c5c62c8056035d18860c40e1/ds_pipeline/data/"
     "raw_data/msr.cut.per_10k.rw_20_80.105.trace",
     "8057181f51cbb2deb35c0ee0da3d1f58a65af67cccacba3f516e0cf603ee47f2",
     "ef43beb542f4497041fc57dfdec199ba1dee96f4d578536cb31c227ee1ab0db5", 10_000),
    ("heimdall_rand_iops_1006", "msr_derived_heimdall",
     "msr.cut.per_10k.most_thpt_rand_iops.1006.trace.gz",
     "ucare-uchicago/Heimdall/dd0e0d1903e9c9a2c5c62c8056035d18860c40e1/ds_pipeline/data/"
     "raw_data/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
     "2b0fd3676fc70c1dcec235dece916e60ed2e353d78ab095c12b0a6a174453112",
     "641d91becb6cba535cfbb8d2fb935c60278c7697f2ef05f573c7f8128742e924", 10_000),
) + tuple(
    (f"pixel6a_{stem}", "mobile_pixel6a", f"{stem}.csv.gz",
     f"acsl-technion/MobileBlockIOTraces/bc8e767b691af052fd091361797cc523259f3cf3/{stem}.csv.gz",
     gz, text, n)
    for stem, gz, text, n in (
        ("cod_exec", "4cddb1644ef8528944ddcac050af3d5a0011080fc04caf50b13bd23b4697e9b9",
         "845385d13e0cddd6fd8dd39fce50d90d439cb297f6840e6e7d0c38a261f82c64", 223_998),
        ("cod_precond", "e4d64fac616760a96d57591f42a05b06cab2e862fdc4ce5ef487f0f9b309147c",
         "644162b7345a20bc5d58073f289b9e6c9011bfda65816351905cc04ad8c6e4ec", 72_878),
        ("diablo_exec", "8e67c32d53ff843bdf86138a6ac82275526a1c3e62bafec4c19042cc0927f901",
         "84a30d157abadb6e6f3a9018790c54e058d67fd14809aa6d889b3fe136ffc8eb", 337_415),
        ("genshin_impact_exec",
         "82da31ccd8279f1708ff60e7fb766328f0fd14bba0b2381cf1de7a943bf41cea",
         "98e164d26fb3d1b7b7c66402264c0c49b141475f31c66f8468437b14f5cbbe5a", 91_317),
        ("genshin_impact_precond",
         "ffb93300519568c9775fc194e1380b7f9b4a8133f7d8ee6cdb0c2dc2090ce561",
         "91b59d5940cfc487841a8236b4a4f62f35f32ace295b55cd78781754ccc97dd5", 141_152),
        ("pubg_exec", "1fc12e785a362719a81421df5be55ab0f8c9bad642483a8f1832a04670ad7e41",
         "55fbfcd829a707029f2df788e29c27fb407c9ca8c012365f55941cd988e1672b", 67_757),
        ("pubg_precond", "4ed67ac8144ee97ebd6e3f3b0c224e39948c5fa52a090522c650ae0b7ace2933",
         "9a32f7520b4d20f5c0878e440affe3ac743854c900b7c327d1b4c286a7d13d0d", 51_110),
        ("slideshow_exec", "038ddc0fde65a316161ce044ff3dd426c521ac84e2328243b3015bfd932da713",
         "dde638342f9cdfafa9e854ce59754ca340c4edfe71cb54d5bae26127a0b8d604", 84_197),
        ("slideshow_precond",
         "52932d882544274ab04e4d6e98916b6f335aa5d6dde0c7921107c31b33ade42d",
         "bd70fb451b5233b732f05579b1cb3ec87d50b8dc253b87fffc19d9649d6183a2", 332_321),
        ("telegram_precond",
         "61477c297559aad7b826d1acbdefdd4ffc0c692fc5173b0688731c54c2ba7551",
         "8b9afd4088c32acdbd283cdb9896a2103ccb729c6de330529bb70c8b219293a4", 5_320),
        ("you_cut_precond", "89d59f7b5f417a6b8f110aac5f228abc81701bb4f82f54a0fb1ef3821fb1982d",
         "9e74092e407fb7d2d1f74c5fd3b19813320396ff40251a518e463f072faf3b69", 85_628),
    )
)  # fmt: skip


def _shared_entry(row: tuple[str, str, str, str, str, str, int]) -> KnownTrace:
    name, folder, fname, upstream, gz_sha, text_sha, n = row
    url = f"{_GH}/{upstream}"
    upstream_name = url.rsplit("/", 1)[1]
    if name.startswith("pixel6a_"):
        stem = fname.removesuffix(".csv.gz")
        app = _PIXEL_APPS[stem.rsplit("_", 1)[0]]
        kind = "app install writes (replay first)" if "precond" in stem else "app usage"
        fmt, cite = "mobile", _PIXEL_CITE
        desc = f"Pixel 6a block trace, {app}: {kind}"
        stands = "Nexus 5 smartphone traces (modern substitute: other device and apps)"
    elif name.startswith("heimdall_"):
        fmt, cite = "heimdall", _HEIMDALL_CITE
        desc = "10,000-IO re-timed cut of an unnamed MSR Cambridge volume"
        stands = "MSR Cambridge (smoke tests only; volume unknown, timing rescaled)"
    elif name == "msr_web_0_excerpt":
        fmt, cite = "msr", _MSR_CITE
        desc = "100,000 consecutive records of MSR web_0 (named web_1 upstream)"
        stands = "MSR Cambridge web server (web_0 excerpt, 3.84 h of ~7 days)"
    elif name == "wsrch-small":
        fmt, cite = "mqsim", _MQSIM_CITE
        desc = "first ~60 s of a UMass WebSearch SPC trace in MQSim format (device = ASU)"
        stands = "UMass WebSearch1/2/3 (60-second prefix; which one is not stated)"
    else:
        fmt, cite = "mqsim", _MQSIM_CITE
        desc = "short TPC-C block-trace excerpt bundled with MQSim (16 devices, 0.14 s)"
        stands = "OLTP (weak stand-in for UMass Financial1/2)"
    return KnownTrace(
        name=name,
        format=fmt,
        description=desc,
        stands_for=stands,
        citation=cite,
        urls=(url,),
        filenames=(f"{folder}/{fname}", fname, upstream_name),
        checksums=(f"sha256:{gz_sha}",),
        content_sha256=text_sha,
        requests=n,
    )


def _build() -> dict[str, KnownTrace]:
    entries: list[KnownTrace] = []
    for name, (sha1, what) in _UMASS.items():
        fname = f"{name}.spc.bz2"
        entries.append(
            KnownTrace(
                name=name,  # as the papers and traces.workloads spell it; lookups ignore case
                format="spc",
                description=f"UMass/SPC {name}: I/O of {what} (ASUs mapped to own regions)",
                stands_for=f"UMass {name} (paper workload)",
                citation=_UMASS_CITE,
                urls=(
                    f"https://skulddata.cs.umass.edu/traces/storage/{fname}",
                    f"http://skuld.cs.umass.edu/traces/storage/{fname}",
                ),
                filenames=(fname, f"{name}.spc", f"umass/{fname}", f"umass/{name}.spc"),
                checksums=(f"sha1:{sha1}",),
            )
        )
    for server, (what, count) in _MSR_SERVERS.items():
        for i in range(count):
            vol = f"{server}_{i}"
            entries.append(
                KnownTrace(
                    name=f"msr_{vol}",
                    format="msr",
                    description=f"MSR Cambridge volume {vol}: {what}, one week (2007)",
                    stands_for=f"MSR Cambridge {what} ({vol})",
                    citation=_MSR_CITE,
                    urls=(_MSR_PAGE,),
                    # not msr_cambridge/: the shared web_1.csv.gz there holds web_0 records
                    filenames=(
                        f"{vol}.csv.gz",
                        f"{vol}.csv",
                        f"MSR-Cambridge/{vol}.csv.gz",
                        f"msr/{vol}.csv.gz",
                        f"msr/{vol}.csv",
                    ),
                    requests=_MSR_REQUESTS.get(vol),
                    size_bytes=_MSR_SIZES.get(vol),
                    direct_download=False,
                )
            )
    entries.append(
        KnownTrace(
            name="nexus5",
            format="nexus5",
            description="SNIA Nexus 5 kernel BIOTracer traces: tarball of log1NN_<App>.txt "
            "files under WorkSpace_nexus5/Trace_files/ (extract, then load a log by path)",
            stands_for="Nexus 5 smartphone workloads (music+Twitter, copy, OS install, "
            "Facebook, Maps, browsing)",
            citation="D. Zhou, W. Pan, W. Wang, T. Xie, 'I/O Characteristics of Smartphone "
            "Applications and Their Implications for eMMC Design', IISWC 2015; SNIA IOTTA",
            urls=("http://iotta.snia.org/traces/block-io",),
            filenames=(
                "Nexus5_Kernel_BIOTracer_traces.tar.gz",
                "nexus5/Nexus5_Kernel_BIOTracer_traces.tar.gz",
            ),
            direct_download=False,
            archive=True,
        )
    )
    entries += [_shared_entry(row) for row in _SHARED]
    return {e.name: e for e in entries}


REGISTRY: dict[str, KnownTrace] = _build()


def list_known() -> list[KnownTrace]:
    """Every registered trace, in registration order."""
    return list(REGISTRY.values())


def get(name: str) -> KnownTrace:
    """The registry entry for ``name`` (case-insensitive); UnknownTraceError otherwise."""
    entry = REGISTRY.get(name) or next(
        (e for key, e in REGISTRY.items() if key.lower() == name.lower()), None
    )
    if entry is None:
        lowered = {key.lower(): key for key in REGISTRY}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=5, cutoff=0.5)
        close = [lowered[c] for c in close]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownTraceError(
            f"unknown trace {name!r} (not registered and not a file){hint} "
            "`skftl traces list` shows the registered traces"
        )
    return entry


# --- trace folders, verification, locate, fetch ----------------------------------------


def resolve_trace_dirs(trace_dirs: list[str | Path] | None = None) -> list[Path]:
    """The folders to search: ``trace_dirs`` when given, else ``SKFTL_TRACE_DIRS`` then the
    config file's ``traces.trace_dirs``. Folders that do not exist are kept (searching
    skips them; ``require_dirs`` turns them into an error where the user named them)."""
    if trace_dirs is not None:
        return [Path(d) for d in trace_dirs]
    return config_trace_dirs(load_config() if DEFAULT_CONFIG.is_file() else {})


def default_raw_dir() -> Path:
    """Where ``fetch`` puts downloads: config ``traces.raw_dir``, else data/raw."""
    cfg = load_config() if DEFAULT_CONFIG.is_file() else {}
    value = (cfg.get("traces", {}) or {}).get("raw_dir")
    if value is None:
        return DEFAULT_RAW_DIR
    return Path(value) if Path(value).is_absolute() else REPO_ROOT / value


def search_dirs(trace_dirs: list[str | Path] | None = None) -> list[Path]:
    """The trace folders followed by the download folder (fetched traces are found)."""
    dirs = resolve_trace_dirs(trace_dirs)
    return dirs + [d for d in [default_raw_dir()] if d not in dirs]


def require_dirs(dirs: list[str | Path]) -> list[Path]:
    """``dirs`` as paths; ConfigError naming the first that is not a folder."""
    paths = [Path(d) for d in dirs]
    for d in paths:
        if not d.is_dir():
            raise ConfigError(f"trace folder does not exist: {d}")
    return paths


def _suffix_compression(name: str) -> str | None:
    return {"gz": "gzip", "bz2": "bz2"}.get(name.rsplit(".", 1)[-1].lower())


_verified: dict[tuple, str | None] = {}

UNVERIFIED = "UNVERIFIED"


def verify(path: str | Path, entry: KnownTrace) -> bool:
    """True when ``path`` passes an applicable check of ``entry``, False when no check
    applies (unverified); ChecksumError naming file, expected and actual otherwise."""
    return check_copy(path, entry) is not None


def verification(path: str | Path, entry: KnownTrace | None) -> str:
    """How a located copy was checked, for every place a trace is shown: "verified
    (<check>)", or "UNVERIFIED (<why>)"; ChecksumError when a check fails."""
    if entry is None:
        return f"{UNVERIFIED} (a file given by path, not a registered trace)"
    how = check_copy(path, entry)
    if how is not None:
        return f"verified ({how})"
    return f"{UNVERIFIED} (no registered checksum or size applies to this copy)"


def check_copy(path: str | Path, entry: KnownTrace) -> str | None:
    """The check ``path`` passed ("sha256 of the file", "size", ...), None when no check
    applies; ChecksumError naming file, expected and actual when one fails."""
    path = Path(path)
    st = path.stat()
    memo = (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ctime_ns, entry.name)
    if memo in _verified:
        return _verified[memo]
    expected: list[str] = []
    actual: list[str] = []
    ok = None
    how = None
    as_distributed = compression_of(path) == _suffix_compression(entry.filenames[0])
    if entry.size_bytes is not None and as_distributed:
        if st.st_size != entry.size_bytes:
            raise ChecksumError(
                f"{path}: size mismatch for trace {entry.name!r}: expected the published "
                f"{entry.size_bytes:,} bytes, got {st.st_size:,}"
            )
        ok, how = True, f"published size {entry.size_bytes:,} bytes; no checksum published"
    if entry.checksums and as_distributed:  # any one matching checksum will do
        ok, how = False, None
        for checksum in entry.checksums:
            algorithm, hexdigest = checksum.split(":", 1)
            got = file_digest(path, algorithm)
            expected.append(checksum)
            actual.append(f"{algorithm}:{got}")
            if got == hexdigest.lower():
                ok, how = True, f"{algorithm} of the file"
    if not ok and entry.content_sha256:
        try:
            got = content_digest(path)
        except DECOMPRESSION_ERRORS as exc:
            got = f"(cannot decompress: {exc})"
        expected.append(f"sha256:{entry.content_sha256} of the decompressed text")
        actual.append(f"sha256:{got} of the decompressed text")
        ok = got == entry.content_sha256
        how = "sha256 of the decompressed text" if ok else None
    if ok is None:
        _verified[memo] = None
        return None
    if not ok:
        raise ChecksumError(
            f"{path}: checksum mismatch for trace {entry.name!r}: expected "
            f"{' or '.join(expected)}, got {', '.join(actual)}"
        )
    _verified[memo] = how
    return how


def locate(name: str, trace_dirs: list[str | Path] | None = None) -> Path | None:
    """Path of a user-placed copy of trace ``name`` in the trace folders (checked against
    the registry's checksums), or None when there is none. The download folder
    (``default_raw_dir()``) is searched last; absent folders are skipped."""
    entry = get(name)
    for folder in search_dirs(trace_dirs):
        if not folder.is_dir():
            continue
        for candidate in entry.filenames:
            path = folder / candidate
            if path.is_file():
                verify(path, entry)
                return path
    return None


def placement_hint(entry: KnownTrace, raw_dir: Path | None = None) -> str:
    where = raw_dir or default_raw_dir()
    return (
        f"download {entry.download_name.rsplit('/', 1)[-1]} from {entry.urls[0]} and place "
        f"it at {where / entry.download_name} (or in any trace folder: --trace-dir, "
        "SKFTL_TRACE_DIRS or config traces.trace_dirs)"
    )


def fetch(name: str, raw_dir: str | Path | None = None) -> Path:
    """Download trace ``name`` into ``raw_dir`` (default data/raw) with pooch and verify
    it; an existing verified copy is reused. Fails at once (short timeout) when offline,
    saying where to place the file by hand."""
    entry = get(name)
    raw_dir = Path(raw_dir) if raw_dir is not None else default_raw_dir()
    target = raw_dir / entry.download_name
    if target.is_file():
        verify(target, entry)
        return target
    if not entry.direct_download:
        raise FetchError(
            f"trace {entry.name!r} has no direct download (licence terms on the page): "
            + placement_hint(entry, raw_dir)
        )
    import pooch

    pooch.get_logger().setLevel("WARNING")
    target.parent.mkdir(parents=True, exist_ok=True)
    part = f".{target.name}.part"
    (target.parent / part).unlink(missing_ok=True)  # never trust a leftover
    failures = []
    for url in entry.urls:
        try:
            tmp = Path(
                pooch.retrieve(
                    url,
                    known_hash=None,
                    fname=part,
                    path=target.parent,
                    downloader=pooch.HTTPDownloader(timeout=FETCH_TIMEOUT_S, progressbar=False),
                )
            )
        except Exception as exc:  # noqa: BLE001 - any network failure: try the next URL
            failures.append(f"{urlparse(url).netloc or url}: {_download_failure(exc)}")
            continue
        try:
            verify(tmp, entry)
        except ChecksumError:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, target)
        return target
    raise FetchError(
        f"could not download trace {entry.name!r} ({'; '.join(failures)}). By hand: "
        + placement_hint(entry, raw_dir)
    )


def _download_failure(exc: Exception) -> str:
    """Why a download failed, in a few words (the raw exception text of the HTTP stack is
    long and says little more)."""
    import requests

    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code} {exc.response.reason or ''}".strip()
    if isinstance(exc, requests.Timeout):
        return f"no answer within {FETCH_TIMEOUT_S} s"
    if isinstance(exc, requests.ConnectionError):
        return "cannot connect (offline, or the host is down)"
    return type(exc).__name__
