import { readFileSync } from 'node:fs';

/**
 * This process's peak resident memory in bytes. On Linux it is VmHWM of /proc/self/status: `getrusage`'s maxrss
 * survives exec, so a process started by a large parent would report the parent's size. Elsewhere maxrss.
 */
export function peakMemoryBytes(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match !== null) return Number(match[1]) * 1024;
  } catch {
    // Not Linux.
  }
  return process.resourceUsage().maxRSS * 1024;
}
