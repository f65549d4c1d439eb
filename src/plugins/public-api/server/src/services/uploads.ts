/**
 * Where command uploads are received and how a crash is cleaned up after (contract section 13: "Command
 * uploads are bounded in concurrency and bytes in flight; a partly received file never stays on disk,
 * even after a crash").
 *
 * - admit      the bound on uploads in flight (uploads/gate.ts): room, or 503 with Retry-After.
 * - workspace  a private directory per request under this instance's own directory in
 *              `.tmp/public-api-uploads/` (uploads/owners.ts), never a public one: received parts land
 *              there, and so does a note (uploads/intent.ts) before a file is written through the upload
 *              provider. Closing it (after the request's transaction ended) removes it all.
 * - sweep      at start and every OWNER_HEARTBEAT_MS: the directories of owners that are gone. For each
 *              note there, the provider's bytes are deleted unless their file row exists (the row commits
 *              with the write, so a missing row means the write never committed), then the directory goes.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { pluginConfig } from '../config';
import { apiError } from '../http/errors';
import { createUploadGate, type UploadGate } from '../uploads/gate';
import { INTENT_SUFFIX, parseIntent, serializeIntent, type StoredIntent } from '../uploads/intent';
import { OWNER_HEARTBEAT_MS, SCRATCH_ROOT, isAbandoned, ownerDirName, type Owner } from '../uploads/owners';

const FILE_UID = 'plugin::upload.file';

/** Seconds a client is asked to wait when the uploads in flight are at their bound. */
export const UPLOADS_RETRY_AFTER_SECONDS = 5;

/** Instances running in this process, across module copies (tests load the application more than once). */
const LIVE_HERE: Set<string> = ((globalThis as Record<symbol, unknown>)[Symbol.for('public-api.upload-owners')] ??=
  new Set<string>()) as Set<string>;

export type Workspace = {
  /** The request's private directory. */
  directory: string;
  /** Notes that `intent`'s bytes are about to be written through the upload provider. Durable before it resolves. */
  recordIntent: (intent: StoredIntent) => Promise<void>;
  /** Work the workspace waits for before it goes (the deletion of bytes after a rollback). */
  track: <T>(work: Promise<T>) => Promise<T>;
};

/** A request's uploads: its room under the bound and its workspace, both given back by `close`. */
export type UploadSession = {
  /** Takes room for a body of at most `bytes` (503 when there is none) and opens the workspace. */
  open: (bytes: number) => Promise<Workspace>;
  close: () => Promise<void>;
};

const processExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

type UploadProvider = { delete: (file: Record<string, unknown>) => Promise<unknown> };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const self: Owner = { host: os.hostname(), pid: process.pid, instance: randomBytes(8).toString('hex') };
  let gate: UploadGate | null = null;
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<number> | null = null;

  const root = () => path.resolve(strapi.dirs.app.root, SCRATCH_ROOT);
  const ownDirectory = () => path.join(root(), ownerDirName(self));

  const limits = () => {
    gate ??= createUploadGate({ maxUploads: pluginConfig(strapi).uploadsInFlight, maxBytes: pluginConfig(strapi).uploadBytesInFlight });
    return gate;
  };

  const provider = () => (strapi.plugin('upload') as unknown as { provider: UploadProvider }).provider;

  /** Deletes the bytes a note names unless their row committed. False when that could not be decided or done. */
  const undoIntent = async (file: string): Promise<boolean> => {
    const intent = parseIntent(await fs.readFile(file, 'utf8').catch(() => ''));
    // A note cut short by the crash was written before any byte of its file: nothing to undo.
    if (!intent) return true;
    try {
      const row = await strapi.db.query(FILE_UID).findOne({ where: { hash: intent.hash }, select: ['id'] });
      if (!row) await provider().delete({ ...intent, url: `/uploads/${intent.hash}${intent.ext}` });
      return true;
    } catch (error) {
      strapi.log.warn(
        `[public-api] could not clean up an interrupted upload (${intent.hash}${intent.ext}); retrying later: ${(error as Error).message}`,
      );
      return false;
    }
  };

  /** Undoes every note under `directory` and removes it, unless some note could not be undone (kept for the next sweep). */
  const sweepDirectory = async (directory: string): Promise<boolean> => {
    let clean = true;
    const workspaces = await fs.readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const workspace of workspaces) {
      if (!workspace.isDirectory()) continue;
      const inside = path.join(directory, workspace.name);
      for (const name of await fs.readdir(inside).catch(() => [] as string[])) {
        if (name.endsWith(INTENT_SUFFIX) && !(await undoIntent(path.join(inside, name)))) clean = false;
      }
    }
    if (clean) await fs.rm(directory, { recursive: true, force: true });
    return clean;
  };

  const sweepOnce = async (): Promise<number> => {
    let swept = 0;
    const entries = await fs.readdir(root(), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const directory = path.join(root(), entry.name);
      const stat = await fs.stat(directory).catch(() => null);
      if (!stat) continue;
      const around = { self, liveHere: LIVE_HERE, processExists, now: Date.now() };
      if (isAbandoned(entry.name, stat.mtimeMs, around) && (await sweepDirectory(directory))) swept += 1;
    }
    return swept;
  };

  return {
    /**
     * Sweeps what gone owners left, then opens this instance's directory and keeps it touched (bootstrap).
     * Returns how many directories were swept.
     */
    async start(): Promise<number> {
      await fs.mkdir(root(), { recursive: true });
      const swept = await this.sweep();
      await fs.mkdir(ownDirectory(), { recursive: true });
      LIVE_HERE.add(self.instance);
      if (!timer) {
        timer = setInterval(() => {
          const now = new Date();
          fs.utimes(ownDirectory(), now, now)
            .then(() => this.sweep())
            .catch((error: unknown) => strapi.log.warn(`[public-api] upload scratch upkeep failed: ${(error as Error).message}`));
        }, OWNER_HEARTBEAT_MS);
        timer.unref();
      }
      return swept;
    },

    /** Stops the upkeep; the directory goes now when it is empty, else with the next start's sweep. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      LIVE_HERE.delete(self.instance);
      await fs.rmdir(ownDirectory()).catch(() => undefined);
    },

    /** Sweeps the directories of owners that are gone (one sweep at a time). Returns how many. */
    async sweep(): Promise<number> {
      if (sweeping) return sweeping;
      sweeping = sweepOnce();
      try {
        return await sweeping;
      } finally {
        sweeping = null;
      }
    },

    /** This instance's own directory (for tests and operators: it names host, pid and instance). */
    directory: ownDirectory,

    session(): UploadSession {
      let release: (() => void) | null = null;
      let directory: string | null = null;
      const pending = new Set<Promise<unknown>>();
      return {
        async open(bytes) {
          if (!release) {
            release = limits().enter(bytes);
            if (!release) {
              throw apiError(503, `Too many uploads are being received right now; retry in ${UPLOADS_RETRY_AFTER_SECONDS} seconds.`, {
                reason: 'uploads_busy',
                // The body is not read; the connection is not reused.
                headers: { 'Retry-After': String(UPLOADS_RETRY_AFTER_SECONDS), Connection: 'close' },
              });
            }
          }
          if (!directory) {
            directory = path.join(ownDirectory(), randomUUID());
            await fs.mkdir(directory, { recursive: true });
          }
          const workspace = directory;
          return {
            directory: workspace,
            async recordIntent(intent) {
              const file = path.join(workspace, `${randomUUID()}${INTENT_SUFFIX}`);
              const partial = `${file}.partial`;
              const handle = await fs.open(partial, 'w');
              try {
                await handle.writeFile(serializeIntent(intent));
                await handle.sync();
              } finally {
                await handle.close();
              }
              // Whole or absent: a crash mid-write leaves no note that could be misread.
              await fs.rename(partial, file);
            },
            track(work) {
              pending.add(work);
              const forget = () => void pending.delete(work);
              work.then(forget, forget);
              return work;
            },
          };
        },
        async close() {
          // A rollback's deletion of bytes finishes before the note that stands for them goes; when it
          // failed, the note stays for the sweep after this instance stops.
          let undone = true;
          while (pending.size) {
            for (const result of await Promise.allSettled([...pending])) if (result.status === 'rejected') undone = false;
          }
          if (directory && undone) await fs.rm(directory, { recursive: true, force: true }).catch(() => undefined);
          directory = null;
          release?.();
          release = null;
        },
      };
    },

    /** What is in flight now. */
    inFlight: () => limits().inFlight(),
  };
};
