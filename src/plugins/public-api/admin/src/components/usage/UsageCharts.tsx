/**
 * A key's usage drawn with recharts: requests per step by status class (stacked), latency p50/p95,
 * rate-limit refusals, and the resources it used most. Each chart is a figure with a heading; the colours
 * of the status classes keep 3:1 against white, and axis text 4.5:1.
 */
import type { ReactNode } from 'react';
import { Box, Flex, Typography } from '@strapi/design-system';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { KeyUsage } from '../../../../shared/contracts/usage';
import { useT } from '../../hooks/useT';
import { stepLabel } from './format';

const CLASS_COLOURS = { '2xx': '#328048', '3xx': '#0c75af', '4xx': '#b35c00', '5xx': '#d02b20' } as const;
const AXIS = { fontSize: 12, fill: '#4a4a6a' };
const HEIGHT = 220;

const Figure = ({ id, title, children, testId }: { id: string; title: string; children: ReactNode; testId: string }) => (
  <Box tag="figure" aria-labelledby={id} margin={0} data-testid={testId} style={{ flex: '1 1 420px', minWidth: 0 }}>
    <Typography id={id} variant="sigma" tag="h3" textColor="neutral700">
      {title}
    </Typography>
    <Box paddingTop={2} style={{ height: HEIGHT }}>
      {children}
    </Box>
  </Box>
);

export const UsageCharts = ({ usage }: { usage: KeyUsage }) => {
  const t = useT();
  const points = usage.points.map((point) => ({
    label: stepLabel(point.start, usage.window),
    ...point.byClass,
    p50: point.p50Ms,
    p95: point.p95Ms,
    rateLimited: point.rateLimited,
  }));
  const resources = usage.topResources.map((resource) => ({ ...resource, ok: resource.requests - resource.errors }));
  return (
    <Flex direction="column" alignItems="stretch" gap={6}>
      <Flex gap={6} wrap="wrap" alignItems="start">
        <Figure id="usage-requests-title" title={t('usage.chart.requests', 'Requests by status class')} testId="usage-chart-requests">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={points} margin={{ top: 4, right: 8, bottom: 4, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tick={AXIS} minTickGap={16} />
              <YAxis allowDecimals={false} tick={AXIS} width={40} />
              <Tooltip />
              <Legend />
              {(Object.keys(CLASS_COLOURS) as (keyof typeof CLASS_COLOURS)[]).map((statusClass) => (
                <Bar key={statusClass} dataKey={statusClass} stackId="status" fill={CLASS_COLOURS[statusClass]} isAnimationActive={false} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </Figure>
        <Figure id="usage-latency-title" title={t('usage.chart.latency', 'Latency p50 and p95 (ms)')} testId="usage-chart-latency">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={points} margin={{ top: 4, right: 8, bottom: 4, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tick={AXIS} minTickGap={16} />
              <YAxis tick={AXIS} width={48} />
              <Tooltip />
              <Legend />
              <Line type="monotone" dataKey="p50" name="p50" stroke="#4945ff" dot={{ r: 3 }} connectNulls isAnimationActive={false} />
              <Line type="monotone" dataKey="p95" name="p95" stroke="#b35c00" dot={{ r: 3 }} connectNulls isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </Figure>
      </Flex>
      <Flex gap={6} wrap="wrap" alignItems="start">
        <Figure id="usage-resources-title" title={t('usage.chart.resources', 'Top resources')} testId="usage-chart-resources">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={resources} layout="vertical" margin={{ top: 4, right: 8, bottom: 4, left: 8 }}>
              <CartesianGrid strokeDasharray="3 3" horizontal={false} />
              <XAxis type="number" allowDecimals={false} tick={AXIS} />
              <YAxis type="category" dataKey="resource" tick={AXIS} width={150} />
              <Tooltip />
              <Legend />
              <Bar
                dataKey="ok"
                name={t('usage.chart.resources.ok', 'Succeeded')}
                stackId="r"
                fill={CLASS_COLOURS['2xx']}
                isAnimationActive={false}
              />
              <Bar
                dataKey="errors"
                name={t('usage.chart.resources.errors', 'Errors (4xx, 5xx)')}
                stackId="r"
                fill={CLASS_COLOURS['5xx']}
                isAnimationActive={false}
              />
            </BarChart>
          </ResponsiveContainer>
        </Figure>
        <Figure
          id="usage-ratelimited-title"
          title={t('usage.chart.rateLimited', 'Rate-limit refusals (429)')}
          testId="usage-chart-rate-limited"
        >
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={points} margin={{ top: 4, right: 8, bottom: 4, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tick={AXIS} minTickGap={16} />
              <YAxis allowDecimals={false} tick={AXIS} width={40} />
              <Tooltip />
              <Bar
                dataKey="rateLimited"
                name={t('usage.chart.rateLimited.series', 'Refused by the rate limit')}
                fill={CLASS_COLOURS['4xx']}
                isAnimationActive={false}
              />
            </BarChart>
          </ResponsiveContainer>
        </Figure>
      </Flex>
    </Flex>
  );
};
