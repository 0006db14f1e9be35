"""Answer `sacct -o FIELDS --parsable2 -j ID ...` on a SLURM without accounting storage.

submitit learns that a job ended only from sacct. With `AccountingStorageType=accounting_storage/none`
sacct fails, submitit keeps the job as UNKNOWN, and a job that died without writing its result
(cancelled, killed, timed out) hangs the sweep forever. This shim answers from slurmctld's memory
(`scontrol show job`, which keeps finished jobs for MinJobAge seconds) and, for older jobs, from the
`jobcomp/filetxt` completion log. Where the real sacct works (a cluster with accounting), its answer
is passed through unchanged, so the shim is safe to leave first on PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# sacct field name -> scontrol key, where they differ.
SCONTROL_KEY = {"State": "JobState", "JobName": "JobName", "Elapsed": "RunTime"}


def real_sacct() -> str | None:
    """The first sacct on PATH that is not this shim."""
    shim_dir = str(HERE / "bin")
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != shim_dir)
    return shutil.which("sacct", path=path)


def parse_record(line: str) -> dict[str, str]:
    """`Key=Value Key=Value ...` (one-line scontrol or jobcomp record) -> dict; values hold no spaces."""
    fields = {}
    for token in line.split():
        key, sep, value = token.partition("=")
        if sep:
            fields.setdefault(key, value)
    return fields


def sacct_job_id(rec: dict[str, str]) -> str:
    """sacct's JobID: `123` for a plain job, `120_3` for an array task, `120_[4-7]` for pending tasks."""
    task = rec.get("ArrayTaskId")
    if task is None:
        return rec["JobId"]
    return f"{rec['ArrayJobId']}_{task}" if task.isdigit() else f"{rec['ArrayJobId']}_[{task}]"


def from_scontrol(job_id: str) -> list[dict[str, str]] | None:
    """Records slurmctld still holds for the job (all tasks of an array), or None if it forgot it."""
    proc = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True)
    if proc.returncode != 0:
        if "Invalid job id" in proc.stderr:
            return None
        raise RuntimeError(f"scontrol show job {job_id} failed: {proc.stderr.strip()}")
    return [parse_record(line) for line in proc.stdout.splitlines() if line.strip()]


def from_jobcomp(job_id: str) -> list[dict[str, str]]:
    """Completion-log records of the job (or of its array tasks); the log path comes from slurm.conf."""
    log = jobcomp_path()
    if log is None or not log.exists():
        return []
    records = (parse_record(line) for line in log.read_text().splitlines())
    return [r for r in records if job_id in (r.get("JobId"), r.get("ArrayJobId"))]


def jobcomp_path() -> Path | None:
    conf = Path(os.environ.get("SLURM_CONF", "/etc/slurm/slurm.conf"))
    if not conf.exists():
        return None
    for line in conf.read_text().splitlines():
        key, _, value = line.strip().partition("=")
        if key == "JobCompLoc":
            return Path(value)
    return None


def row(rec: dict[str, str], fields: list[str]) -> list[str]:
    values = []
    for field in fields:
        if field == "JobID":
            values.append(sacct_job_id(rec))
        else:
            values.append(rec.get(SCONTROL_KEY.get(field, field), ""))
    return values


def main(argv: list[str]) -> int:
    real = real_sacct()
    if real is not None:
        proc = subprocess.run([real, *argv], capture_output=True, text=True)
        if proc.returncode == 0:
            sys.stdout.write(proc.stdout)
            return 0
        if "accounting storage is disabled" not in proc.stderr:
            sys.stderr.write(proc.stderr)
            return proc.returncode
    parser = argparse.ArgumentParser(prog="sacct (mcsweep shim)")
    parser.add_argument("-o", "--format", default="JobID,State,NodeList")
    parser.add_argument("-j", "--jobs", action="append", default=[])
    parser.add_argument("-P", "--parsable2", action="store_true")
    parser.add_argument("-p", "--parsable", action="store_true")
    parser.add_argument("-n", "--noheader", action="store_true")
    args = parser.parse_args(argv)
    if not (args.parsable or args.parsable2):
        parser.error("only --parsable2/--parsable output is supported")
    fields = args.format.split(",")
    end = "|" if args.parsable else ""
    lines = [] if args.noheader else ["|".join(fields) + end]
    for job_id in (j for arg in args.jobs for j in arg.split(",")):
        records = from_scontrol(job_id)
        for rec in records if records is not None else from_jobcomp(job_id):
            lines.append("|".join(row(rec, fields)) + end)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
