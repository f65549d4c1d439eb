/**
 * The read-backs of plain adds in an operation list, done together: one row query and one set of read
 * queries per resource and locale instead of per operation (atomic operations, issue 17). The processor
 * reads them before the next operation that may change what they show (anything but another plain add:
 * an update or removal, or an add that sets links), and at the end, so each result still shows its
 * record as it was right after its operation.
 */
import type { AttributePlan } from '../write/attributes';
import type { LoadOrigin } from '../read/load-context';
import type { RecordObject } from '../serialize/record';
import type { ResourceAccess } from '../services/access';
import type { WriteTarget } from '../services/writes/target';
import { loadWrittenMany, notReadBack } from './read-back';

/** Fields whose values link the record to others: writing them can change how other records read. */
const LINKING_KINDS: ReadonlySet<string> = new Set(['relation', 'relationChanges', 'components']);

/** An add that sets no link: it changes no record but its own, so its read-back may wait. */
export const isPlainAdd = (plan: AttributePlan): boolean => plan.fields.every((entry) => !LINKING_KINDS.has(entry.planned.kind));

type Group = { access: ResourceAccess; target: WriteTarget; entries: { index: number; documentId: string }[] };

/** Read-backs waiting, and `flush` to read them into `results` at their operations' positions. */
export const createReadBacks = (origin: LoadOrigin, results: { data: RecordObject | null }[]) => {
  const pending = new Map<string, Group>();
  return {
    defer(access: ResourceAccess, target: WriteTarget, index: number, documentId: string): void {
      const key = `${access.resource.id}\u0000${target.locale ?? ''}\u0000${target.language}`;
      const group = pending.get(key) ?? { access, target, entries: [] };
      group.entries.push({ index, documentId });
      pending.set(key, group);
    },
    async flush(): Promise<void> {
      for (const { access, target, entries } of pending.values()) {
        const records = await loadWrittenMany(
          origin,
          access,
          target,
          entries.map((entry) => entry.documentId),
        );
        for (const { index, documentId } of entries) {
          const data = records.get(documentId);
          if (!data) throw notReadBack(access.resource.id, documentId);
          results[index] = { data };
        }
      }
      pending.clear();
    },
  };
};

export type ReadBacks = ReturnType<typeof createReadBacks>;
