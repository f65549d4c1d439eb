/**
 * Whose received files a scratch directory holds, and whether that owner is gone (contract section 13:
 * "a partly received file never stays on disk, even after a crash"). Pure.
 *
 * Every application instance receives command uploads into its own directory under the application's
 * `.tmp/public-api-uploads/`, named after its host, process id and a random instance id. A directory is
 * abandoned, and swept with what it holds, when its owner is known to be gone:
 *
 * - this process, but an instance that no longer runs in it (a predecessor that had the same pid, as
 *   after a container restart, or an instance of this process that stopped);
 * - another process of this host that no longer exists;
 * - any owner that has not touched its directory for OWNER_STALE_MS (another host sharing the directory,
 *   or a pid the system has given to an unrelated process since).
 */
export const SCRATCH_ROOT = '.tmp/public-api-uploads';

/** How often a live instance touches its directory. */
export const OWNER_HEARTBEAT_MS = 60_000;

/** Untouched this long, a directory's owner is gone: ten missed touches, far beyond any pause of a live process. */
export const OWNER_STALE_MS = 10 * 60_000;

export type Owner = { host: string; pid: number; instance: string };

const SEPARATOR = '~';

/** A host name as it may appear in a directory name: letters, digits, dots and dashes. */
export const hostLabel = (hostname: string): string => hostname.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 100) || 'host';

export const ownerDirName = (owner: Owner): string => [hostLabel(owner.host), owner.pid, owner.instance].join(SEPARATOR);

export const parseOwnerDirName = (name: string): Owner | null => {
  const parts = name.split(SEPARATOR);
  if (parts.length !== 3) return null;
  const [host, pid, instance] = parts as [string, string, string];
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(host) || !/^[1-9][0-9]{0,9}$/.test(pid) || !/^[0-9a-f]{8,32}$/.test(instance)) return null;
  return { host, pid: Number(pid), instance };
};

export type Surroundings = {
  /** This instance. */
  self: Owner;
  /** Instances running in this process now (this one included once it has started). */
  liveHere: ReadonlySet<string>;
  /** Whether a process of this host exists. */
  processExists: (pid: number) => boolean;
  now: number;
};

/**
 * Whether the directory `name`, last touched at `touchedAt`, belongs to an owner that is gone. Names that
 * are not an owner's are left alone until they are stale.
 */
export const isAbandoned = (name: string, touchedAt: number, around: Surroundings): boolean => {
  if (name === ownerDirName(around.self) && around.liveHere.has(around.self.instance)) return false;
  if (around.now - touchedAt > OWNER_STALE_MS) return true;
  const owner = parseOwnerDirName(name);
  if (!owner || owner.host !== hostLabel(around.self.host)) return false;
  if (owner.pid === around.self.pid) return !around.liveHere.has(owner.instance);
  return !around.processExists(owner.pid);
};
