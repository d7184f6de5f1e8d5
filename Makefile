# Two commands do all the set-up on a fresh machine with Python 3.11+ and make:
#   make demo   - create .venv, install, play a short tournament (random, greedy, mcts)
#   make test   - create .venv, install (with the CPU build of torch, Ray, the web server and
#                 Playwright, OpenSpiel; Debian's Chromium if missing), run ruff (check and format
#                 --check), mypy --strict (src, tests, benchmarks) and pytest, every
#                 optional extra's tests included
#   make docs-outputs - regenerate the sample outputs shown in the README and docs/
#   make docs   - build the API reference site into site/ (MkDocs, strict; site/index.html)
#   make dist   - build the sdist and the wheel into dist/ and check them (twine --strict)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH  := 2.13.0
RAY    := 2.60.0
# The browser tests drive Debian's Chromium through Playwright, whose own browser download
# is not reachable here (tests/web/test_browser.py).
CHROMIUM := /usr/bin/chromium

.PHONY: demo test lint typecheck pytest bench thorough mutation mutation-extra clean docs-outputs cost-budget docs dist

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# One resolution with the pins: the CPU wheel of torch (a loose `torch`, which
	# sb3-contrib asks for, would pull a CUDA build of several GB) and Ray, so that every
	# CI run tests the same versions.  The openspiel extra pins open-spiel==2.0.2.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check \
		-e '.[dev,docs,ray,web,openspiel,dataset,testing]' torch==$(TORCH) ray==$(RAY)
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/durak tournament random greedy mcts:limit=10,samples=1 --games 70 --seed 1

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict src tests benchmarks tools examples

# Every extra is installed above, so a missing one fails its tests instead of skipping them.
# On every core: each test file runs whole in one worker (pytest-xdist, --dist loadfile).
pytest: $(STAMP) $(CHROMIUM)
	DURAK_REQUIRE_EXTRAS=1 $(BIN)/pytest -n auto --dist loadfile

$(CHROMIUM):
	apt-get update -q && apt-get install -y -q chromium

# Long local run of the property suites.
thorough: $(STAMP)
	HYPOTHESIS_PROFILE=thorough $(BIN)/pytest

# The call counts tests/project/test_cost.py holds the seeded workloads to (benchmarks/cost.py):
# rerun after an intended increase and say why in the commit message.
cost-budget: $(STAMP)
	$(BIN)/python benchmarks/cost.py --write benchmarks/cost_budget.json

# Mutation testing of durak.rules (MODULE=search: durak.search on the toy games; or another
# run of tools/mutation/target.py), with the derandomized hypothesis profile.  Resumable:
# each module keeps its run in .mutants/$(MODULE), which ./mutants (where mutmut works)
# points to, so that one module's run never reuses the other's map of which tests reach
# which function.  Not part of `make test`: it takes up to two hours on two cores.
# Report: docs/verification.md.
MODULE ?= rules
# NAMES="mutant ...": judge those mutants of the run again (mutmut's names).
NAMES ?=
mutation: $(STAMP)
	@# The runs and what each mutates: tools/mutation/target.py (one line naming them if
	@# MODULE is none of them).
	@DURAK_MUTATION_TARGET=$(MODULE) PYTHONPATH=tools $(BIN)/python -m mutation names > /dev/null
	@if [ -d mutants ] && [ ! -L mutants ]; then \
	  echo "mutants/ is a run from before .mutants/: move it to .mutants/<module> or remove it" >&2; \
	  exit 2; fi
	mkdir -p .mutants/$(MODULE)
	ln -sfn .mutants/$(MODULE) mutants
	set -f; DURAK_MUTATION_MODULE=$(MODULE) HYPOTHESIS_PROFILE=mutation $(BIN)/mutmut run \
	  $(if $(NAMES),$(NAMES),$$(DURAK_MUTATION_TARGET=$(MODULE) PYTHONPATH=tools $(BIN)/python -m mutation names))
	$(BIN)/mutmut results

# The second mutation pass over durak.rules (or MODULE=arena.scores, ... as for
# `mutation`), with the operators mutmut lacks (dropped operands, forced conditions,
# removed raises and statements, widened comparisons): tools/mutation/ (python -m
# mutation).  Resumable: verdicts are kept per mutant in .mutants/extra/results.jsonl
# (.mutants/extra-$(MODULE)/ for the others); ONLY=<text> judges the ids containing it.
# Not part of `make test`.  Report: docs/verification.md.
# REACH=mutmut takes which tests reach a function from the mutmut run's stats
# (.mutants/$(MODULE)/mutmut-stats.json) instead of tracing them: the web's routes run in
# the server's threads, and its tests cannot run under a profiler (docs/verification.md).
ONLY ?=
REACH ?= trace
mutation-extra: $(STAMP)
	DURAK_MUTATION_TARGET=$(MODULE) PYTHONPATH=tools $(BIN)/python -m mutation run --only "$(ONLY)" --reach $(REACH)
	DURAK_MUTATION_TARGET=$(MODULE) PYTHONPATH=tools $(BIN)/python -m mutation report

bench: $(STAMP)
	$(BIN)/durak bench

# Rewrite the sample outputs shown in README.md and docs/*.md (the blocks marked
# `<!-- doctest: output of: COMMAND -->`) from fresh runs; tests/project/test_docs.py checks them.
docs-outputs: $(STAMP)
	$(BIN)/python tests/support/doc_blocks.py --write

# The API reference site (mkdocs.yml: strict, so a broken link or reference fails it).
# tests/project/test_api_docs.py builds it too, in make test.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build

# The release artefacts, as tests/project/test_release.py builds and checks them in make test.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis mutants .mutants site dist
