/**
 * An audit entry's changes as sentences an admin reads ("Readable fields of native:events: added title;
 * removed summary"). Pure: the words come from the caller's translate function.
 */
import type { AuditChange, ListChange } from '../../../../shared/contracts/audit';
import type { Translate } from '../../hooks/useT';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const shown = (t: Translate, field: string, value: unknown): string => {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'limits' && isRecord(value))
    return t('audit.value.limits', '{requests} cost units per {window} s', {
      requests: String(value.requests),
      window: String(value.window),
    });
  if (field === 'cache' && isRecord(value) && typeof value.sharedMaxAge === 'number')
    return t('audit.value.cache', 'shared caches keep it {seconds} s', { seconds: value.sharedMaxAge });
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
};

const listText = (t: Translate, list: ListChange): string =>
  [
    list.added.length ? t('audit.added', 'added {names}', { names: list.added.join(', ') }) : '',
    list.removed.length ? t('audit.removed', 'removed {names}', { names: list.removed.join(', ') }) : '',
  ]
    .filter(Boolean)
    .join('; ');

const FIELD_LABELS: Record<string, [string, string]> = {
  name: ['audit.field.name', 'Name'],
  description: ['audit.field.description', 'Description'],
  expiresAt: ['audit.field.expiresAt', 'Expiry'],
  limits: ['audit.field.limits', 'Rate limit'],
  cache: ['audit.field.cache', 'Cache policy'],
  preview: ['audit.field.preview', 'Preview drafts'],
  revoked: ['audit.field.revoked', 'Revoked'],
  slug: ['audit.field.slug', 'Slug'],
  commands: ['audit.field.commands', 'Commands'],
  origins: ['audit.field.origins', 'Origins'],
};

/** Fields whose values are instants: shown as dates (DateText), not as the ISO text they are stored as. */
const DATE_FIELDS = new Set(['expiresAt']);

export const isDateChange = (change: AuditChange): change is Extract<AuditChange, { kind: 'value' }> =>
  change.kind === 'value' && DATE_FIELDS.has(change.field);

export const label = (t: Translate, field: string) => {
  const known = FIELD_LABELS[field];
  return known ? t(known[0], known[1]) : field;
};

export const describeChange = (t: Translate, change: AuditChange): string => {
  switch (change.kind) {
    case 'value':
      return t('audit.value', '{field}: {from} → {to}', {
        field: label(t, change.field),
        from: shown(t, change.field, change.from),
        to: shown(t, change.field, change.to),
      });
    case 'list':
      return t('audit.list', '{field}: {changes}', { field: label(t, change.field), changes: listText(t, change) });
    case 'resource': {
      const parts = [
        change.actions.added.length || change.actions.removed.length
          ? t('audit.resource.actions', 'actions {changes}', { changes: listText(t, change.actions) })
          : '',
        change.read.added.length || change.read.removed.length
          ? t('audit.resource.read', 'readable fields {changes}', { changes: listText(t, change.read) })
          : '',
        change.write.added.length || change.write.removed.length
          ? t('audit.resource.write', 'writable fields {changes}', { changes: listText(t, change.write) })
          : '',
      ].filter(Boolean);
      const status =
        change.status === 'added'
          ? t('audit.resource.granted', 'granted')
          : change.status === 'removed'
            ? t('audit.resource.withdrawn', 'withdrawn')
            : t('audit.resource.changed', 'changed');
      return t('audit.resource', '{resource} {status}: {changes}', { resource: change.resource, status, changes: parts.join('; ') || '—' });
    }
    case 'publication': {
      const to = change.to ? `${change.to.contentType} (${change.to.mode})` : '—';
      const from = change.from ? `${change.from.contentType} (${change.from.mode})` : '—';
      return t('audit.publication', 'Publication {collection}: {from} → {to}', { collection: change.collection, from, to });
    }
    default:
      return '';
  }
};
