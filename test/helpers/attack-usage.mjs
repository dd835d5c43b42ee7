// Preloaded (node --import) into each night the attack harness runs: at exit, the process's own CPU time
// and peak memory go to ATTACK_USAGE_FILE, so DoS is judged by the work a night did, not by the wall
// time of a machine that other jobs share.
import { writeFileSync } from 'node:fs';

const file = process.env.ATTACK_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ cpu_ms: Math.round((userCPUTime + systemCPUTime) / 1000), max_rss_kb: maxRSS }));
  });
}
