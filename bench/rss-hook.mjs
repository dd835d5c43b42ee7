// Preloaded (node --import) into a CLI process the benchmark times: writes the process's peak RSS
// (KB) to the file named by SLEEP_CYCLE_BENCH_RSS when it exits. Adds no work before the exit.
import { writeFileSync } from 'node:fs';

const out = process.env.SLEEP_CYCLE_BENCH_RSS;
if (out) process.on('exit', () => writeFileSync(out, String(process.resourceUsage().maxRSS)));
