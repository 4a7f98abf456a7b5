#!/usr/bin/env bash
# Nightly regression check on a GPU node: measure the command, gate it on a stored baseline with
# `phasewrap check`, and leave both the run's figures and the verdict in node_exporter's textfile directory.
# Its arguments are `phasewrap run`'s: run options, then -- and the command.
#
#   phasewrap-nightly.sh --tag node=gpu07 -- llama-completion -m /models/m.gguf -p "Hello" -n 128 -no-cnv -ngl 99
#
# The first night has no baseline: it saves one (`run --save-baseline`) and exits 0. Every night after, the
# runs are checked against it; after an intended change (new driver, new build you accept), save it again:
# PHASEWRAP_REBASELINE=1 phasewrap-nightly.sh -- … . Run it from cron or the systemd timer beside this file:
#
#   30 2 * * *  phasewrap  /usr/local/bin/phasewrap-nightly.sh -- llama-completion -m /models/m.gguf -p Hello -n 128 -no-cnv
#
# Settings (environment; the systemd unit reads them from /etc/default/phasewrap-nightly):
#   PHASEWRAP              the phasewrap command (default: phasewrap)
#   PHASEWRAP_BASELINE     baseline name (default: nightly)
#   PHASEWRAP_BASELINE_DIR the baseline store (default: /var/lib/phasewrap/baselines)
#   PHASEWRAP_OUT          records, JUnit and JSON reports per night (default: /var/lib/phasewrap/nightly)
#   PHASEWRAP_PROM_DIR     node_exporter's --collector.textfile.directory (default: /var/lib/node_exporter/textfile)
#   PHASEWRAP_RUNS         recorded runs (default: 5; check needs >= 4 for a change, 5 for a bound)
#   PHASEWRAP_FAIL_IF      thresholds, space-separated (default: check's own: load>+10% ttft>+10% ms_per_token>+10%)
#
# Exit status: check's (0 pass, 1 regression, 2 bad input, 4 can't tell), or the run's when it failed.
# Textfile gauges: phasewrap.prom (from run --prom-textfile: phase seconds, tokens/s, …) and
# phasewrap-check.prom: phasewrap_check_status{baseline} (that exit status) and
# phasewrap_check_last_run_seconds{baseline} (Unix time), written to a temp file and renamed.
set -euo pipefail

[ "$#" -gt 0 ] || { echo "usage: phasewrap-nightly.sh [RUN OPTIONS] -- CMD [ARGS...]" >&2; exit 2; }

PW=${PHASEWRAP:-phasewrap}
NAME=${PHASEWRAP_BASELINE:-nightly}
export PHASEWRAP_BASELINE_DIR=${PHASEWRAP_BASELINE_DIR:-/var/lib/phasewrap/baselines}
OUT=${PHASEWRAP_OUT:-/var/lib/phasewrap/nightly}
PROM_DIR=${PHASEWRAP_PROM_DIR:-/var/lib/node_exporter/textfile}
RUNS=${PHASEWRAP_RUNS:-5}
night=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT" "$PROM_DIR"

write_status() {  # $1: the exit status to publish
    local tmp="$PROM_DIR/.phasewrap-check.prom.$$"
    {
        echo "# HELP phasewrap_check_status Exit status of the last nightly phasewrap check (0 pass, 1 regression, 2 bad input, 4 can't tell)."
        echo "# TYPE phasewrap_check_status gauge"
        echo "phasewrap_check_status{baseline=\"$NAME\"} $1"
        echo "# HELP phasewrap_check_last_run_seconds When the last nightly check finished (Unix time)."
        echo "# TYPE phasewrap_check_last_run_seconds gauge"
        echo "phasewrap_check_last_run_seconds{baseline=\"$NAME\"} $(date +%s)"
    } > "$tmp"
    mv -f "$tmp" "$PROM_DIR/phasewrap-check.prom"
}

save=()
if [ -n "${PHASEWRAP_REBASELINE:-}" ] || [ ! -f "$PHASEWRAP_BASELINE_DIR/$NAME.jsonl" ]; then  # the store's layout
    save=(--save-baseline "$NAME")
fi

status=0
$PW run -q --format none -n "$RUNS" --warmup 1 --jsonl "$OUT/$night.jsonl" --prom-textfile "$PROM_DIR" \
    "${save[@]}" "$@" || status=$?
if [ "$status" -ne 0 ] || [ "${#save[@]}" -gt 0 ]; then
    write_status "$status"
    exit "$status"
fi

fail_if=()
for threshold in ${PHASEWRAP_FAIL_IF:-}; do fail_if+=(--fail-if "$threshold"); done
$PW check --baseline "$NAME" "$OUT/$night.jsonl" "${fail_if[@]}" --junit "$OUT/$night.check.xml" \
    --format json > "$OUT/$night.check.json" || status=$?
write_status "$status"
exit "$status"
