"""Whether SLURM can serve the workflow's cluster profile."""

from __future__ import annotations


def sacct_unusable(timeout_s: float = 20) -> str | None:
    """Why SLURM's ``sacct`` cannot report job states here (None when it can). Without job
    accounting (no slurmdbd) ``sacct`` exists but only answers "Slurm accounting storage is
    disabled"; the SLURM executor plugin, polling it, would wait forever for finished jobs."""
    import shutil
    import subprocess

    if shutil.which("sacct") is None:
        return "no sacct command"
    try:
        res = subprocess.run(
            ["sacct", "--noheader", "-X", "--starttime", "now"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"sacct failed ({type(exc).__name__})"
    answer = (res.stdout + res.stderr).strip()
    if "accounting storage is disabled" in answer.lower():
        return "SLURM job accounting is disabled (sacct: " + answer.splitlines()[0] + ")"
    if res.returncode != 0:
        return f"sacct exits with {res.returncode}: {answer.splitlines()[0] if answer else ''}"
    return None
