/**
 * Local copies of originals kept on a provider's origin, for the transforms that need them (sharp reads a
 * file): downloaded into a directory of this process, shared by the transforms that want the same content
 * at the same time (a page's `srcset` asks for several variants of one image at once), and deleted as
 * soon as the last of them is done. Nothing is kept: the variants are cached (assets/variant-cache.ts),
 * the originals are not.
 *
 * A copy is written to a temporary name and renamed when whole, so a transform never reads half a file;
 * a failed download leaves nothing. The directory is this process's own (made at first use, removed at
 * shutdown), so instances never see each other's copies.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fetchOrigin, type OriginLimits } from './origin';

/** A downloaded copy; `release` when done with it (the last release deletes it). */
export type SourceCopy = { path: string; release: () => void };

/**
 * What a copy is made from: the content's identity (what is shared), where its bytes are, and the turn a
 * download takes (given back when it ends; throws when none is free). Joining a download takes none.
 */
export type SourceRequest = { identity: string; url: () => Promise<string>; limits: OriginLimits; turn: () => () => void };

type Entry = { ready: Promise<string>; users: number };

export const createOriginSources = ({ warn = () => undefined }: { warn?: (message: string) => void } = {}) => {
  const entries = new Map<string, Entry>();
  let directory: Promise<string> | null = null;

  const dir = () => (directory ??= fs.mkdtemp(path.join(os.tmpdir(), 'public-api-sources-')));

  const remove = (file: string) => fs.rm(file, { force: true }).catch((error: Error) => warn(`could not delete ${file}: ${error.message}`));

  /** Downloads the whole object to a file; null when the origin has no such object. */
  const download = async ({ url, limits, turn }: SourceRequest): Promise<string | null> => {
    const release = turn();
    try {
      const answer = await fetchOrigin(await url(), null, limits);
      if (answer.kind !== 'body') return null;
      const file = path.join(await dir(), randomBytes(12).toString('hex'));
      const temporary = `${file}.part`;
      try {
        await pipeline(answer.body, createWriteStream(temporary));
        await fs.rename(temporary, file);
      } catch (error) {
        await remove(temporary);
        throw error;
      }
      return file;
    } finally {
      release();
    }
  };

  return {
    /**
     * A copy of the content, downloaded unless another transform is already holding or fetching one;
     * null when the origin has no such object. Throws OriginProblem (assets/origin.ts).
     */
    async acquire(request: SourceRequest): Promise<SourceCopy | null> {
      let entry = entries.get(request.identity);
      if (!entry) {
        const created: Entry = { ready: Promise.resolve(''), users: 0 };
        created.ready = download(request).then(
          (file) => {
            if (file === null) {
              if (entries.get(request.identity) === created) entries.delete(request.identity);
              return '';
            }
            return file;
          },
          (error: unknown) => {
            // Not remembered: the next request tries again.
            if (entries.get(request.identity) === created) entries.delete(request.identity);
            throw error;
          },
        );
        entries.set(request.identity, created);
        entry = created;
      }
      const held = entry;
      held.users += 1;
      let file: string;
      try {
        file = await held.ready;
      } catch (error) {
        held.users -= 1;
        throw error;
      }
      const done = () => {
        held.users -= 1;
        if (held.users > 0) return;
        if (entries.get(request.identity) === held) entries.delete(request.identity);
        if (file) void remove(file);
      };
      if (!file) {
        done();
        return null;
      }
      let released = false;
      return {
        path: file,
        release: () => {
          if (released) return;
          released = true;
          done();
        },
      };
    },

    /** Copies held or being fetched now. */
    held(): number {
      return entries.size;
    },

    /** Deletes the directory and whatever is in it (shutdown). */
    async close(): Promise<void> {
      if (!directory) return;
      const made = await directory.catch(() => null);
      directory = null;
      entries.clear();
      if (made)
        await fs.rm(made, { recursive: true, force: true }).catch((error: Error) => warn(`could not delete ${made}: ${error.message}`));
    },
  };
};

export type OriginSources = ReturnType<typeof createOriginSources>;
