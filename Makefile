# The two quick-start commands: `make play` and `make test`.
# Each builds .venv from the lock file on first use (Python 3.11+ is all it needs).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Debian's Chromium without the parts a person needs on a screen (the same engine, package
# chromium-headless-shell): the browser tests' pages cost it two thirds of the CPU time of the whole browser.
CHROMIUM ?= /usr/lib/chromium/chromium-headless-shell

.PHONY: play test check lint typecheck layers browser bench bench-faults lighthouse screenshots clean fuzz train league exploiters

# pip installs only the installer (uv, pinned with its hashes); uv installs the lock files, hashes checked
# as pip would, in seconds instead of most of a minute on a fresh machine. --native-tls: the system's
# certificates, as pip uses them. --compile-bytecode: uv compiles every installed module once, on both
# cores (10 s); left to the first import, the test processes and the servers, computers and tools they
# start compiled the same modules side by side, and the first `make test` spent 100 s more of CPU.
UV = $(BIN)/uv pip install --quiet --native-tls --compile-bytecode --python $(BIN)/python

$(STAMP): requirements/installer.lock requirements/dev.lock requirements/older-pythons.lock pyproject.toml $(wildcard src/elferraus/_core/*.c src/elferraus/_core/*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/installer.lock
	$(UV) --require-hashes -r requirements/dev.lock -r requirements/older-pythons.lock
	$(UV) --no-deps --no-build-isolation -e .
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/elferraus play

# Four test processes on two cores: half of the suite's time is spent waiting (on a browser, a server, a
# fault that lasts seconds), and the others work meanwhile. Each process imports every module the suite
# collects, so Python keeps their compiled form (in the ignored __pycache__ folders) even where the
# environment says not to: without it, every process compiles the same files again.
# mypy runs beside the tests (on the core they leave idle while they wait); its report follows theirs.
TEST_WORKERS ?= 4

test: lint layers browser
	$(BIN)/mypy --strict src > $(VENV)/typecheck.log 2>&1 & typecheck=$$!; \
	env -u PYTHONDONTWRITEBYTECODE ELFERRAUS_CHROMIUM=$(CHROMIUM) $(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal; \
	tests=$$?; wait $$typecheck; typed=$$?; echo "mypy --strict src:"; cat $(VENV)/typecheck.log; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples docs/screenshots
	$(BIN)/ruff format --check src tests benchmarks examples docs/screenshots

typecheck: $(STAMP)
	$(BIN)/mypy --strict src

# The import-linter contracts of pyproject.toml: a wrong arrow between the layers fails here.
layers: $(STAMP)
	$(BIN)/lint-imports --no-cache

# The browser tests drive Debian's Chromium, the fault tests use strace, the store tests start their own
# PostgreSQL (its server programs, initdb and pg_ctl) and the cluster tests their own Redis and nginx (in front
# of several server processes); as root with apt, the set-up installs whichever is missing, without the packages
# they only recommend (a desktop's printer, sound, notification and network-discovery services: 116 packages
# instead of 28, 14 s instead of 8 s on a fresh machine); the font Chromium would recommend is named, the committed
# screenshots are drawn with it.
browser:
	@missing=""; test -x $(CHROMIUM) || missing="chromium-headless-shell fonts-liberation"; command -v strace >/dev/null || missing="$$missing strace"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || missing="$$missing postgresql"; \
	command -v redis-server >/dev/null || test -x /usr/bin/redis-server || missing="$$missing redis-server"; \
	command -v nginx >/dev/null || test -x /usr/sbin/nginx || missing="$$missing nginx-light"; \
	if [ -n "$$missing" ]; then \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& echo "installing" $$missing "for the browser, fault, store and cluster tests ..." \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } \
		|| { echo "The tests need Chromium at $(CHROMIUM), strace, PostgreSQL, Redis and nginx: install the packages chromium-headless-shell, fonts-liberation, strace, postgresql, redis-server and nginx-light, or make test CHROMIUM=/path/to/chromium"; exit 1; }; \
	fi

# The server's fuzz tests at full size (make test runs them short): at least 100,000 generated HTTP requests
# and WebSocket frames; the totals are printed at the end. ELFERRAUS_FUZZ_SCALE=0.1 runs a tenth.
fuzz: $(STAMP)
	ELFERRAUS_FUZZ=long $(BIN)/pytest -n 2 tests/server/web/test_fuzz_http.py tests/server/rooms/test_fuzz_ws.py

# What the tests do not assert, as it depends on the machine's load: how fast the rooms that need no write
# are answered while the database fails (p99 under 50 ms on a quiet machine), measured and reported here.
bench-faults: $(STAMP) browser
	$(BIN)/python -m benchmarks.site.faults

# Lighthouse's scores of every page (lobby, rules, waiting room, table, watching, result, replay), phone and
# desktop, English and German, printed as a table; Lighthouse itself is the npm package locked in
# benchmarks/site/lighthouse/ (Node.js and npm, installed when missing).
lighthouse: $(STAMP) browser
	@command -v npm >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
	ELFERRAUS_CHROMIUM=$(CHROMIUM) $(BIN)/python -m benchmarks.site.lighthouse $(LIGHTHOUSE_ARGS)

# The web game's screenshots in docs/screenshots/ (lobby, table, result; phone and desktop; light and dark), made
# anew from a seeded game so that the README shows the page as it is.
screenshots: $(STAMP) browser
	ELFERRAUS_CHROMIUM=$(CHROMIUM) $(BIN)/python -m docs.screenshots.make

bench: $(STAMP)
	$(PYTHON) -m venv .venv-bench
	.venv-bench/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes -r benchmarks/requirements.lock
	.venv-bench/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	.venv-bench/bin/python -m benchmarks.engine.random_games
	.venv-bench/bin/python -m benchmarks.engine.frameworks
	.venv-bench/bin/python -m benchmarks.engine.selfplay_speed

# The learned player (examples/train/README.md), outside `make test`: its own venv from the train lock
# (PyTorch's CPU build comes from PyTorch's own index), training, the learning curve, then the arena
# figures over the bot protocol. TRAIN_ARGS goes to train.py, e.g. TRAIN_ARGS="--steps 200000".
TRAIN_VENV := .venv-train
TRAIN_STAMP := $(TRAIN_VENV)/.installed
TRAIN_OUT ?= examples/train/out
TRAIN_ARGS ?=
TRAIN_DEALS ?= 500
TRAIN_LEVELS ?= random greedy medium expert
TORCH_LINKS ?= https://download.pytorch.org/whl/cpu/torch/

$(TRAIN_STAMP): examples/train/requirements.lock examples/train/torch.lock pyproject.toml
	$(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps \
		--find-links $(TORCH_LINKS) -r examples/train/torch.lock
	$(TRAIN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes -r examples/train/requirements.lock
	$(TRAIN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(TRAIN_STAMP)

train: $(TRAIN_STAMP)
	$(TRAIN_VENV)/bin/python examples/train/train.py --out $(TRAIN_OUT) $(TRAIN_ARGS)
	for level in $(TRAIN_LEVELS); do \
		$(TRAIN_VENV)/bin/elferraus arena --games $(TRAIN_DEALS) --jobs 2 --json $(TRAIN_OUT)/arena-$$level.json \
			--bots "cmd:$(TRAIN_VENV)/bin/python -m elferraus.envs.learned $(TRAIN_OUT)/policy.npz,$$level,$$level,$$level" \
			|| exit 1; \
	done

# The league (examples/league/): a network for every table, trained by self-play against a growing
# population, in the train venv: first it learns to play as the hoarder (imitate.py, a few minutes), then it
# trains for LEAGUE_HOURS, going on from examples/league/out/checkpoint.pt or, on a new machine, from
# examples/league/results/ (kept in git); the curves are in results/curve.png.
LEAGUE_HOURS ?= 2
LEAGUE_ARGS ?=

league: $(TRAIN_STAMP)
	test -f examples/league/results/state.json || test -f examples/league/out/imitated.npz \
		|| nice $(TRAIN_VENV)/bin/python examples/league/imitate.py --out examples/league/out/imitated.npz
	nice $(TRAIN_VENV)/bin/python examples/league/league.py --start examples/league/out/imitated.npz \
		--hours $(LEAGUE_HOURS) $(LEAGUE_ARGS)

# The exploiters (examples/league/exploit.py): a best response to three of each target, each trained for the
# same EXPLOIT_UPDATES from the league's network; each goes on from its checkpoint, and publishes into
# examples/league/exploiters/TARGET/ (kept in git). About 1.5 hours on 2 cores for all four.
EXPLOIT_UPDATES ?= 40

exploiters: $(TRAIN_STAMP)
	for target in hoarder learned master expert; do \
		nice $(TRAIN_VENV)/bin/python examples/league/exploit.py --target $$target --updates $(EXPLOIT_UPDATES) \
			|| exit 1; \
	done

clean:
	rm -rf $(VENV) .venv-bench $(TRAIN_VENV) .mypy_cache .ruff_cache
