"""A policy is a module of hooks living anywhere: loaded by name, module or path, its replay
kernel built for it alone and cached under its file's digest; bad policies are config errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing, hooks
from skftl.nand.policy import BUILTIN, kernels, load
from skftl.numba_cache import drop_stale_variants
from tests.nand.test_policies_skftl import NAND  # 2 chips x 64 blocks x 16 pages

ROOT = Path(__file__).resolve().parents[2]
# a user's policy that restates the conventional FTL's prefetch: the same kernel results
SAME_AS_PAGE = """
from skftl.nand.core import inline

NAME = "same_as_page"


@inline
def prefetch(S, lpn):
    return 0
"""


def ftl(policy: object, n_streams: int = 1) -> Ftl:
    cfg = FtlConfig(spare_factor=0.3, gc_low_blocks=3, gc_high_blocks=4, n_streams=n_streams)
    return Ftl(Geometry.from_config(NAND), Timing.from_config(NAND), cfg, policy=policy)


def run(f: Ftl, seed: int = 1, hot: bool = False) -> tuple[dict, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 6 * f.n_lpn
    if hot:  # 80 % of writes to 10 % of the pages
        lpn = np.where(
            rng.random(n) < 0.8,
            rng.integers(0, f.n_lpn // 10, n),
            rng.integers(0, f.n_lpn, n),
        )
    else:
        lpn = rng.integers(0, f.n_lpn, n)
    op = np.where(rng.random(n) < 0.2, 0, 1).astype(np.int8)
    t = np.cumsum(rng.integers(0, 200_000, n)).astype(np.int64)
    done = f.run_pages(lpn.astype(np.int32), op, time_ns=t)
    return f.counters(), done


def test_builtins_load_by_name_with_the_defaults_filled() -> None:
    for name in BUILTIN:
        p = load(name)
        assert p.name == name
        for hook in hooks.HOOKS:
            assert callable(getattr(p.hooks, hook))
    assert load("page").hooks is hooks and load("page").plane_write_points
    assert load("sk-ftl").hooks.write_stream is hooks.write_stream  # not its own: a default
    assert not load("sk-ftl").plane_write_points


def test_a_policy_file_runs_its_own_kernel_cached_for_the_next_process(tmp_path: Path) -> None:
    path = tmp_path / "same_as_page.py"
    path.write_text(SAME_AS_PAGE)
    mine, page = ftl(str(path)), ftl("page")
    assert mine.policy.name == "same_as_page" and mine._kernels.replay is not page._kernels.replay
    (c1, d1), (c2, d2) = run(mine), run(page)
    assert c1 == c2 and np.array_equal(d1, d2)  # same hooks, same machine, same results
    # a second process loads the policy's kernel from the disk cache: no compile
    child = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from tests.nand.test_policy import ftl, run
        f = ftl({str(path)!r})
        run(f)
        print(json.dumps({{"hits": sum(f._kernels.replay.stats.cache_hits.values()),
                           "misses": sum(f._kernels.replay.stats.cache_misses.values())}}))
    """)
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    stats = json.loads(out.stdout.strip().splitlines()[-1])
    assert stats == {"hits": 1, "misses": 0}, out.stderr[-2000:]


def test_an_edit_of_the_policy_is_a_new_variant_and_the_old_one_is_dropped(
    tmp_path: Path,
) -> None:
    path = tmp_path / "edited.py"
    path.write_text(SAME_AS_PAGE)
    before = load(str(path))
    path.write_text(SAME_AS_PAGE.replace("return 0", "return 0 * lpn"))
    after = load(str(path))
    assert before.variant != after.variant
    assert before.variant.split("-")[0] == after.variant.split("-")[0]
    # the stale variant's cache files go, the current one's and others' stay
    cache = tmp_path / "kernels" / "__pycache__"
    cache.mkdir(parents=True)
    names = [
        f"kernel.replay-1_abc_{before.variant}.py311.nbi",
        f"kernel.replay-1_abc_{after.variant}.py311.nbi",
        "kernel.replay-1_abc_sk_ftl-0123456789ab.py311.nbi",
    ]
    for n in names:
        (cache / n).write_text("")
    drop_stale_variants(tmp_path / "kernels" / "kernel.py", after.variant)
    assert sorted(p.name for p in cache.iterdir()) == sorted(names[1:])


def test_the_tutorial_policy_separates_hot_from_cold() -> None:
    # the notebook's policy: updated pages get their own write point, so GC copies fewer
    # valid pages than the conventional FTL's one write point on a skewed workload
    hot_cold = ftl(str(ROOT / "notebooks" / "hot_cold_policy.py"), n_streams=2)
    assert hot_cold.policy.name == "hot_cold" and len(hot_cold.state.pstate) == hot_cold.n_lpn
    mine, _ = run(hot_cold, hot=True)
    conv, _ = run(ftl("page"), hot=True)
    assert mine["host_writes"] == conv["host_writes"]
    assert mine["gc_copies"] < 0.8 * conv["gc_copies"]
    written = hot_cold.state.pstate
    assert written.sum() == mine["host_writes"]  # the policy's own state: writes per page


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("X = 1\n", "defines none of the hooks"),
        ("def select_block(S, chip, stream, lpn, old, is_gc):\n    return 0\n", "Numba function"),
        ("raise RuntimeError('broken')\n", "failed to load"),
    ],
)
def test_a_bad_policy_is_a_config_error_naming_the_key(tmp_path: Path, text, message) -> None:
    path = tmp_path / f"bad_{abs(hash(text))}.py"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as err:
        load(str(path))
    assert "ftl.policy" in str(err.value)
    with pytest.raises(ConfigError, match="ftl.policy"):
        load("no_such_module_of_policies")
    with pytest.raises(ConfigError, match="no policy file"):
        load(str(tmp_path / "absent.py"))


def test_kernels_are_built_once_per_policy() -> None:
    assert kernels(load("sk-ftl")) is kernels(load("sk-ftl"))
