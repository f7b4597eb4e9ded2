"""Packaging: pyproject metadata, the console command's target, -OO, and evalcore free of the app's deps."""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import evalcore

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _py(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


#: the environment without PYTHONUNBUFFERED: standard output block-buffered, as in most shells
_BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def test_runtime_dependencies_are_only_numpy_pandas_pyarrow_joblib():
    """joblib (pure Python) brings the loky worker processes of evalcore.meta's large calls."""
    names = sorted(d.split(">")[0].split("=")[0].strip() for d in PYPROJECT["project"]["dependencies"])
    assert names == ["joblib", "numpy", "pandas", "pyarrow"]
    app = " ".join(PYPROJECT["project"]["optional-dependencies"]["app"])
    assert "streamlit" in app and "plotly" in app


def test_console_command_points_at_the_entry_that_runs_main():
    module, _, func = PYPROJECT["project"]["scripts"]["evalcore"].partition(":")
    assert getattr(importlib.import_module(module), func) is evalcore.cli.run
    assert (ROOT / "evalcore" / "__main__.py").read_text().strip().endswith("run()")


_SMALL_QRELS = "".join(f"t{t} 0 d{d} {(d + t) % 3}\n" for t in range(1, 201) for d in range(40))
_SMALL_RUN = "".join(f"t{t} Q0 d{d} {d} {100 - d} r\n" for t in range(1, 201) for d in range(0, 80, 2))


def test_the_command_line_prints_all_it_computed_and_keeps_its_exit_code(tmp_path, capsys):
    """``python -m evalcore`` ends without Python's teardown (``evalcore.cli.run``): what it printed is
    still all there, byte for byte what ``main`` prints in process, and the exit code is main's."""
    (tmp_path / "q.txt").write_text(_SMALL_QRELS)
    (tmp_path / "r.txt").write_text(_SMALL_RUN)
    argv = ["evaluate", "--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "r.txt"),
            "-m", "map", "P_10", "ndcg_cut_10", "AP", "Q-measure", "--output", "jsonl"]
    for extra, lines in (([], 5), (["--per-topic"], 5 * 201)):   # one buffer's worth, and ~80 kB
        assert evalcore.cli.main(argv + extra) == 0
        want = capsys.readouterr().out
        r = subprocess.run([sys.executable, "-m", "evalcore", *argv, *extra], cwd=ROOT, capture_output=True,
                           text=True, timeout=120, env=_BUFFERED)
        assert r.returncode == 0 and r.stdout == want and len(want.splitlines()) == lines
    saved = tmp_path / "out" / "settings.json"
    saved.parent.mkdir()
    r = _py("-m", "evalcore", *argv, "--save-settings", str(saved))
    assert r.returncode == 0 and saved.read_text().endswith("}\n")   # written whole before the process ends
    r = _py("-m", "evalcore", "evaluate", "--qrels", str(tmp_path / "none.txt"), "--run", str(tmp_path / "r.txt"))
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "none.txt" in r.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_output_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path):
    """Standard output on a full disk (``> /dev/full``): the last buffer fails when it is flushed, after
    ``main`` returned; the command says so and exits 1."""
    (tmp_path / "q.txt").write_text(_SMALL_QRELS)
    (tmp_path / "r.txt").write_text(_SMALL_RUN)
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--qrels", str(tmp_path / "q.txt"), "--run",
                            str(tmp_path / "r.txt"), "-m", "map"], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=120, env=_BUFFERED)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: could not write the output") and "No space left" in r.stderr


def test_the_command_line_ends_quietly_when_its_reader_goes_away(tmp_path):
    """``evalcore evaluate ... | head -1``: the first line arrives, then no traceback, whatever the exit."""
    (tmp_path / "q.txt").write_text(_SMALL_QRELS)
    (tmp_path / "r.txt").write_text(_SMALL_RUN)
    cmd = [sys.executable, "-m", "evalcore", "evaluate", "--qrels", str(tmp_path / "q.txt"), "--run",
           str(tmp_path / "r.txt"), "-m", "map", "P_10", "--per-topic"]
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_BUFFERED)
    assert p.stdout is not None and p.stderr is not None
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=120)
    assert first.startswith(b"run\t") and b"Traceback" not in err


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_help_works_under_python_OO_and_version_is_the_package_version():
    r = _py("-OO", "-m", "evalcore", "--help")
    assert r.returncode == 0, r.stderr
    for cmd in ("evaluate", "kendall", "swap", "bootstrap", "stability", "tukey", "app"):
        assert cmd in r.stdout
    r = _py("-OO", "-m", "evalcore", "swap", "--help")
    assert r.returncode == 0 and "With ``--output json``" in r.stdout, r.stderr
    r = _py("-m", "evalcore", "--version")
    assert r.stdout.splitlines()[0] == f"evalcore {evalcore.__version__}"
    assert r.stdout.splitlines()[1].startswith("distribution: evalcore-ir ")


def test_evalcore_and_its_cli_import_neither_streamlit_nor_plotly():
    r = _py("-c", "import sys, evalcore, evalcore.cli, evalcore.meta; "
                  "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')))")
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stderr


def test_app_command_finds_the_checkout_or_says_how():
    from evalcore.cli.app import find_app

    assert find_app(str(ROOT)) == (ROOT / "app.py").resolve()
    r = _py("-m", "evalcore", "app", "--app-dir", "/nonexistent", "--dry-run")
    assert r.returncode == 2 and 'pip install "evalcore-ir[app]" (the wheel ships the dashboard)' in r.stderr


# -- a package people can adopt ------------------------------------------------------------------------
def test_license_citation_changelog_and_metadata():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]      # PEP 639
    assert PYPROJECT["build-system"]["requires"] == ["setuptools>=77"]
    cff = (ROOT / "CITATION.cff").read_text()
    for key in ("cff-version: 1.2.0", "title:", "authors:", "license: MIT", f"version: {evalcore.__version__}"):
        assert key in cff
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog and f"## [{evalcore.__version__}]" in changelog


def test_project_urls_and_readme_links_work_on_a_package_index():
    """A package index shows README.md without the repository beside it: every link is absolute (or an
    anchor), and those into the repository name a file of this checkout under project.urls' Repository."""
    import re

    urls = PYPROJECT["project"]["urls"]
    repo = urls["Repository"].rstrip("/")
    assert repo.startswith("https://") and {"Repository", "Documentation", "Changelog", "Issues"} <= set(urls)
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    for link in links:
        assert link.startswith(("https://", "http://", "#")), f"relative link {link!r} breaks on a package index"
        for prefix in (repo + "/blob/main/", repo.replace("https://github.com/", "https://raw.githubusercontent.com/")
                       + "/main/"):
            if link.startswith(prefix):
                path, _, anchor = link[len(prefix):].partition("#")
                assert (ROOT / path).is_file(), link
                if anchor:      # GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens
                    heads = re.findall(r"^#+ (.+)$", (ROOT / path).read_text(encoding="utf-8"), flags=re.M)
                    slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}
                    assert anchor in slugs, f"{link}: no heading with the anchor {anchor!r} in {path}"


def test_readme_is_short_and_holds_the_two_commands_and_the_address():
    """The README a newcomer reads in two minutes: the two commands (.ci/run runs the test command), the
    address and port, a picture; the reference material lives in docs/ and CONTRIBUTING.md."""
    text = (ROOT / "README.md").read_text()
    assert '```bash\npython -m pip install ".[app]" && evalcore app\n```' in text
    assert "```bash\npython -m pip install -r requirements-dev.txt && python -m pytest\n```" in text
    assert "python -m pytest -q" in (ROOT / ".ci" / "run").read_text()
    for s in ("http://localhost:8501", "--port", "--address", "![", "CONTRIBUTING.md"):
        assert s in text, s
    assert len(text.splitlines()) <= 120, "keep the README short: reference material goes to docs/"


def test_api_reference_is_generated_from_the_docstrings():
    r = _py("docs/make_api.py", "--check")
    assert r.returncode == 0, r.stderr + " (regenerate: python docs/make_api.py)"
    text = (ROOT / "docs" / "api.md").read_text()
    for name in ("load_collection", "evaluate", "to_trec_eval", "topic_policy", "q_measure", "kendall_tau"):
        assert f"`{name}(" in text


def _modules_after(code: str) -> set[str]:
    r = _py("-c", "import sys\n" + code + "\nprint(' '.join(sorted(sys.modules)))")
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def test_version_and_help_import_nothing_heavy_and_lean_help_is_the_full_help():
    from evalcore.cli import LEAN_HELP, build_parser

    for argv in (["--version"], ["--help"]):
        mods = _modules_after(f"from evalcore.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass")
        heavy = sorted(m for m in mods if m.split(".")[0] in ("numpy", "pandas", "pyarrow", "scipy"))
        ours = sorted(m for m in mods if m.startswith("evalcore.") and m != "evalcore.cli")
        assert heavy == [] and ours == [], (argv, heavy[:5], ours)
    # the lean list (no subcommand module imported) says what the modules register
    fix = "a subcommand or its help line changed: update evalcore.cli.LEAN_HELP / LEAN_EPILOG to match"
    assert set(LEAN_HELP) == {c for cmds in importlib.import_module("evalcore.cli").SUBCOMMANDS.values()
                              for c in cmds}, fix
    assert build_parser(None, lean=True).format_help() == build_parser(None).format_help(), fix


def test_evaluate_imports_only_what_it_uses():
    mods = _modules_after("import io, contextlib\nfrom evalcore.cli import main\n"
                          "with contextlib.redirect_stdout(io.StringIO()):\n"
                          "    main(['evaluate', '--paper-examples', '--metrics', 'AP', 'map'])")
    unused = sorted(m for m in mods if m.split(".")[0] in ("scipy", "streamlit", "plotly", "dask", "dashboard")
                    or m.startswith(("evalcore.meta", "evalcore.report", "evalcore.cli.meta", "evalcore.cli.stats")))
    assert unused == []
    assert {"evalcore.registry", "evalcore.metrics", "evalcore.writers"} <= mods


def test_loading_text_never_imports_pyarrow_compute_or_pandas(tmp_path):
    """Importing ``pyarrow.compute`` costs ~0.04 s of CPU and pandas ~0.4 s (docs/benchmarks.md section 14.4);
    the loader needs neither on any path from text: gzip, blanks to clean or ending lines, topics out of
    order (the full sort and the duplicate check on all keys), a repeated document kept once, NTCIR
    per-topic qrels with letter labels and a repeated judgment (the line-by-line reader)."""
    import gzip

    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "1.rel").write_text("a L2\nb B\n")
    (tmp_path / "qrels" / "2.rel").write_text("c S\nc S\n")
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(b"2 Q0 c 1 2.0 x \n1 Q0 a 1 2.0 x \n1 Q0 b 2 2.0 x \n"))
    (tmp_path / "b.txt").write_text("1\tQ0\ta 1 1.0 x\n1 Q0 a 2 0.5 x\n2 Q0  c 1 3.0 x\n")
    code = (f"from evalcore.io import load_collection\n"
            f"c = load_collection({str(tmp_path / 'qrels')!r}, [{str(tmp_path / 'a.txt.gz')!r}, "
            f"{str(tmp_path / 'b.txt')!r}], keep_first_duplicate=True)\n"
            "print(c.levels.sum(), file=sys.stderr)")
    r = _py("-c", "import sys\n" + code + "\nprint(' '.join(sorted(sys.modules)))")
    assert r.returncode == 0, r.stderr
    mods = r.stdout.split()
    assert "pyarrow.compute" not in mods and "pandas" not in mods and "pyarrow" in mods
    # levels placed (L2 = 2, B = 1, S = 3): run a holds c, a, b (3 + 2 + 1); run b a and c (2 + 3), its repeat dropped
    assert r.stderr.strip().splitlines()[-1] == "11"


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_evaluate_on_files_does_not_import_pandas(tmp_path):
    """``evalcore evaluate`` on TREC files reads, scores and writes without pandas (~0.4 s of CPU per call;
    docs/benchmarks.md section 14), in every output format; the output is that of evalcore.evaluate's
    DataFrame through the writers."""
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 0\n")
    r.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n2 Q0 d 1 3.0 x\n2 Q0 c 2 3.0 x\n")
    for fmt in ("tsv", "trec_eval", "json", "jsonl"):
        argv = ["evaluate", "--qrels", str(q), "--run", str(r), "--metrics", "map", "P_10", "AP",
                "--per-topic", "--output", fmt]
        code = ("import io, contextlib\nfrom evalcore.cli import main\nout = io.StringIO()\n"
                f"with contextlib.redirect_stdout(out):\n    main({argv!r})\n"
                "print(repr(out.getvalue()), file=sys.stderr)")
        r_ = _py("-c", "import sys\n" + code + "\nprint(' '.join(sorted(sys.modules)))")
        assert r_.returncode == 0, r_.stderr
        assert "pandas" not in r_.stdout.split() and "pyarrow.compute" not in r_.stdout.split(), fmt
        import ast

        from evalcore import evaluate, load_collection, writers

        got = ast.literal_eval(r_.stderr.strip().splitlines()[-1])
        if fmt in ("tsv", "trec_eval", "jsonl"):
            c = load_collection(str(q), [str(r)])
            df = evaluate(c, ["map", "P_10", "AP"], per_topic=True, means=True,
                          topics="trec_eval" if fmt == "trec_eval" else None)
            assert got == writers.write(df, fmt)


def test_a_missing_scipy_names_the_extra(tmp_path):
    block = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
             "        if name.split('.')[0] == 'scipy':\n"
             "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
             "sys.meta_path.insert(0, Block())\nfrom evalcore.cli import main\n"
             "sys.exit(main(['topics', '--test', 'anova', '--min-diff', '0.1', '--variance', '0.05', '--systems', "
             "'5']))\n")
    r = _py("-c", block)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == "error: 'evalcore topics' needs scipy, which is not installed: " \
                               'pip install "evalcore-ir[stats]"'


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_a_missing_scipy_names_the_extra_from_python_too():
    """The statistics called from Python without scipy: a ModuleNotFoundError (name "scipy") whose text names
    the module that needs it and the extra, for each of the four modules that use scipy."""
    calls = {
        "evalcore.meta.pairs": "meta.pair_statistics({'AP': np.array([[.1, .2, .3, .5], [.2, .2, .4, .4]])})",
        "evalcore.meta.topicsets": "meta.topic_set_size('anova', min_diff=0.1, variance=0.05, systems=5)",
        "evalcore.meta.standardise": "meta.standardise(np.array([[.1, .2], [.3, .5]]), 'cdf')",
    }
    for module, call in calls.items():
        code = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
                "        if name.split('.')[0] == 'scipy':\n"
                "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
                "sys.meta_path.insert(0, Block())\nimport numpy as np\nfrom evalcore import meta\n"
                f"try:\n    {call}\nexcept ModuleNotFoundError as e:\n    print(e.name, '|', e)\n")
        r = _py("-c", code)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == f'scipy | {module} needs scipy, which is not installed: pip install ' \
                                   '"evalcore-ir[stats]"', (module, r.stdout, r.stderr)


@pytest.mark.slow
def test_wheel_ships_the_dashboard_and_evalcore_app_runs_it_from_anywhere(tmp_path):
    """Build the wheel from a copy of the checkout, install it in a fresh venv (the app's dependencies come
    from this interpreter's site-packages), and run the installed dashboard from an unrelated directory."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", ".benchmarks",
        ".ruff_cache", "tests", "benchmarks", "docs"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                        str(src)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("evalcore_ir-*.whl"))
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    for p in [ROOT / "app.py", *(ROOT / "views").glob("*.py"), *(ROOT / "dashboard").glob("*.py")]:
        rel = p.relative_to(ROOT).as_posix()
        assert f"evalcore_app/{rel}" in names, rel
    assert "evalcore_app/.streamlit/config.toml" in names
    # only namespaced top-level names: no generic `dashboard` package beside other projects' modules
    assert {n.split("/")[0] for n in names} == {"evalcore", "evalcore_app", wheel.name.split("-py3")[0] + ".dist-info"}
    assert "evalcore/py.typed" in names     # PEP 561: type checkers read evalcore's annotations
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta and "License-File: LICENSE" in meta
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    # the app's dependencies are this interpreter's, also when it is itself a venv (whose packages
    # --system-site-packages does not reach): its site-packages go on the new venv's path, after its own
    import sysconfig

    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    Path(site, "outer_site_packages.pth").write_text("".join(f"{d}\n" for d in ours))
    # --ignore-installed: the outer site-packages may hold evalcore-ir already (the README's pip install ".[app]");
    # the wheel must still be installed into the venv, with its console command
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(wheel)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (venv / "bin" / "evalcore").is_file(), "the wheel installed no evalcore command"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(venv / "bin" / "evalcore"), "app", "--dry-run"], cwd=elsewhere, capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    serve = Path(r.stdout.split()[4])      # python -m streamlit run SERVER --server.port=...: app.py's st.App
    app = serve.parents[1] / "app.py"
    assert serve.name == "serve.py" and app.parent.name == "evalcore_app" and str(venv) in str(app), r.stdout
    r = subprocess.run([str(venv / "bin" / "evalcore"), "--version"], cwd=elsewhere, capture_output=True, text=True,
                       timeout=120, env=env)
    lines = r.stdout.splitlines()
    assert lines[1].startswith("distribution: evalcore-ir 0.1.0 (pip install evalcore-ir); module at " + str(venv)), \
        r.stdout
    code = ("import evalcore\n"
            f"assert evalcore.__file__.startswith({str(venv)!r})\n"
            f"assert not __import__('os').path.exists({str(Path(site) / 'dashboard')!r})\n"   # not installed
            "from streamlit.testing.v1 import AppTest\n"
            f"at = AppTest.from_file({str(app)!r}, default_timeout=120).run()\n"
            "import dashboard\n"                       # the app's own helpers, found beside its script
            f"assert dashboard.__file__.startswith({str(app.parent)!r}), dashboard.__file__\n"
            "print(len(at.exception), int(len(at.title) + len(at.header) + len(at.markdown) > 0))")
    r = subprocess.run([str(py), "-c", code], cwd=elsewhere, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0 and r.stdout.split()[-2:] == ["0", "1"], (r.stdout, r.stderr[-2000:])


def test_the_cli_runs_one_blas_thread_unless_told_otherwise():
    pytest.importorskip("threadpoolctl")
    code = ("import io, contextlib\nfrom evalcore.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    main(['evaluate', '--paper-examples', '--metrics', "
            "'AP'])\n"
            "import threadpoolctl\nprint(sorted({p['num_threads'] for p in threadpoolctl.threadpool_info() "
            "if p['internal_api'] == 'openblas'}))")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                            "MKL_NUM_THREADS")}
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "[1]", r.stderr
    if os.cpu_count() and os.cpu_count() > 1:
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env=dict(env, OPENBLAS_NUM_THREADS="2"))
        assert r.returncode == 0 and r.stdout.strip() == "[2]", r.stderr     # the user's setting is kept


@pytest.mark.slow
def test_the_sdist_holds_every_tracked_file_and_its_tests_run(tmp_path):
    """The sdist is the checkout (MANIFEST.in), so that its tests run where it is unpacked: built with the
    PEP 517 backend pyproject.toml names, compared with `git ls-files`, and a fast subset of its tests run
    from the unpacked copy (.ci/run runs the same)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    backend = tmp_path / "backend"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", str(backend),
                        *PYPROJECT["build-system"]["requires"]], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    code = "import setuptools.build_meta as b, sys; print(b.build_sdist(sys.argv[1]))"
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                       timeout=600, env={**os.environ, "PYTHONPATH": str(backend)})
    assert r.returncode == 0, r.stderr[-2000:]
    import tarfile

    sdist = tmp_path / r.stdout.split()[-1]
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        tar.extractall(tmp_path, filter="data")
    tracked = set(subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.split())
    assert sorted(tracked - names - {".gitignore"}) == []
    # the unpacked sdist has no ../shared beside it: the collection's path travels (conftest.CLEF2015)
    from conftest import CLEF2015

    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SDIST_TESTS],
                       cwd=tmp_path / top, capture_output=True, text=True, timeout=600,
                       env={**os.environ, "EVALCORE_CLEF2015": str(CLEF2015)})
    assert r.returncode == 0, r.stdout[-3000:]


#: the fast subset of the suite that .ci/run and the test above run in the unpacked sdist
SDIST_TESTS = ("tests/test_packaging.py", "tests/test_names.py", "tests/test_cli_options.py", "tests/test_io.py",
               "tests/test_metrics_papers.py")


def _is_module(name: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:     # a parent is not a package (evalcore.metrics.cache.max_bytes)
        return False


def test_the_api_reference_covers_every_public_module_the_docs_name():
    """A module the README, CONTRIBUTING.md or docs/ name (``evalcore.meta.on_dask``, ``evalcore.report``) has
    its section in docs/api.md (docs/make_api.py's MODULES), or the name is one of a module listed there."""
    import importlib.util
    import re

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_api
    finally:
        sys.path.pop(0)
    text = (ROOT / "README.md").read_text() + (ROOT / "CONTRIBUTING.md").read_text() + "".join(
        p.read_text() for p in (ROOT / "docs").glob("*.md") if p.name != "api.md")
    named = set(re.findall(r"\bevalcore(?:\.[a-z][a-z0-9_]*)+", text))
    documented = {n for m in make_api.MODULES for n in getattr(importlib.import_module(m), "__all__", [])}
    missing = []
    for name in sorted(named):
        parts = name.split(".")
        while len(parts) > 1 and not _is_module(".".join(parts)):
            parts.pop()          # evalcore.metrics.cache -> evalcore.metrics: an attribute of a module
        module = ".".join(parts)
        if any(p.startswith("_") for p in parts) or module == "evalcore":
            continue
        mod = importlib.import_module(module)
        # covered: the module has its own section, or every public name of it is in a section (re-exported:
        # evalcore.meta.pairs's names are evalcore.meta's); the command line (evalcore.cli) is documented by --help
        covered = module in make_api.MODULES or module.startswith("evalcore.cli") or any(
            m.startswith(module + ".") for m in make_api.MODULES) or (
            set(getattr(mod, "__all__", ["?"])) <= documented)
        if not covered:
            missing.append(name)
    assert missing == [], f"named in the docs, not in docs/api.md (add to MODULES in docs/make_api.py): {missing}"
