import type { Progress } from '../context.js';

const WIDTH = 28;
const SHOW_AFTER_MS = 1500;
const EVERY_MS = 200;

/**
 * A progress bar on stderr for long ingests: only on a terminal, never with --json or in CI, and only
 * once reading has taken more than a moment (a pre-session dry run on a few lines shows nothing).
 */
export function terminalProgress(write: (text: string) => void, now: () => number = () => performance.now()): Progress {
  let total = 0;
  let started = 0;
  let last = 0;
  let shown = false;
  return {
    start(bytes) {
      total = bytes;
      started = now();
      last = 0;
      shown = false;
    },
    update(done) {
      const t = now();
      if (t - started < SHOW_AFTER_MS || t - last < EVERY_MS || total <= 0) return;
      last = t;
      shown = true;
      const ratio = Math.min(1, done / total);
      const filled = Math.round(ratio * WIDTH);
      const rate = done / ((t - started) / 1000);
      write(`\rsleep-cycle: reading [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${mb(done)}/${mb(total)} MB, ${mb(rate)} MB/s `);
    },
    finish() {
      if (shown) write(`\rsleep-cycle: reading [${'#'.repeat(WIDTH)}] 100% ${mb(total)} MB\n`);
    },
  };
}

function mb(bytes: number): string {
  return (bytes / 1_048_576).toFixed(bytes >= 10_485_760 ? 0 : 1);
}
