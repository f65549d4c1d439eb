/**
 * The keys list: filter by name, sort by name, creation or last use (never-used keys last). Pure.
 */
import type { AdminKey } from '../../../../shared/contracts/keys';

export type KeySort = { column: 'name' | 'createdAt' | 'lastUsedAt'; direction: 'asc' | 'desc' };

const time = (value: string | null): number | null => (value === null ? null : Date.parse(value));

export const sortKeys = (keys: AdminKey[], query: string, sort: KeySort): AdminKey[] => {
  const needle = query.trim().toLocaleLowerCase();
  const filtered = needle ? keys.filter((key) => key.name.toLocaleLowerCase().includes(needle)) : keys;
  const sign = sort.direction === 'asc' ? 1 : -1;
  return [...filtered].sort((a, b) => {
    if (sort.column === 'name') return sign * a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id - b.id;
    const left = time(a[sort.column]);
    const right = time(b[sort.column]);
    if (left === right) return a.id - b.id;
    if (left === null) return 1;
    if (right === null) return -1;
    return sign * (left - right);
  });
};
