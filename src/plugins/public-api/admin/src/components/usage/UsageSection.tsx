/**
 * The key page's usage: a window selector (24 hours, 7 days, 30 days), the window's totals (requests,
 * error rate, p50/p95 latency, rate-limit refusals) and the charts; an empty state for a key without
 * requests in the window and an error state with a retry.
 */
import { useState } from 'react';
import { Alert, Box, Button, Flex, Loader, Typography } from '@strapi/design-system';
import { USAGE_WINDOWS, type KeyUsage, type UsageWindow } from '../../../../shared/contracts/usage';
import { useAdminQuery } from '../../api/useAdminQuery';
import { useT } from '../../hooks/useT';
import { messageOf } from '../../utils/errors';
import { milliseconds, percent } from './format';
import { UsageCharts } from './UsageCharts';

const Figure = ({ label, value, testId }: { label: string; value: string; testId: string }) => (
  <Box background="neutral100" hasRadius padding={3} style={{ minWidth: 140 }}>
    <Typography variant="pi" textColor="neutral700" tag="p">
      {label}
    </Typography>
    <Typography variant="delta" tag="p" data-testid={testId}>
      {value}
    </Typography>
  </Box>
);

const Totals = ({ usage }: { usage: KeyUsage }) => {
  const t = useT();
  const { totals } = usage;
  return (
    <Flex gap={3} wrap="wrap" data-testid="usage-totals">
      <Figure label={t('usage.total.requests', 'Requests')} value={String(totals.requests)} testId="usage-requests" />
      <Figure label={t('usage.total.errorRate', 'Error rate (4xx and 5xx)')} value={percent(totals.errorRate)} testId="usage-error-rate" />
      <Figure label={t('usage.total.p50', 'Latency p50')} value={milliseconds(totals.p50Ms)} testId="usage-p50" />
      <Figure label={t('usage.total.p95', 'Latency p95')} value={milliseconds(totals.p95Ms)} testId="usage-p95" />
      <Figure label={t('usage.total.rateLimited', 'Rate-limit refusals')} value={String(totals.rateLimited)} testId="usage-rate-limited" />
    </Flex>
  );
};

export const UsageSection = ({ keyId }: { keyId: number }) => {
  const t = useT();
  const [window, setWindow] = useState<UsageWindow>('24h');
  const usage = useAdminQuery('getKeyUsage', { params: { id: keyId }, query: { window } }, { select: (res) => res.data });
  const windowLabels: Record<UsageWindow, string> = {
    '24h': t('usage.window.24h', 'Last 24 hours'),
    '7d': t('usage.window.7d', 'Last 7 days'),
    '30d': t('usage.window.30d', 'Last 30 days'),
  };
  return (
    <Flex direction="column" alignItems="stretch" gap={4}>
      <Flex gap={2} role="group" aria-label={t('usage.window', 'Window')}>
        {USAGE_WINDOWS.map((option) => (
          <Button
            type="button"
            key={option}
            size="S"
            variant={option === window ? 'default' : 'tertiary'}
            aria-pressed={option === window}
            onClick={() => setWindow(option)}
            data-testid={`usage-window-${option}`}
          >
            {windowLabels[option]}
          </Button>
        ))}
      </Flex>
      {usage.error ? (
        <Alert
          variant="danger"
          closeLabel={t('common.close', 'Close')}
          title={t('usage.error.title', 'Usage unavailable')}
          action={
            <Button type="button" variant="tertiary" onClick={() => void usage.reload()}>
              {t('common.retry', 'Try again')}
            </Button>
          }
        >
          {messageOf(usage.error, t('usage.error', 'The usage of this key could not be loaded.'))}
        </Alert>
      ) : !usage.data ? (
        <Loader small>{t('usage.loading', 'Loading the usage…')}</Loader>
      ) : usage.data.totals.requests === 0 ? (
        <Typography textColor="neutral700" data-testid="usage-empty">
          {t('usage.empty', 'No requests with this key in this window. Requests appear here within {seconds} seconds.', {
            seconds: usage.data.flushIntervalSeconds,
          })}
        </Typography>
      ) : (
        <>
          <Totals usage={usage.data} />
          <UsageCharts usage={usage.data} />
          <Typography variant="pi" textColor="neutral700">
            {t(
              'usage.note',
              'Counted per minute on every instance and written every {seconds} seconds. Latency is from the key being recognized to the response being sent; a quantile is the upper bound of its histogram bucket (at most 1.7 times the true value).',
              { seconds: usage.data.flushIntervalSeconds },
            )}
          </Typography>
        </>
      )}
    </Flex>
  );
};
