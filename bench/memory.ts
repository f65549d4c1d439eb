/**
 * The resident memory of a process and its descendants, sampled from /proc (Linux): what the soak's
 * memory aims are judged by. The peak is of the samples, taken every `everyMs`.
 */
import fs from 'node:fs';

const VM_RSS_LINE = /^VmRSS:\s+(\d+)\s+kB$/m;

const rssKiB = (pid: number): number => {
  try {
    return Number(VM_RSS_LINE.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    // Gone between listing and reading.
    return 0;
  }
};

/** `pid` and every process below it. */
const processTree = (pid: number): number[] => {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent; the command name (field 2) may hold spaces, so read after its ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree: number[] = [];
  const visit = (id: number) => {
    tree.push(id);
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return tree;
};

/** Resident bytes of `pid` and its descendants now. */
export const residentBytes = (pid: number): number => processTree(pid).reduce((sum, id) => sum + rssKiB(id), 0) * 1024;

export type MemorySampler = { peak: () => number; last: () => number; stop: () => void };

/** Samples `pid`'s tree every `everyMs` until stopped. */
export const sampleMemory = (pid: number, everyMs = 200): MemorySampler => {
  let peak = residentBytes(pid);
  let last = peak;
  const timer = setInterval(() => {
    last = residentBytes(pid);
    peak = Math.max(peak, last);
  }, everyMs);
  return { peak: () => peak, last: () => last, stop: () => clearInterval(timer) };
};

export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
