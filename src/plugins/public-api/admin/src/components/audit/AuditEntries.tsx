/**
 * Audit entries as a list: when, who, what happened to which key or website, and the readable diff.
 * Loads a page at a time (keyset: "Show older entries" asks for entries before the last one shown).
 */
import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Box, Button, Flex, Link, Typography } from '@strapi/design-system';
import { NavLink } from 'react-router-dom';
import type { AuditAction, AuditChange, AuditEntry, ListAuditLog } from '../../../../shared/contracts/audit';
import { useAdminApi } from '../../api/client';
import { PLUGIN_ID } from '../../pluginId';
import { useT, type Translate } from '../../hooks/useT';
import { messageOf } from '../../utils/errors';
import { DateText } from '../DateText';
import { describeChange, isDateChange, label } from './describe';

const actionText = (t: Translate, action: AuditAction) =>
  ({
    created: t('audit.action.created', 'created'),
    changed: t('audit.action.changed', 'changed'),
    regenerated: t('audit.action.regenerated', 'regenerated'),
    revoked: t('audit.action.revoked', 'revoked'),
    deleted: t('audit.action.deleted', 'deleted'),
  })[action];

/** A change as a sentence; a date's change (an expiry) with its dates as the rest of the admin shows them. */
const ChangeText = ({ change }: { change: AuditChange }) => {
  const t = useT();
  if (isDateChange(change)) {
    const date = (value: unknown) => <DateText value={typeof value === 'string' ? value : null} variant="pi" withTime />;
    return (
      <Flex gap={1} wrap="wrap">
        <Typography variant="pi" textColor="neutral800">
          {t('audit.value.dateField', '{field}:', { field: label(t, change.field) })}
        </Typography>
        {date(change.from)}
        <Typography variant="pi" textColor="neutral800">
          →
        </Typography>
        {date(change.to)}
      </Flex>
    );
  }
  return (
    <Typography variant="pi" textColor="neutral800">
      {describeChange(t, change)}
    </Typography>
  );
};

const Entry = ({ entry, showSubject }: { entry: AuditEntry; showSubject: boolean }) => {
  const t = useT();
  const subjectType = entry.subject.type === 'key' ? t('audit.subject.key', 'Key') : t('audit.subject.website', 'Website');
  const subject =
    entry.subject.type === 'key' && entry.action !== 'deleted' ? (
      <Link tag={NavLink} to={`/settings/${PLUGIN_ID}/keys/${entry.subject.id}`}>
        {entry.subject.name}
      </Link>
    ) : (
      entry.subject.name
    );
  return (
    <Box
      tag="li"
      paddingTop={3}
      paddingBottom={3}
      borderColor="neutral150"
      style={{ borderBottomWidth: 1, borderBottomStyle: 'solid' }}
      data-testid="audit-entry"
    >
      <Flex direction="column" alignItems="start" gap={1}>
        <Flex gap={2} wrap="wrap">
          <Badge>{actionText(t, entry.action)}</Badge>
          {showSubject && (
            <Typography fontWeight="semiBold">
              {subjectType} {subject}
            </Typography>
          )}
          <Typography textColor="neutral700">
            {t('audit.by', 'by {name}', { name: entry.actor.email ? `${entry.actor.name} (${entry.actor.email})` : entry.actor.name })}
          </Typography>
          <DateText value={entry.at} relative />
        </Flex>
        {entry.cause && (
          <Typography variant="pi" textColor="neutral700">
            {entry.cause}
          </Typography>
        )}
        {entry.changes.length > 0 && (
          <Box tag="ul" paddingLeft={4} style={{ listStyle: 'disc' }}>
            {entry.changes.map((change, index) => (
              <li key={index}>
                <ChangeText change={change} />
              </li>
            ))}
          </Box>
        )}
      </Flex>
    </Box>
  );
};

type Props = { query: Omit<ListAuditLog.Query, 'before'>; showSubject?: boolean; emptyText: string };

export const AuditEntries = ({ query, showSubject = true, emptyText }: Props) => {
  const t = useT();
  const api = useAdminApi();
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const { subjectType, subjectId, limit } = query;

  const load = useCallback(
    async (before?: number) => {
      setLoading(true);
      try {
        const page = await api.listAuditLog({ query: { subjectType, subjectId, limit, before } });
        setEntries((shown) => (before === undefined ? page.data : [...shown, ...page.data]));
        setNext(page.meta.next);
        setError(null);
      } catch (caught) {
        setError(messageOf(caught, t('audit.error', 'The audit log could not be loaded.')));
      } finally {
        setLoading(false);
      }
    },
    [api, subjectType, subjectId, limit, t],
  );

  useEffect(() => {
    void load();
  }, [load]);

  if (error) {
    return (
      <Alert
        variant="danger"
        closeLabel={t('common.close', 'Close')}
        title={t('audit.error.title', 'Audit log unavailable')}
        action={
          <Button type="button" variant="tertiary" onClick={() => void load()}>
            {t('common.retry', 'Try again')}
          </Button>
        }
      >
        {error}
      </Alert>
    );
  }
  if (!loading && entries.length === 0) return <Typography textColor="neutral700">{emptyText}</Typography>;
  return (
    <Flex direction="column" alignItems="stretch" gap={3}>
      <Box tag="ul" aria-label={t('audit.list.label', 'Audit log entries')} data-testid="audit-entries">
        {entries.map((entry) => (
          <Entry key={entry.id} entry={entry} showSubject={showSubject} />
        ))}
      </Box>
      {next !== null && (
        <Box>
          <Button type="button" variant="secondary" loading={loading} onClick={() => void load(next)}>
            {t('audit.older', 'Show older entries')}
          </Button>
        </Box>
      )}
    </Flex>
  );
};
