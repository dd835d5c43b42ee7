#!/usr/bin/env sh
# Before a session: refresh proposed_memory_updates.md with a fast, offline dry run and print one line.
# It never applies rules and never puts rule text into the agent's context, and it never fails the
# session: whatever sleep-cycle does, this exits 0.
# The preview goes to an ignored file, so a session start never leaves the tracked report modified.
out=$(SLEEP_CYCLE_REPORT_FILE=.sleep-cycle/preview.md npx --no-install sleep-cycle run --dry-run --offline --json 2>/dev/null) || true
printf '%s' "$out" | node -e '
let text = "";
process.stdin.on("data", (d) => (text += d)).on("end", () => {
  try {
    const r = JSON.parse(text);
    if (!r.success) return console.log(`sleep-cycle: ${r.error.code} (see \`npx sleep-cycle run --dry-run\`)`);
    const proposed = r.data.proposals.filter((p) => p.status === "proposed").length;
    const quarantined = r.data.proposals.filter((p) => p.status === "quarantined").length;
    console.log(`sleep-cycle: ${r.data.lines.read} new telemetry lines, ${proposed} rules proposed, ${quarantined} quarantined: review ${r.data.report_path} (not applied)`);
  } catch {
    console.log("sleep-cycle: no summary (dry run did not complete)");
  }
});' 2>/dev/null || true
exit 0
