"""The `shflx` command: argument parsing, output and exit codes; the core does the work.

Exit codes (README.md, "Exit codes"), the same in every subcommand: 0 success (compiled, lowered,
every plan proved); 1 `verify` refuted a plan; 2 an error: usage, input (unreadable or malformed
files, a bad pattern, source that does not compile, an op the target lacks), environment (missing
toolchain), or an internal error; 3 `verify` could neither prove nor refute a plan; 130 interrupted.
`launch` and `ptxas` return the wrapped tool's code when it fails. A run that sees several: the
first of 2, 1, 3, 0. Tracebacks only with --debug."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .errors import InputError, Location, ShflxError, UsageError, clip
from .schemas import versioned

EXIT_PROVED, EXIT_REFUTED, EXIT_INVALID, EXIT_UNKNOWN = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit 2 with its own format
        raise UsageError(message)


def _add_verbosity(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-v", "--verbose", action="count", default=0, help="say more (repeatable)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only what matters: failures, or the result")


def _verbosity(ns: argparse.Namespace) -> int:
    """0 quiet, 1 normal, 2+ verbose."""
    return 0 if ns.quiet else 1 + ns.verbose


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="shflx", description="CUDA warp shuffles, lowered to proven AMD cross-lane code.")
    p.add_argument("--version", action="version", version=f"shflx {__version__}")
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in (_add_verify, _add_lower, _add_compile, _add_launch, _add_coverage, _add_ptx, _add_ptxas):
        add(sub)
    sub.add_parser("doctor", help="what toolchain and runtimes shflx found, and what each is used for",
                   description="Each dependency (clang, ld.lld, llvmlite, NVPTX, CUDA headers, ptxas, "
                   "z3-solver, an AMD GPU, cuda-python, the plan cache): found or not, where, and what it "
                   "is for. Exit 0 when `shflx compile` can work for AMD targets, 2 when it cannot.")
    t = sub.add_parser("targets", help="list the known AMD and NVIDIA targets and their features",
                       description="One line per target: its name, generation and family (AMD), and its "
                       "cross-lane features; the names --offload-arch, --arch and -arch take.")
    t.add_argument("--json", action="store_true", help="a JSON list, one object per target")
    se = sub.add_parser("server", help="the compile server that SHFLX_SERVER=on sends compile and launch to",
                        description="start: the server for this environment (SHFLX_SERVER=on starts it on "
                        "first use anyway); status: every server of this user; stop: the server for this "
                        "environment (with --all: every server of this user).")
    se.add_argument("action", choices=["start", "status", "stop"])
    se.add_argument("--all", action="store_true", help="stop: every server of this user, not only the one "
                    "this environment's compiles use")
    for each in sub.choices.values():            # `shflx compile --version`, as clang answers it anywhere
        each.add_argument("--version", action="version", version=f"shflx {__version__}",
                          help="print shflx's version and exit")
    return p


def _add_verify(sub: argparse._SubParsersAction) -> None:
    v = sub.add_parser("verify", help="prove plans (JSON) against their target pattern",
                       description="Prove each PLAN.json against its 'target' (or --target). "
                       "Exit 0: all proved; 1: some refuted (counterexample printed); "
                       "2: invalid input (wins over 1 and 3); 3: some unknown (open question or timeout; "
                       "1 wins over it).")
    v.add_argument("plans", nargs="+", metavar="PLAN.json", help="plan files or directories of them")
    v.add_argument("--target", help="pattern text to prove against instead of the plan's own")
    v.add_argument("--json", action="store_true", help="one JSON object per plan on stdout")
    v.add_argument("--timeout-ms", type=int, default=2000, metavar="MS",
                   help="Z3 time limit per query (default: %(default)s)")
    v.add_argument("--diagram", action="store_true", help="draw the lanes of every plan that is not proved")
    _add_verbosity(v)


def _add_lower(sub: argparse._SubParsersAction) -> None:
    lo = sub.add_parser("lower", help="the cheapest proven AMD sequence (or PTX) for a shuffle pattern",
                        description="Synthesize, prove and print the cheapest sequence for PATTERN, e.g. "
                        "'xor 5', 'down 1 width 16', 'shfl.idx b=3 c=0x181f', 'map 1,0,...'.")
    lo.add_argument("pattern", metavar="PATTERN")
    lo.add_argument("--arch", required=True, metavar="TARGET",
                    help="gfxNNN (AMD) or sm_NN (NVIDIA); `shflx targets` lists them")
    lo.add_argument("--wave64", action="store_true", help="wave64 on RDNA (default wave32 there)")
    fmt = lo.add_mutually_exclusive_group()
    for flag, what in (("json", "the plan JSON (input of `shflx verify`)"), ("asm", "AMDGCN assembly"),
                       ("llvm", "an LLVM IR module (the plan plus a test kernel)"),
                       ("hip", "a HIP C++ __device__ function"), ("ptx", "PTX (with --arch sm_NN)")):
        fmt.add_argument(f"--{flag}", dest="format", action="store_const", const=flag, help=what)
    fmt.add_argument("--diagram", nargs="?", const="text", choices=["text", "svg"],
                     help="which input lane each lane holds after every step (text, or svg on stdout)")
    lo.add_argument("--no-cache", action="store_true", help="do not read or write the plan cache")
    _add_prefer(lo)
    _add_verbosity(lo)


class _FlagHelp(argparse.RawDescriptionHelpFormatter):
    """Help lines that never break inside a flag (`--gpu-architecture`, not `--gpu-` / `architecture`)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _add_compile(sub: argparse._SubParsersAction) -> None:
    """`shflx compile`'s help: every flag with its default and choices. The words themselves are
    read by driver.flags (compiler conventions argparse cannot read); this parser only prints help."""
    from .driver import flags as F

    co = sub.add_parser("compile", help="CUDA/HIP device code -> AMD code object (or NVIDIA cubin/PTX), "
                        "shuffles lowered", usage="shflx compile [FLAGS] FILE.cu|.hip|.ll|.bc|DIR ...",
                        formatter_class=_FlagHelp,
                        description="Compile the device code of each FILE for each target, lowering every warp "
                        "shuffle to its\ncheapest proven sequence (AMD: DPP, permlane, ...; NVIDIA sm_NN: shfl.sync "
                        "with synthesized\noperands, redux.sync). Flags are read as clang and nvcc read them "
                        "(docs/compile-flags.md).\nQuiet on success: the report goes to --report-file, or to "
                        "stdout when --report is given.",
                        epilog="@FILE: a response file, expanded in place. Any other flag is an error, except in the "
                        "pass-through\nfamilies: -Xclang X (device front end), -Xcompiler X (host compile of -c), "
                        "-Xptxas X (ptxas).\nExit codes: README.md, 'Exit codes'.")
    co.add_argument("files", nargs="*", metavar="FILE", help=".cu, .hip, .ll, .bc, or a directory of .cu/.hip "
                    "(compiled in parallel)")
    g = co.add_argument_group("targets (at least one)")
    g.add_argument("--offload-arch", metavar="ID[,ID...]", help="AMD target IDs (gfx942, gfx90a:xnack+, "
                   "gfx1100) or sm_NN; also --offload-arch=..., --cuda-gpu-arch=...; see `shflx targets`")
    g.add_argument("-arch", metavar="sm_NN", help="NVIDIA target (compute_NN reads as sm_NN); also "
                   "--gpu-architecture=sm_NN")
    g.add_argument("-gencode", metavar="arch=compute_NN,code=sm_NN", help="nvcc's form: the sm_NN of code= "
                   "(also code=[sm_NN,compute_NN], --generate-code)")
    g = co.add_argument_group("what to write")
    g.add_argument("-o", metavar="FILE", help="the output (-o - : stdout, one input and one target); with "
                   "several inputs, a directory (default: NAME.TARGET.SUFFIX in the working directory)")
    g.add_argument("--emit", choices=F.EMIT_CHOICES, help="output kind; AMD: " + ", ".join(F.EMIT_AMD)
                   + "; NVIDIA: " + ", ".join(F.EMIT_NVIDIA) + " (default: hsaco / cubin, asm / ptx with -S)")
    g.add_argument("-c", action="store_true", help="a host object with the device code embedded (clang "
                   "offload bundle), by the HIP compiler (--host-cxx); AMD targets")
    g.add_argument("--link", action="store_true", help="a program (nvcc's --link): each input as -c, linked "
                   "by the HIP compiler against the HIP runtime (default -o a.out); AMD targets")
    g.add_argument("-S", action="store_true", help="assembly: AMDGCN per AMD target, PTX per sm_NN")
    g.add_argument("-E", action="store_true", help="the preprocessed device source (first target) on "
                   "stdout or -o")
    g.add_argument("--cuda-device-only", action="store_true", help="accepted (device code objects are the "
                   "default); also --offload-device-only")
    g.add_argument("-fgpu-rdc", dest="rdc", action="store_true", help="relocatable device code (sm_NN), as "
                   "nvcc's -rdc=true: a ptxas relocatable object for the device link (nvlink; cudadevrt for "
                   "device-side launches); also -rdc=true, --relocatable-device-code=true, and -dc (-c with it)")
    g.add_argument("-MD, -MMD, -MF F, -MT T, -MQ T, -MP", dest="deps", action="store_true",
                   help="a depfile (default OUTPUT.d, target OUTPUT)")
    g = co.add_argument_group("reports")
    g.add_argument("--report", choices=F.REPORT_CHOICES, help="write the report in this format: to "
                   "--report-file, else to stdout (default: no report on stdout; with --report-file, "
                   "json when its name ends in .json, else text)")
    g.add_argument("--report-file", metavar="FILE", help="write the report here (its format: --report, "
                   "else the extension; with -c always JSON)")
    g.add_argument("-Rpass=shflx", dest="remarks", action="store_true",
                   help="one clang-style remark per shuffle site and chain on stderr")
    g.add_argument("--time-report", "-ftime-report", dest="time_report", action="store_true",
                   help="each (file, target) compile's wall time per stage on stderr (front end, shuffle "
                   "lowering, LLVM optimization, code generation, link, ptxas)")
    g.add_argument("-Wshflx-headers", dest="header_warnings", action="store_true",
                   help="also show LLVM's warnings located in the CUDA/CCCL headers (default, -Wno-shflx-headers: silent, as nvcc)")
    g = co.add_argument_group("preprocessor and language")
    g.add_argument("-I DIR, -isystem DIR, -iquote DIR, -idirafter DIR, -include F, -D N[=V], -U N",
                   dest="pp", action="store_true", help="as clang, in command-line order (joined -IDIR, -DN too)")
    g.add_argument("-std=STD", dest="std", action="store_true", help="the language standard (default C++17)")
    g.add_argument("-x", choices=F.LANGUAGE_CHOICES, help="the language of -c (default: from the suffix; "
                   ".cu is CUDA)")
    g.add_argument("-W..., -w", dest="warn", action="store_true", help="warnings, device and host; "
                   "-Wl,/-Wa,/-Wp, host only")
    g.add_argument("-f...", dest="f", action="store_true", help="only the -f flags of docs/compile-flags.md "
                   "(device: -ffast-math, -ffp-contract=, -fno-rtti, ...; host: -fPIC, -fvisibility=, ...)")
    g = co.add_argument_group("code generation")
    g.add_argument("-O0, -O1, -O2, -O3, -Os, -Oz, -Og, -O, -Ofast", dest="opt", action="store_true",
                   help="optimization level (default -O3; -O is -O1, -O4+ is -O3)")
    g.add_argument("-g, -g1..3, -ggdb, -gline-tables-only, -gdwarf[-N], -g0, -ggdb0", dest="g", action="store_true",
                   help="line tables (default: on; -g0: none)")
    g.add_argument("-mcode-object-version", choices=F.CODE_OBJECT_VERSIONS, help="AMD code object version "
                   "(default: LLVM's)")
    g.add_argument("--wave64", action="store_true", help="wave64 on RDNA (default wave32 there); also "
                   "-mwavefrontsize64 / -mno-wavefrontsize64")
    g.add_argument("-m64, -m32, -march=, -mtune=, -mcpu=, -pthread, -v", dest="m", action="store_true",
                   help="host compile only")
    g = co.add_argument_group("shflx")
    g.add_argument("--baseline", action="store_true", help="every shuffle as ds_bpermute (AMD) or as "
                   "written (NVIDIA), for comparison")
    g.add_argument("--prefer", choices=F.PREFER_CHOICES, default="cycles", help="AMD: cycles: the cheapest "
                   "plan; lds-free: the cheapest plan without an LDS-crossbar op where one exists "
                   "(default: %(default)s)")
    g.add_argument("--fp-reassoc", action="store_true", help="re-associate float reduction chains (changes "
                   "float results; default: only where the IR says reassoc)")
    g.add_argument("--no-chains", action="store_true", help="lower each shuffle on its own, no chain "
                   "re-synthesis")
    g.add_argument("--load-shuffle", action="store_true", help="NVIDIA: the load -> shuffle search (slow; "
                   "default off)")
    g = co.add_argument_group("tools and jobs")
    g.add_argument("-j", metavar="N", help="parallel jobs for several files or targets, and for the code "
                   "generation of a large AMD module in parts (default: the CPU count, and for parts the "
                   "cores left idle; also -jN)")
    g.add_argument("--llvm-bin", metavar="DIR", help="the LLVM tools to use (else SHFLX_LLVM_BIN, ROCm, "
                   "clang on PATH, the ziglang wheel)")
    g.add_argument("--host-cxx", metavar="CMD", help="-c's HIP compiler (else SHFLX_HOST_CXX, hipcc, "
                   "clang++ on PATH)")
    g.add_argument("-Xclang, -Xcompiler, -Xptxas", metavar="X", dest="xflags",
                   help="pass X to the device front end, the host compile, ptxas (-Xptxas A,B too)")
    g.add_argument("--debug", action="store_true", help="tracebacks of internal errors")


def _add_launch(sub: argparse._SubParsersAction) -> None:
    la = sub.add_parser("launch", help="compiler launcher: run a HIP compile with shflx's device code embedded",
                        usage="shflx launch [OPTIONS] -- COMPILER ARGS...",
                        description="For CMAKE_HIP_COMPILER_LAUNCHER and Makefiles: per -c, device code is "
                        "lowered by shflx and embedded (clang offload bundle) in the host object the original "
                        "command writes; every other command runs unchanged. The command's exit code is the "
                        "compiler's, or shflx's own (2) when shflx fails.")
    la.add_argument("--baseline", action="store_true", help="every shuffle as ds_bpermute, for comparison")
    la.add_argument("--report-file", metavar="F", help="the JSON report (F ending in /: one file per object, "
                    "DIR/a.o.shflx.json)")
    la.add_argument("-Rpass=shflx", dest="remarks", action="store_true", help="clang-style remarks on stderr")
    la.add_argument("--no-chains", action="store_true", help="lower each shuffle on its own")
    la.add_argument("--fp-reassoc", action="store_true", help="re-associate float reduction chains")
    la.add_argument("--cmake-toolchain", action="store_true", help="print the path of the CMake toolchain file "
                    "that builds a project's CUDA language (LANGUAGES CUDA) for AMD through shflx, and exit")
    la.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMPILER ARGS",
                    help="the compiler command, unchanged (clang++, hipcc, ...)")


COVERAGE_DEFAULTS = "gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1200"   # driver.coverage.DEFAULT_TARGETS (a test
                                                                         # compares; importing it costs numpy)


def _add_coverage(sub: argparse._SubParsersAction) -> None:
    cov = sub.add_parser("coverage", help="how every uniform shfl.sync map lowers, per target",
                         description="Lower every one of the distinct lane maps that uniform shfl.sync operands "
                         "can produce, plus the pattern catalog, for each target; print a table per target "
                         "(plans avoiding ds_bpermute, LDS-free plans, mean cost) and write the JSON with --out.")
    cov.add_argument("--arch", action="append", metavar="TARGET",
                     help="target (repeatable; default: " + COVERAGE_DEFAULTS + ")")
    cov.add_argument("--out", metavar="FILE", help="write the JSON here (default: benchmarks/results/coverage.json "
                     "when shflx runs from a source checkout that has that directory; from an installed "
                     "package, no file)")
    cov.add_argument("--limit", type=int, metavar="N", help="only the first N maps (a quick look)")
    _add_prefer(cov)
    _add_verbosity(cov)


def _add_ptx(sub: argparse._SubParsersAction) -> None:
    px = sub.add_parser("ptx", help="report (and with -o rewrite) the warp shuffles of a PTX file",
                        description="Find every shfl.sync site and reduction chain in IN.ptx, report them, and "
                        "with -o write the PTX with proven rewrites (redux.sync, load -> shuffle).")
    px.add_argument("input", metavar="IN.ptx")
    px.add_argument("-o", dest="output", help="write the rewritten PTX here (atomically); without it, report only")
    px.add_argument("--sm", help="the GPU it will run on (NN or sm_NN); rewrites must be legal there and on "
                    "the PTX's .target (default: the .target)")
    px.add_argument("--report", choices=["text", "json"], default="text",
                    help="the report's format on stdout (default: %(default)s)")
    px.add_argument("--no-load-shuffle", action="store_true", help="skip the load -> shuffle synthesis")


def _add_ptxas(sub: argparse._SubParsersAction) -> None:
    pa = sub.add_parser("ptxas", help="rewrite the input PTX, then run the real ptxas with the same arguments",
                        usage="shflx ptxas [PTXAS ARGS...] IN.ptx",
                        description="A ptxas wrapper: the input PTX's shuffles get proven rewrites (redux.sync, "
                        "load -> shuffle) in a temporary copy, then the real ptxas (SHFLX_PTXAS, else PATH, "
                        "skipping shflx wrappers, else the nvcc wheel's) runs with the same arguments on it. "
                        "Every argument is ptxas's; the input file is never modified; the exit code is ptxas's. "
                        "--help and --version print shflx's part, then the real ptxas's.")
    pa.add_argument("args", nargs=argparse.REMAINDER, metavar="PTXAS ARGS", help="ptxas's own arguments")


def _add_prefer(p: argparse.ArgumentParser) -> None:
    from .target import PREFERENCES
    p.add_argument("--prefer", choices=PREFERENCES, default="cycles",
                   help="cycles: the cheapest plan in the cost model (default); lds-free: the cheapest plan "
                   "without an LDS-crossbar op (ds_swizzle, ds_bpermute) wherever the search finds one, "
                   "for kernels whose own LDS traffic would keep such an op waiting")


def _plan_files(args: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for a in args:
        path = Path(a)
        if path.is_dir():
            found = sorted(path.rglob("*.json"))
            if not found:
                raise InputError("no *.json plans in this directory", Location(a))
            out.extend(found)
        else:
            out.append(path)
    return out


def _cmd_verify(ns: argparse.Namespace) -> int:
    from .errors import IllegalOp
    from .files import read_input_text
    from .plan import parse_plan_text
    from .verify.api import prove

    if ns.diagram and ns.json:
        raise UsageError("--diagram draws text for people; it does not go with --json")
    if ns.target is not None:
        from .pattern import parse_pattern
        parse_pattern(ns.target)                  # a bad --target is one error, not one per plan
    worst = EXIT_PROVED
    rank = {EXIT_PROVED: 0, EXIT_UNKNOWN: 1, EXIT_REFUTED: 2, EXIT_INVALID: 3}
    for path in _plan_files(ns.plans):
        try:
            try:
                text = read_input_text(path, "a JSON plan")
            except InputError as e:
                raise InputError(e.reason.replace("cannot read:", "cannot read plan:"), e.where) from None
            plan = parse_plan_text(text, str(path))
            proof = prove(plan, ns.target, timeout_ms=ns.timeout_ms)
        except (InputError, IllegalOp, UsageError) as e:   # UsageError: an unknown target; the next plan goes on
            where = e.where or Location(str(path))
            msg = f"{where}: error: {e.reason}"
            if ns.json:
                print(json.dumps(versioned({"plan": str(path), "status": "invalid", "reason": e.reason})))
            print(msg, file=sys.stderr)
            code = EXIT_INVALID
        else:
            code = {"proved": EXIT_PROVED, "refuted": EXIT_REFUTED, "unknown": EXIT_UNKNOWN}[proof.status]
            if ns.json:
                print(json.dumps(versioned({"plan": str(path), **proof.to_json()})))
            elif proof.proved and _verbosity(ns) == 0:
                pass                                   # -q: failures only; the exit code says the rest
            else:
                line = f"{path}: {proof.status} ({proof.method})"
                if proof.reason:
                    line += f": {proof.reason}"
                print(line)
                for a in proof.assumptions:
                    print(f"  assumes {a}")
                if _verbosity(ns) >= 2:
                    print(_plan_facts(plan, ns.target))
            if ns.diagram and not proof.proved:
                print(_plan_diagram(plan, ns.target, "text"), end="")
        worst = max(worst, code, key=rank.__getitem__)
    return worst


def _plan_facts(plan, target: str | None) -> str:
    return (f"  {plan.arch}, wave{plan.wave}, {len(plan.steps)} step(s), target '{target or plan.target}', "
            f"cost {plan.cost:g}")


def _plan_diagram(source: object, target: str | None, kind: str) -> str:
    """The lane diagram of a plan against its target pattern (shflx.diagram)."""
    from . import diagram
    from .pattern import Shuffle, parse_pattern
    from .plan import load_plan
    plan = load_plan(source)
    pattern = parse_pattern(target or plan.target) if (target or plan.target) else None
    if any(s.op == "combine" for s in plan.steps):
        return "  (no lane diagram for a reduction or scan: its lanes hold combinations, not lanes)\n"
    want = pattern.lane_map(plan.wave) if isinstance(pattern, Shuffle) else None
    return diagram.svg(plan, want) if kind == "svg" else diagram.text(plan, want)


def _cmd_server(ns: argparse.Namespace) -> int:
    from .server import control
    if ns.action == "stop":
        return control.stop(every=ns.all)
    return {"start": control.start, "status": control.status}[ns.action]()


def _cmd_targets(ns: argparse.Namespace) -> int:
    from .isa import amd_target, known_amd_targets, known_nvidia_targets, nvidia_target

    rows = []
    for name in known_amd_targets():
        t = amd_target(name)
        rows.append({"name": name, "generation": t.generation, "family": t.family,
                     "waves": list(t.waves), "features": sorted(t.features)})
    for name in known_nvidia_targets():
        n = nvidia_target(name)
        rows.append({"name": name, "features": sorted(n.features)})
    if ns.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'target':<8} {'gen':<8} {'family':<8} features")
        for r in rows:
            head = f"{r['name']:<8} {r.get('generation', ''):<8} {r.get('family', ''):<8}"
            print(f"{head} {' '.join(r['features'])}")
    return 0


def _cmd_lower(ns: argparse.Namespace) -> int:
    if ns.arch.startswith("sm_"):
        if ns.format not in (None, "ptx") or ns.diagram:
            raise UsageError(f"--{ns.format or 'diagram'} is for AMD targets; {ns.arch} takes --ptx")
        from .codegen.nvptx import ptx_version
        from .isa import nvidia_target
        from .nvidia.ptx import ptx_for_pattern
        nvidia_target(ns.arch)                        # an unknown sm names the known ones first
        sys.stdout.write(ptx_for_pattern(ns.pattern, ns.arch, target_min_version=ptx_version(ns.arch)))
        return 0
    if ns.format == "ptx":
        raise UsageError(f"--ptx needs an NVIDIA target (--arch sm_NN), not {ns.arch}")
    from .driver.cache import lower
    from .plan import plan_to_json
    from .target import resolve_target

    target = resolve_target(ns.arch, 64 if ns.wave64 else None, prefer=ns.prefer)
    plan = lower(ns.pattern, target, cache=not ns.no_cache)
    if ns.diagram:
        sys.stdout.write(_plan_diagram(plan, None, ns.diagram))
    elif ns.format == "json":
        print(plan_to_json(plan))
    elif ns.format == "llvm":
        from .amd.llvm_ir import kernel_ir
        sys.stdout.write(kernel_ir(plan))
    elif ns.format == "hip":
        from .amd.hip import function_hip
        sys.stdout.write(function_hip(plan))
    else:
        from .amd.asm import step_asm
        extra = dict(plan.extra)
        quiet = _verbosity(ns) == 0
        if ns.format is None and not quiet:
            print(f"{plan.target} on {plan.arch} (wave{plan.wave}): {len(plan.steps)} step(s), cost "
                  f"{plan.cost:g} cycles (ds_bpermute: {extra['baseline_cost']:g}"
                  + (f"; {extra['fused_cost']:g} when folded into its consumer" if extra["fusable"] else "")
                  + f"), {plan.proof['status']} ({plan.proof['method']})")
        for st in plan.steps:
            print(("  " if ns.format is None and not quiet else "") + step_asm(st, target))
        if ns.format is None and not quiet:
            if not plan.steps:
                print("  (nothing to do: every lane already holds its value)")
            print(f"  {extra['optimality']['note']}")
            for a in plan.proof.get("assumptions", []):
                print(f"  assumes {a}")
            if _verbosity(ns) >= 2:
                search = extra.get("search", {})
                print(f"  search: stage '{extra.get('stage')}', {search.get('candidates')} candidate(s), "
                      f"{search.get('first_moves')} first moves, {search.get('ms')} ms (when it was solved; "
                      f"the plan cache keeps it); uses LDS: {'yes' if extra.get('uses_lds') else 'no'}")
    return 0


def _cmd_coverage(ns: argparse.Namespace) -> int:
    from .driver.coverage import DEFAULT_TARGETS, coverage_report, format_table
    from .driver.progress import Progress

    archs = ns.arch or list(DEFAULT_TARGETS)
    report = coverage_report(archs, limit=ns.limit, progress=Progress("coverage", _verbosity(ns)), prefer=ns.prefer)
    print(format_table(report))
    out = ns.out
    if out is None:
        checkout = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
        out = str(checkout / "coverage.json") if checkout.is_dir() and not ns.limit else None
    if out:
        from .files import write_atomically
        write_atomically(Path(out), json.dumps(report, indent=1) + "\n")
        if _verbosity(ns):
            print(f"wrote {out}")
    return 0


def _compile_one(job: tuple) -> dict:
    """One (file, target) compile, run in a worker process; returns the report entry or an error."""
    from .driver.amd import compile_file
    from .files import write_atomically

    source, arch, out, ns_emit, wave, opts, baseline, fp_reassoc, chains, debug_info, ptxas, load_shuffle, prefer = job[:13]
    codegen_jobs = job[13] if len(job) > 13 else 1
    nvidia = arch.startswith("sm_")
    try:
        if nvidia:
            from .driver.nvidia import compile_cuda
            res = compile_cuda(Path(source), arch, emit=ns_emit, opts=opts, baseline=baseline, chains_on=chains,
                               ptxas_args=ptxas, load_shuffle=load_shuffle)
        else:
            from .driver.flags import base_arch, target_features
            res = compile_file(Path(source), base_arch(arch), wave=wave, emit=ns_emit, opts=opts, baseline=baseline,
                               fp_reassoc=fp_reassoc, chains=chains, features=target_features(arch),
                               debug_info=debug_info, prefer=prefer, codegen_jobs=codegen_jobs)
        if out == STDOUT:
            _write_stdout(res.output)
        else:
            write_atomically(Path(out), res.output)
    except ShflxError as e:
        return {"file": source, "arch": arch, "error": str(e), "exit_code": e.exit_code}
    except OSError as e:
        return {"file": source, "arch": arch, "exit_code": UsageError.exit_code,
                "error": f"shflx: error: cannot write {out}: {e.strerror or e}"}
    from .driver.report import compile_entry       # after the compile: its imports ran beside clang
    return {**compile_entry(res, source, arch, out, asm=ns_emit == "asm"), "times": res.times}


STDOUT = "-"                 # -o -: the one output on standard output, as clang writes it


def _write_stdout(data: str | bytes) -> None:
    if isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(data)
        sys.stdout.flush()


def _sources(args: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for a in args:
        p = Path(a)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.suffix in (".cu", ".hip"))
            if not found:
                raise InputError("no .cu or .hip files in this directory", Location(a))
            out += found
        else:
            out.append(p)
    return out


def _check_outputs(sources: list[Path], outputs: list[Path], into_dir: bool, output: str | None) -> None:
    """Before any compile: a single output may not be an existing directory, and an output
    directory must be a directory (nothing partial is left); -o - takes one output. Whether an
    output names an input is driver.inputs.check_compile_files's one check."""
    if output == STDOUT:
        if len(outputs) != 1:
            raise UsageError("-o - (standard output) takes one output: one input and one --offload-arch")
        return
    for out in outputs:
        if not into_dir and out.is_dir():
            raise UsageError(f"-o {out} is a directory; give an output file name (a directory takes the "
                             "outputs of several inputs)")
    if into_dir and Path(output).exists() and not Path(output).is_dir():
        raise UsageError(f"-o {output} is a file; with several inputs -o names the output directory")


def _compile_in_worker(job: tuple) -> dict:
    """_compile_one in a pool worker: Ctrl-C reaches the workers with the parent, which stops the
    pool and says "interrupted" once; a worker ends its job quietly instead of printing a
    traceback of its own (its temporary files are removed on the way out, as any exception does).
    Between jobs the worker ignores Ctrl-C (_quiet_worker): an interrupt in the pool's own loop
    would print multiprocessing's "Process ForkPoolWorker-N" traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return _compile_one(job)
    except KeyboardInterrupt:
        return {"file": job[0], "arch": job[1], "error": "shflx: interrupted", "exit_code": 130}
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _drop_interrupts_in_finalizers(unraisable) -> None:
    """sys.unraisablehook for the workers: a Ctrl-C that lands in a finalizer (z3's AstRef.__del__
    runs often) cannot stop it, and Python would print that exception's traceback; the parent stops
    the pool anyway. Anything else goes to Python's hook."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)


def _quiet_worker() -> None:
    """A pool worker's set-up: Ctrl-C is ignored until a job starts (_compile_in_worker), and one
    that lands in a finalizer is dropped quietly."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.unraisablehook = _drop_interrupts_in_finalizers


def _compile_parallel(jobs: list[tuple], workers: int, progress) -> list[dict]:
    """The jobs in worker processes, in input order; Ctrl-C stops the workers at once (no partial
    outputs: each is written atomically by its worker, or not at all)."""
    import multiprocessing

    results: list[dict] = []
    pool = multiprocessing.Pool(workers, initializer=_quiet_worker)
    try:
        for r in pool.imap_unordered(_compile_in_worker, jobs):
            progress.advance(f"{r['file']} ({r['arch']})")
            results.append(r)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    order = {(j[0], j[1]): n for n, j in enumerate(jobs)}
    return sorted(results, key=lambda r: order[(r["file"], r["arch"])])


def _compile_namespace(words: list[str]) -> argparse.Namespace:
    """`shflx compile` reads its words like a compiler (driver.flags), not through argparse."""
    from .driver.flags import parse_compile_args

    f = parse_compile_args(words)
    return argparse.Namespace(command="compile", files=f.sources, jobs=int(f.jobs or 0), archs=f.archs, output=f.output,
                              emit=f.emit, opt=f.opt_level, report=f.report_format, baseline=f.baseline, wave64=f.wave64,
                              fp_reassoc=f.fp_reassoc, no_chains=f.no_chains, llvm_bin=f.llvm_bin, flags=f,
                              load_shuffle=f.load_shuffle, prefer=f.prefer,
                              debug=f.traceback)


def _cmd_compile(ns: argparse.Namespace) -> int:
    from .frontend.clang import FrontendOptions
    from .driver.flags import device_words
    from .driver.inputs import check_compile_files

    f = ns.flags
    if f.action == "c":
        from .driver.launch import compile_object
        return compile_object(f)
    if f.action == "link":
        from .driver.launch import link_program
        return link_program(f)
    opts = FrontendOptions((), (), ns.opt, True, ns.llvm_bin, device_words(f), header_warnings=f.header_warnings)
    sources = _sources(ns.files)
    if f.action == "E":
        from .driver.preprocess import preprocess
        check_compile_files(f, sources, [("-o", f.output)] if f.output and f.output != STDOUT else [])
        return preprocess(f, sources, opts)
    jobs = _compile_jobs(ns, opts, sources)
    many = len(sources) > 1
    _check_outputs(sources, [Path(j[2]) for j in jobs], many and bool(ns.output), ns.output)
    depfile = [j[5].extra[k + 1] for j in jobs for k, w in enumerate(j[5].extra) if w == "-dependency-file"]
    check_compile_files(f, sources, [("-o", j[2]) for j in jobs if j[2] != STDOUT] +
                              [("-MF", d) for d in depfile] + ([("--report-file", f.report_file)] if f.report_file else []))
    if ns.output == STDOUT and f.report and not f.report_file:
        raise UsageError(f"-o - and --report {f.report} both write to standard output; give the report --report-file")
    if many and ns.output and ns.output != STDOUT:
        try:
            Path(ns.output).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create the output directory {ns.output}: {e.strerror or e}") from None
    results = _run_compile_jobs(jobs, ns.jobs)
    failed = [r for r in results if "error" in r]
    for r in failed:
        print(r["error"], file=sys.stderr)
    from .driver.report import internal_warnings
    for line in (w for r in results if "error" not in r for w in internal_warnings(r)):
        print(line, file=sys.stderr)
    for r in results:                     # the stage times go to stderr when asked, never in the report
        times = r.pop("times", None)
        if f.time_report and times:
            from .timing import table
            print("\n".join(table(f"{r['file']} ({r['arch']})", times)), file=sys.stderr)
    _write_compile_report(ns, [r for r in results if "error" not in r])
    return max((r["exit_code"] for r in failed), default=0)


OUTPUT_SUFFIXES = {"hsaco": ".hsaco", "obj": ".o", "asm": ".s", "llvm": ".ll", "cubin": ".cubin", "ptx": ".ptx"}


def _compile_jobs(ns: argparse.Namespace, opts, sources: list[Path]) -> list[tuple]:
    """One job per (source, target): its output file (-o, or NAME.ARCH.SUFFIX; a directory with
    several sources), what to emit, and the front-end options with the target's own words."""
    import dataclasses

    from .driver.flags import depfile_words, feature_words

    f = ns.flags
    def emit_of(arch: str) -> str:  # noqa: E306 - the default output kind differs per vendor
        nvidia = arch.startswith("sm_")
        return ns.emit or ((("ptx" if nvidia else "asm") if f.action == "S" else ("cubin" if nvidia else "hsaco")))
    many = len(sources) > 1
    stems = [s.stem for s in sources]
    def stem_of(src: Path) -> str:  # noqa: E306 - unique output names for same-named inputs
        return f"{src.parent.name}_{src.stem}" if stems.count(src.stem) > 1 else src.stem
    jobs: list[tuple] = []
    for src in sources:
        for arch in ns.archs:
            suffix = OUTPUT_SUFFIXES[emit_of(arch)]
            if ns.output and not many and len(ns.archs) == 1:
                out = Path(ns.output)
            elif ns.output and many:
                out = Path(ns.output) / f"{stem_of(src)}.{arch}{suffix}"
            else:
                base = Path(ns.output) if ns.output else Path(stem_of(src))
                out = base.with_name(f"{base.stem}.{arch}{suffix}")
            extra = feature_words(arch) + (depfile_words(f, str(out)) if not jobs else ())
            words = opts.extra if not arch.startswith("sm_") else \
                tuple(w for w in opts.extra if not w.startswith("-mcode-object-version="))
            jobs.append((str(src), arch, str(out), emit_of(arch), 64 if ns.wave64 else None,
                         dataclasses.replace(opts, extra=words + extra), ns.baseline, ns.fp_reassoc,
                         not ns.no_chains, f.debug is not False, tuple(f.xptxas), ns.load_shuffle, ns.prefer))
    return jobs


def _run_compile_jobs(jobs: list[tuple], jobs_flag: int | None) -> list[dict]:
    """Each job's report entry (or error), in job order: in this process for one job or -j 1, else
    in worker processes."""
    import os

    from .driver.progress import Progress

    workers = jobs_flag or os.cpu_count() or 1
    jobs = [j + (_codegen_jobs(workers, len(jobs), bool(jobs_flag)),) for j in jobs]
    progress = Progress("compile")            # shown only for a run of several jobs past ~2 s
    for j in jobs:
        progress.plan(_job_name(j), 1)
    if len(jobs) == 1 or workers == 1:
        out = []
        for j in jobs:
            out.append(_compile_one(j))
            progress.advance(_job_name(j))
        return out
    return _compile_parallel(jobs, min(workers, len(jobs)), progress)


def _codegen_jobs(workers: int, compiles: int, asked: bool) -> int:
    """The parts one compile may generate code in at once (driver.amd.PARALLEL_MIN_IR): the
    workers the compiles running together leave; without -j, no more than the cores the machine
    has idle (a build running many compiles already keeps them busy, and parts would only add
    their cost)."""
    import os

    share = max(1, workers // min(workers, compiles))
    if asked:
        return share
    try:
        idle = int((os.cpu_count() or 1) - os.getloadavg()[0])
    except OSError:                            # no load average on this system
        idle = 1
    return max(1, min(share, idle))


def _job_name(job: tuple) -> str:
    return f"{job[0]} ({job[1]})"


def _write_compile_report(ns: argparse.Namespace, good: list[dict]) -> None:
    """-Rpass=shflx remarks on stderr; the report to --report-file, else on stdout when --report
    asked for it (text or json); without either, nothing: quiet on success."""
    f = ns.flags
    if f.remarks:
        from .driver.remarks import remarks
        for line in remarks(good):
            print(line, file=sys.stderr)
    report = _text_report(good) if ns.report == "text" else \
        json.dumps([versioned(e) for e in good], indent=1)   # always a list (docs/report-schema.md)
    if f.report_file:
        from .files import write_atomically
        try:
            write_atomically(Path(f.report_file), report + "\n")
        except OSError as e:
            raise UsageError(f"cannot write the report to {f.report_file}: {e.strerror or e}") from None
    elif f.report:                              # asked for, and no file named: stdout
        print(report)


def _text_report(good: list[dict]) -> str:
    """The report as text (--report-file): per file and target, kernels, chains and sites."""
    from .driver.report import chain_inside, written
    lines: list[str] = []
    for e in good:
        s = e["summary"]
        nvidia = e["arch"].startswith("sm_")
        versus = "as written" if nvidia else "with ds_bpermute"
        loads = f", {s['rewritten_loads']} load(s) -> shuffle" if nvidia else ""
        lines.append(f"{e['file']} -> {e['output']} ({e['arch']}, {'warp32' if nvidia else 'wave' + str(e['wave'])}): "
                     f"{s['sites']} shuffle site(s), {s['chains']} chain(s){loads}, "
                     f"cost {s['cost']:g} vs {s['baseline_cost']:g} {versus}")
        lines += [f"  note: {n}" for n in e.get("notes", [])]
        for kern in e["kernels"]:
            where = (f"{kern['registers']} registers, smem {kern['smem_bytes']} B, spills {kern['spill_bytes']} B"
                     if nvidia else f"{kern['vgprs']} VGPRs, {kern['sgprs']} SGPRs, "
                     f"LDS {kern['lds_bytes']} B, wave{kern['wavefront_size']}")
            lines.append(f"  kernel {kern['name']}: {kern['shuffle_sites']} site(s), {kern['chains']} chain(s), "
                         f"cost {kern['cost']:g} vs {kern['baseline_cost']:g}; {where}")
        for ld in e.get("loads", []):
            at = ld.get("source_location") or f"{e['file']} (PTX line {ld['line']})"
            lines.append(f"  {at}: {ld['function']}: load = lane{ld['delta']:+d} of PTX line {ld['source_line']}: "
                         f"{ld['status']}: {ld['reason']}")
        for c in e.get("chains", []):
            what = f"{c['shape']} {c['op']} {c['type']}" + (f" width {c['width']}" if c["width"] else "")
            sbs = f", step by step {c['step_by_step_cost']:g}" if c["step_by_step_cost"] is not None else ""
            base = "" if nvidia else f", ds_bpermute {c['baseline_cost']:g}"
            cost = f"cost {c['cost']:g}{sbs}{base}, {c['proof']}" \
                if c["cost"] is not None else "each shuffle lowered and costed as its own site below"
            lines.append(f"  {c['location']}: chain of {c['shuffles']} shuffles{chain_inside(c)}, {what}: {c['status']}, {cost}")
            lines.append(f"      live: {c['live']}")
            lines.append(f"      {'why' if c['status'] != 're-synthesized' else 'target'}: {c['reason']}")
            for line in c["lowering"]:
                lines.append(f"      {line.split('   ;')[0]}")
        for r in e["sites"]:
            lines.append(f"  {r['location']}: {r['class']:<12} {written(r)}  cost {r['cost']:g}/{r['baseline_cost']:g}, {r['proof']}")
            lines += _frame_lines(r)
            for line in r["lowering"]:
                lines.append(f"      {line.split('   ;')[0]}")
            for n in r["notes"]:
                lines.append(f"      note: {n}")
    return "\n".join(lines)


def _frame_lines(site: dict) -> list[str]:
    """The text report's lines for a site's other frames (as -Rpass=shflx's notes): the header line
    that holds the shuffle when it is inside CUB & co, and the call sites it was inlined into."""
    frames = [f for f in site.get("inlined") or [] if not f.startswith("?")]
    if site["location"] not in frames:
        return []
    k = frames.index(site["location"])
    out = [f"      in {site.get('intrinsic') or 'a header'} at {frames[0]}"] if k > 0 else []
    return out + ([f"      inlined from {', '.join(frames[k + 1:])}"] if frames[k + 1:] else [])


def _cmd_ptx(ns: argparse.Namespace) -> int:
    from .files import check_outputs, check_regular, write_atomically
    from .nvidia.ptxpass import read_ptx, report_text, run

    check_regular(Path(ns.input), "PTX")
    check_outputs([ns.input], [("-o", ns.output)] if ns.output else [])
    result = run(read_ptx(ns.input), ns.input, sm=ns.sm, load_shuffle=not ns.no_load_shuffle)
    from .driver.report import relative
    for row in (*result.sites, *result.chains, *result.loads):    # one location convention (compile's)
        if row.get("source_location"):
            row["source_location"] = relative(row["source_location"])
    if ns.output:
        write_atomically(Path(ns.output), result.text)
    if ns.report == "json":
        out = result.to_json()
        out["output"] = ns.output
        print(json.dumps([versioned(out)], indent=1))
    else:
        print(report_text(result))
        if ns.output:
            print(f"wrote {ns.output}")
    return 0


def _cmd_ptxas(ns: argparse.Namespace) -> int:
    """The wrapper; --help and --version print shflx's part first, then the real ptxas's."""
    from .nvidia.ptxas import wrap

    args = ns.args[1:] if ns.args[:1] == ["--"] else ns.args
    ask = next((w for w in args if w in ("-h", "--help", "--version", "-V")), None)
    if ask:
        parser = _build_parser()
        ptxas = next(a for a in parser._subparsers._group_actions if a.dest == "command").choices["ptxas"]
        print(f"shflx {__version__} (ptxas wrapper)" if ask in ("--version", "-V") else ptxas.format_help())
        print("The real ptxas:", flush=True)
        try:
            return wrap([ask])
        except ShflxError as e:
            print(f"  (not found: {e.reason})")
            return 0
    return wrap(args)


def _cmd_launch(ns: argparse.Namespace) -> int:
    from .driver.launch import launch

    return launch(ns.args)


def _cmd_doctor(ns: argparse.Namespace) -> int:
    """Each dependency: found or not, where, and what it is for; exit 2 if compile cannot work."""
    import importlib.metadata as md

    rows: list[tuple[str, str, str]] = []
    ok = True

    def version(pkg: str) -> str | None:
        try:
            return md.version(pkg)
        except md.PackageNotFoundError:
            return None

    from .errors import ToolchainError
    from .frontend.toolchain import find_clang
    try:
        tool = find_clang()
        rows.append(("clang", f"{tool.version} ({tool.origin}: {' '.join(tool.command)})", "CUDA/HIP device front end"))
    except ToolchainError as e:
        rows.append(("clang", "MISSING", e.reason))
        ok = False
    from .codegen.link import find_lld
    try:
        rows.append(("ld.lld", " ".join(find_lld()), "links .o into .hsaco code objects"))
    except ToolchainError as e:
        rows.append(("ld.lld", "MISSING", e.reason))
        ok = False
    try:
        import llvmlite.binding as llvm
        llvm.initialize_all_targets()
        llvm.Target.from_triple("amdgcn-amd-amdhsa")
        rows.append(("llvmlite", f"{version('llvmlite')} (LLVM {'.'.join(map(str, llvm.llvm_version_info))}, AMDGPU)",
                     "IR verification and AMDGPU code generation"))
    except Exception as e:  # noqa: BLE001 - any failure here means codegen cannot work
        rows.append(("llvmlite", f"MISSING ({getattr(e, 'reason', e)})", "IR verification and AMDGPU code generation"))
        ok = False
    try:
        from .codegen.nvptx import ptx_version
        rows.append(("NVPTX", f"LLVM emits PTX ISA {ptx_version('sm_90')} for sm_90",
                     "compile --offload-arch sm_NN (PTX code generation)"))
    except ToolchainError as e:
        rows.append(("NVPTX", f"MISSING ({e.reason})", "compile --offload-arch sm_NN (PTX code generation)"))
    from .frontend.cuda_sdk import describe as cuda_headers
    rows.append(("CUDA headers", cuda_headers(), "compile --offload-arch sm_NN against NVIDIA's real headers "
                 "(without them: the shflx prelude's CUDA subset)"))
    from .nvidia.ptxas import real_ptxas
    try:
        rows.append(("ptxas", real_ptxas(), "compile --emit cubin, and the shflx ptxas wrapper"))
    except ToolchainError as e:
        rows.append(("ptxas", f"not found ({e.reason})", "compile --emit cubin (--emit ptx works without it)"))
    rows.append(("z3-solver", version("z3-solver") or "MISSING", "proofs"))
    from .runtime.hip import probe_hip
    dev, why = probe_hip()
    rows.append(("AMD GPU", dev.arch if dev else f"none ({why})", "hw_tests/amd"))
    rows.append(("cuda-python", version("cuda-bindings") or version("cuda-python") or "not installed", "hw_tests/nvidia"))
    from .driver.cache import status
    rows.append(("plan cache", status(), "solved patterns"))
    width = max(len(r[0]) for r in rows)
    print("MISSING marks what `shflx compile` needs and lacks (exit 2); \"not found\", \"not installed\" and "
          "\"none\" mark optional parts.")
    for name, state, use in rows:
        state = state.replace("shflx: error: ", "")      # a reason is one message, not a nested diagnostic
        print(f"{name:<{width}}  {state}\n{'':<{width}}  -> {use}")
    return 0 if ok else 2


COMMANDS = {"verify": _cmd_verify, "compile": _cmd_compile, "doctor": _cmd_doctor, "lower": _cmd_lower, "coverage": _cmd_coverage, "targets": _cmd_targets,
            "ptx": _cmd_ptx, "ptxas": _cmd_ptxas, "launch": _cmd_launch, "server": _cmd_server}


def _own_words(argv: list[str]) -> list[str]:
    """shflx's own words of `shflx compile|launch ...`: before a `--` (after it: the files, or the
    compiler); for launch, only its leading options (`shflx launch clang++ --help` is clang's)."""
    words = argv[1:]
    words = words[:words.index("--")] if "--" in words else words
    if argv[:1] != ["launch"]:
        return words
    own: list[str] = []
    for k, w in enumerate(words):
        if not w.startswith("-") and (k == 0 or words[k - 1] != "--report-file"):
            break
        own.append(w)
    return own


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = argv[1:] if argv[:1] == ["--debug"] and argv[1:2] in (["compile"], ["launch"], ["ptxas"]) else argv
    try:
        own = _own_words(argv)             # compile/launch's words before `--`: -h/--help/--version are shflx's
        if argv[:1] == ["ptxas"]:          # ptxas's own flags (-arch=sm_90 ...) go through untouched
            ns = argparse.Namespace(command="ptxas", args=argv[1:])
        elif argv[:1] in (["launch"], ["compile"]) and {"-h", "--help", "--version"} & set(own):
            ns = _build_parser().parse_args(argv[:1] + [next(w for w in own if w in ("-h", "--help", "--version"))])
        elif argv[:1] == ["launch"]:       # the wrapped compiler's flags go through untouched
            ns = argparse.Namespace(command="launch", args=argv[1:])
        elif argv[:1] == ["compile"]:
            ns = _compile_namespace(argv[1:])       # compiler flags: -isystem, -gencode, -Os, @file
        else:
            ns = _build_parser().parse_args(argv)
        if ns.command is None:
            _build_parser().print_help()
            return EXIT_INVALID
        return COMMANDS[ns.command](ns)
    except ShflxError as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("shflx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                # e.g. `shflx compile ... | head`
        sys.stderr.close()
        return 0
    except ValueError as e:
        if debug or "integer string conversion" not in str(e):
            return _internal_error(e, debug)
        print("shflx: error: a number in the input has more digits than any value shflx reads "
              f"({clip(str(e).split(':')[-1].strip())})", file=sys.stderr)
        return 1
    except Exception as e:  # a shflx bug, not a user error
        return _internal_error(e, debug)


def _internal_error(e: Exception, debug: bool) -> int:
    if debug:
        raise e
    print(clip(f"shflx: internal error: {type(e).__name__}: {e} (rerun with --debug)"), file=sys.stderr)
    return 2
