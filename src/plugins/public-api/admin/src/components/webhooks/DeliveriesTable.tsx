/**
 * An endpoint's recent deliveries, newest first: event, record, status, response code, duration,
 * attempts, when; Redeliver sends one again (same webhook-id), and older pages load on demand.
 */
import { useState } from 'react';
import { Button, Flex, IconButton, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import { ArrowClockwise } from '@strapi/icons';
import { useNotification } from '@strapi/strapi/admin';
import type { AdminWebhookDelivery } from '../../../../shared/contracts/webhooks';
import { useAdminApi } from '../../api/client';
import { useAdminQuery } from '../../api/useAdminQuery';
import { DateText } from '../DateText';
import { Mono } from '../Mono';
import { StatusBadge } from '../StatusBadge';
import { useT } from '../../hooks/useT';
import { useRefusal } from '../../hooks/useRefusal';

/** Tones that meet 4.5:1 (StatusBadge): the design system's danger badge does not. */
const STATUS_TONE = { delivered: 'success', pending: 'warning', failed: 'danger' } as const;

export const DeliveriesTable = ({ endpointId, canRedeliver }: { endpointId: number; canRedeliver: boolean }) => {
  const t = useT();
  const { toggleNotification } = useNotification();
  const refuse = useRefusal();
  const api = useAdminApi();
  const first = useAdminQuery('listWebhookDeliveries', { params: { id: endpointId }, query: {} });
  const [older, setOlder] = useState<AdminWebhookDelivery[]>([]);
  const [next, setNext] = useState<number | null | undefined>(undefined);
  const rows = [...(first.data?.data ?? []), ...older];
  const cursor = next === undefined ? (first.data?.meta.next ?? null) : next;

  const loadOlder = async () => {
    if (cursor === null) return;
    const page = await api.listWebhookDeliveries({ params: { id: endpointId }, query: { before: cursor } });
    setOlder([...older, ...page.data]);
    setNext(page.meta.next);
  };

  const redeliver = async (delivery: AdminWebhookDelivery) => {
    try {
      await api.redeliverWebhook({ params: { id: endpointId, delivery: delivery.id } });
      toggleNotification({ type: 'success', message: t('webhooks.redelivered', 'The event is queued to be sent again.') });
      setOlder([]);
      setNext(undefined);
      await first.reload();
    } catch (error) {
      refuse(error);
    }
  };

  const statusLabel = (status: AdminWebhookDelivery['status']) =>
    status === 'delivered'
      ? t('webhooks.status.delivered', 'Delivered')
      : status === 'pending'
        ? t('webhooks.status.pending', 'Pending')
        : t('webhooks.status.failed', 'Failed');

  const heading = (
    <Flex justifyContent="space-between">
      <Typography variant="sigma" tag="h4">
        {t('webhooks.deliveries', 'Recent deliveries')}
      </Typography>
      <Button variant="tertiary" size="S" startIcon={<ArrowClockwise />} onClick={() => void first.reload()}>
        {t('webhooks.deliveries.refresh', 'Refresh')}
      </Button>
    </Flex>
  );

  if (first.isLoading && !first.data)
    return <Typography textColor="neutral600">{t('webhooks.deliveries.loading', 'Loading deliveries…')}</Typography>;
  // Refresh is offered before the first delivery too: a change made elsewhere shows here without reloading the page.
  if (rows.length === 0)
    return (
      <Flex direction="column" alignItems="stretch" gap={3}>
        {heading}
        <Typography textColor="neutral600">
          {t('webhooks.deliveries.none', 'No deliveries yet: events appear here when content changes.')}
        </Typography>
      </Flex>
    );

  return (
    <Flex direction="column" alignItems="stretch" gap={3}>
      {heading}
      <Table colCount={8} rowCount={rows.length + 1} data-testid="webhook-deliveries">
        <Thead>
          <Tr>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.event', 'Event')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.record', 'Record')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.status', 'Status')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.code', 'Response')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.duration', 'Duration')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.attempts', 'Attempts')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.when', 'Changed')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{t('webhooks.col.actions', 'Actions')}</Typography>
            </Th>
          </Tr>
        </Thead>
        <Tbody>
          {rows.map((delivery) => (
            <Tr key={delivery.id}>
              <Td>
                <Typography>{delivery.event}</Typography>
              </Td>
              <Td>
                {/* Resource above id: on one line the row outgrew the card and hid Redeliver behind a scroll. */}
                {delivery.recordId ? (
                  <Flex direction="column" alignItems="flex-start">
                    <Typography variant="pi" textColor="neutral600">
                      {delivery.resource ?? ''}
                    </Typography>
                    <Mono variant="pi">{delivery.recordId}</Mono>
                  </Flex>
                ) : (
                  <Typography>—</Typography>
                )}
              </Td>
              <Td>
                <Flex direction="column" alignItems="flex-start" gap={1}>
                  <StatusBadge tone={STATUS_TONE[delivery.status]}>{statusLabel(delivery.status)}</StatusBadge>
                  {delivery.lastError && (
                    <Typography variant="pi" textColor="danger600">
                      {delivery.lastError}
                    </Typography>
                  )}
                  {delivery.status === 'pending' && delivery.nextAttemptAt !== null && delivery.attempts > 0 && (
                    <Typography variant="pi" textColor="neutral600">
                      {t('webhooks.nextAttempt', 'Next attempt')} <DateText value={new Date(delivery.nextAttemptAt).toISOString()} />
                    </Typography>
                  )}
                </Flex>
              </Td>
              <Td>
                <Typography>{delivery.responseStatus ?? '—'}</Typography>
              </Td>
              <Td>
                <Typography>{delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`}</Typography>
              </Td>
              <Td>
                <Typography>{delivery.attempts}</Typography>
              </Td>
              <Td>
                <DateText value={new Date(delivery.occurredAt).toISOString()} relative />
              </Td>
              <Td>
                {canRedeliver && (
                  <IconButton label={t('webhooks.redeliver', 'Redeliver')} variant="ghost" onClick={() => void redeliver(delivery)}>
                    <ArrowClockwise />
                  </IconButton>
                )}
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
      {cursor !== null && (
        <Flex>
          <Button variant="tertiary" size="S" onClick={() => void loadOlder()}>
            {t('webhooks.deliveries.older', 'Older deliveries')}
          </Button>
        </Flex>
      )}
    </Flex>
  );
};
