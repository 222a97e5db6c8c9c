#!/usr/bin/env python3
"""Instruction-count thresholds: runs each workload of strata-instructions under valgrind's callgrind and
compares its instructions per operation with the limits recorded in instructions.json.

callgrind counts instructions, not time, so a count repeats for the same binary and input whatever else
the machine is doing (the hash seed is fixed with SWIFT_DETERMINISTIC_HASHING). Only `measuredRuns` and
what it calls are counted (--toggle-collect): the fixtures, the start-up and the exit are not.

  check-instructions.py [--binary PATH] [--only NAME,...]        check (exit 1 on a regression)
  check-instructions.py --update                                 record the current counts
  check-instructions.py --config-dump PATH                       also check the start-up rows

The start-up rows (instructions.json's "processes") count a whole run of a command, every thread from
the first instruction to the exit: `config-dump --key a.b FILE` of the static executable the README's
release command builds (Scripts/build-release.sh), on a small INI file. A start that unwinds its main
thread (an asynchronous main ends it with pthread_exit) sorts the binary's unwind tables first, ten
times the whole run's count, which this row catches. Each may set its own tolerancePercent.

A workload fails when it takes more than the recorded count plus the tolerance (instructions.json's
tolerancePercent); one that takes less than the recorded count minus the tolerance passes, with a note
to record the improvement (--update) so that the limit follows it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LIMITS = os.path.join(HERE, "instructions.json")
DEFAULT_BINARY = os.path.join(HERE, ".build", "release", "strata-instructions")


def count_instructions(binary, name, runs):
    """Instructions per operation of workload `name`, measured over `runs` operations."""
    with tempfile.TemporaryDirectory() as directory:
        output = os.path.join(directory, "callgrind.out")
        command = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={output}",
            "--collect-atstart=no", "--toggle-collect=*measuredRuns*",
            binary, name, str(runs),
        ]
        environment = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
        result = subprocess.run(command, env=environment, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"error: {' '.join(command)} exited with {result.returncode}:\n{result.stderr[-2000:]}")
        total = None
        with open(output) as profile:
            for line in profile:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total = int(line.split()[1])
        if not total:
            sys.exit(f"error: callgrind counted no instructions in measuredRuns for {name} "
                     "(was the function renamed or inlined?)")
        return total / runs


def count_process_instructions(command):
    """Instructions of one whole run of `command` (every thread, start-up and exit included)."""
    with tempfile.TemporaryDirectory() as directory:
        output = os.path.join(directory, "callgrind.out")
        ini = os.path.join(directory, "start.ini")
        with open(ini, "w") as file:
            file.write("[server]\n\tport = 8080\n[a]\n\tb = hello\n")
        arguments = [part.replace("{ini}", ini) for part in command]
        full = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={output}"] + arguments
        environment = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
        result = subprocess.run(full, env=environment, capture_output=True, text=True)
        if result.returncode != 0 or result.stdout != "hello\n":
            sys.exit(f"error: {' '.join(full)} exited with {result.returncode} and printed "
                     f"{result.stdout!r}:\n{result.stderr[-2000:]}")
        total = 0
        # One file per thread when callgrind separates them; by default one file sums them all.
        for name in os.listdir(directory):
            if name.startswith("callgrind.out"):
                with open(os.path.join(directory, name)) as profile:
                    for line in profile:
                        if line.startswith("summary:") or line.startswith("totals:"):
                            total += int(line.split()[1])
                            break
        if not total:
            sys.exit(f"error: callgrind counted no instructions for {' '.join(arguments)}")
        return total


def compare(name, measured, recorded, tolerance, note=""):
    """Prints a row's recorded and measured counts and its verdict; returns whether it regressed."""
    change = (measured - recorded) / recorded * 100 if recorded else float("inf")
    verdict = ""
    if change > tolerance:
        verdict = f"REGRESSION: more than {tolerance}% above the recorded count"
    elif change < -tolerance:
        verdict = "improved beyond the tolerance: record it with --update"
    print(f"{name:<22} {recorded:>12,.0f} {measured:>12,.0f} {change:>+7.1f}%   {verdict}{note}")
    return change > tolerance


def uncovered_workloads(binary, workloads):
    """What is missing for a workload of the binary to be checked: its entry in instructions.json and
    its allocation threshold file (package-benchmark skips a benchmark that has none, silently)."""
    usage = subprocess.run([binary], capture_output=True, text=True).stdout
    names = usage.split("(NAME: ", 1)[1].rstrip().rstrip(")").split(", ") if "(NAME: " in usage else []
    if not names:
        return [f"{binary} printed no workload names: {usage.strip()!r}"]
    problems = []
    for name in names:
        if name not in workloads:
            problems.append(f"{name} has no entry in {LIMITS}")
        allocations = os.path.join(HERE, "Thresholds", f"StrataThresholds.{name}.p90.json")
        # A workload recorded with "checksAllocations": false (a cold start) is gated by instructions only,
        # as Workload.checksAllocations says.
        checks_allocations = workloads.get(name, {}).get("checksAllocations", True)
        if checks_allocations and not os.path.exists(allocations):
            problems.append(f"{name} has no allocation threshold {allocations}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=DEFAULT_BINARY, help="the release strata-instructions")
    parser.add_argument("--only", help="comma-separated workload names")
    parser.add_argument("--update", action="store_true", help="record the measured counts in instructions.json")
    parser.add_argument("--config-dump", help="the static config-dump (Scripts/build-release.sh), for the "
                        "start-up rows; without it they are not checked")
    arguments = parser.parse_args()

    if not os.access(arguments.binary, os.X_OK):
        sys.exit(f"error: {arguments.binary} not found; build it with "
                 "`swift build -c release --package-path Benchmarks/Thresholds --product strata-instructions`")
    with open(LIMITS) as file:
        limits = json.load(file)
    tolerance = limits["tolerancePercent"]
    workloads = limits["workloads"]
    processes = limits.get("processes", {})
    names = arguments.only.split(",") if arguments.only else list(workloads)
    if arguments.only:
        processes = {name: entry for name, entry in processes.items() if name in names}
        names = [name for name in names if name not in processes]
    unknown = [name for name in names if name not in workloads]
    if unknown:
        sys.exit(f"error: {', '.join(unknown)} not in {LIMITS}; the workloads are {', '.join(workloads)}")

    uncovered = uncovered_workloads(arguments.binary, workloads)
    if uncovered:
        sys.exit("error: " + "; ".join(uncovered) + " (BENCHMARKS.md, Thresholds CI fails on: how to record them)")

    regressions = []
    print(f"{'workload':<22} {'recorded':>12} {'measured':>12} {'change':>8}   (instructions per operation)")
    for name in names:
        entry = workloads[name]
        measured = count_instructions(arguments.binary, name, entry["runs"])
        if compare(name, measured, entry["instructions"], tolerance):
            regressions.append(name)
        if arguments.update:
            entry["instructions"] = round(measured)

    for name, entry in processes.items():
        if not arguments.config_dump:
            print(f"{name:<22} {'':>12} {'':>12} {'':>8}   not checked: no --config-dump given")
            continue
        command = [arguments.config_dump if part == "{config-dump}" else part for part in entry["command"]]
        measured = count_process_instructions(command)
        allowed = entry.get("tolerancePercent", tolerance)
        if compare(name, measured, entry["instructions"], allowed, note=" (whole run)"):
            regressions.append(name)
        if arguments.update:
            entry["instructions"] = measured

    if arguments.update:
        with open(LIMITS, "w") as file:
            json.dump(limits, file, indent=2)
            file.write("\n")
        print(f"recorded in {LIMITS}")
        return 0
    if regressions:
        print(f"error: {', '.join(regressions)} take more instructions than recorded (beyond their tolerance); "
              "find the cause, or if the cost is intended, record it with "
              "Benchmarks/Thresholds/check-instructions.py --update and say why in the commit", file=sys.stderr)
        return 1
    print("every workload within its tolerance of its recorded instruction count")
    return 0


if __name__ == "__main__":
    sys.exit(main())
