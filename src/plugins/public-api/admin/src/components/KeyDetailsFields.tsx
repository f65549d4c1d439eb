/**
 * Name, description, expiry, rate limit, shared-cache policy and preview flag of a key. Expiry: never, 7/30/90 days from now, or
 * a custom date.
 */
import {
  Box,
  Checkbox,
  DatePicker,
  Field,
  Flex,
  Grid,
  SingleSelect,
  SingleSelectOption,
  TextInput,
  Textarea,
  Typography,
} from '@strapi/design-system';
import { useIntl } from 'react-intl';
import { useT } from '../hooks/useT';
import type { FieldErrors } from '../utils/errors';
import type { ExpiryChoice } from '../utils/expiry';
import { StatusBadge } from './StatusBadge';

export type KeyDetails = {
  name: string;
  description: string;
  expiry: ExpiryChoice;
  customDate: Date | undefined;
  /** The key's rate limit as typed; both empty: the server's default. */
  limitRequests: string;
  limitWindow: string;
  /** Seconds a CDN may keep the key's responses, as typed; empty: not cacheable (`private, no-cache`). */
  sharedMaxAge: string;
  /** Whether the key may read drafts (`status=draft`): for editors' preview sites only. */
  preview: boolean;
};

type Props = {
  value: KeyDetails;
  onChange: (value: KeyDetails) => void;
  errors: FieldErrors;
  disabled?: boolean;
  /** The stored expiry of an existing key, offered as "keep it". */
  currentExpiry?: string | null;
};

export const KeyDetailsFields = ({ value, onChange, errors, disabled, currentExpiry }: Props) => {
  const t = useT();
  const { formatDate } = useIntl();
  const set = <K extends keyof KeyDetails>(key: K, next: KeyDetails[K]) => onChange({ ...value, [key]: next });

  // One statement about the expiry at a time: the choice says it, the hint only adds what follows from it.
  const expiryHint =
    value.expiry === 'never'
      ? t('key.expiry.hint.never', 'The key works until it is revoked or deleted.')
      : value.expiry === 'custom'
        ? undefined
        : t('key.expiry.hint', 'After this moment requests with the key are refused.');
  const dateError = value.expiry === 'custom' ? errors.expiresAt : undefined;

  return (
    <Grid.Root gap={5}>
      <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
        <Field.Root name="name" required error={errors.name} width="100%">
          <Field.Label>{t('key.name', 'Name')}</Field.Label>
          <TextInput
            value={value.name}
            disabled={disabled}
            onChange={(e: React.ChangeEvent<HTMLInputElement>) => set('name', e.target.value)}
          />
          <Field.Error />
        </Field.Root>
      </Grid.Item>
      <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
        <Field.Root name="expiry" error={dateError ? undefined : errors.expiresAt} hint={expiryHint} width="100%">
          <Field.Label>{t('key.expiry', 'Expiration')}</Field.Label>
          <SingleSelect value={value.expiry} disabled={disabled} onChange={(next) => set('expiry', String(next) as ExpiryChoice)}>
            {currentExpiry && (
              <SingleSelectOption value="current">
                {t('key.expiry.current', 'Keep: expires {date}', {
                  date: formatDate(currentExpiry, { dateStyle: 'medium', timeStyle: 'short' }),
                })}
              </SingleSelectOption>
            )}
            <SingleSelectOption value="never">{t('key.expiry.never', 'Never')}</SingleSelectOption>
            <SingleSelectOption value="7">{t('key.expiry.days', 'In {days} days', { days: 7 })}</SingleSelectOption>
            <SingleSelectOption value="30">{t('key.expiry.days', 'In {days} days', { days: 30 })}</SingleSelectOption>
            <SingleSelectOption value="90">{t('key.expiry.days', 'In {days} days', { days: 90 })}</SingleSelectOption>
            <SingleSelectOption value="custom">{t('key.expiry.custom', 'On a date…')}</SingleSelectOption>
          </SingleSelect>
          <Field.Hint />
          <Field.Error />
        </Field.Root>
      </Grid.Item>
      {value.expiry === 'custom' && (
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <Field.Root
            name="customDate"
            required
            error={dateError}
            hint={t('key.expiry.date.hint', 'The key works until the end of this day.')}
            width="100%"
          >
            <Field.Label>{t('key.expiry.date', 'Expires on')}</Field.Label>
            {/* No earliest date: a past one is sent as chosen, and the server's refusal shows here. */}
            <DatePicker
              value={value.customDate}
              disabled={disabled}
              onChange={(date) => set('customDate', date)}
              onClear={() => set('customDate', undefined)}
              clearLabel={t('key.expiry.date.clear', 'Clear the date')}
            />
            <Field.Hint />
            <Field.Error />
          </Field.Root>
        </Grid.Item>
      )}
      <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
        <Field.Root
          name="limitRequests"
          error={errors['limits.requests'] ?? errors.limits}
          hint={t(
            'key.limit.hint',
            'Cost units per window: a request costs 1, more for included records, atomic operations and uploads over 1 MiB. Leave both empty for the server default.',
          )}
          width="100%"
        >
          <Field.Label>{t('key.limit.requests', 'Rate limit: cost units')}</Field.Label>
          <TextInput
            inputMode="numeric"
            value={value.limitRequests}
            disabled={disabled}
            onChange={(e: React.ChangeEvent<HTMLInputElement>) => set('limitRequests', e.target.value)}
          />
          <Field.Hint />
          <Field.Error />
        </Field.Root>
      </Grid.Item>
      <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
        <Field.Root name="limitWindow" error={errors['limits.window']} width="100%">
          <Field.Label>{t('key.limit.window', 'Rate limit: window (seconds)')}</Field.Label>
          <TextInput
            inputMode="numeric"
            value={value.limitWindow}
            disabled={disabled}
            onChange={(e: React.ChangeEvent<HTMLInputElement>) => set('limitWindow', e.target.value)}
          />
          <Field.Error />
        </Field.Root>
      </Grid.Item>
      <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
        <Field.Root
          name="sharedMaxAge"
          error={errors['cache.sharedMaxAge'] ?? errors.cache}
          hint={t(
            'key.cache.hint',
            'Seconds a CDN may keep the responses of this key (public, s-maxage). Empty: private, revalidated on every request.',
          )}
          width="100%"
        >
          <Field.Label>{t('key.cache.sharedMaxAge', 'Shared cache: max age (seconds)')}</Field.Label>
          <TextInput
            inputMode="numeric"
            value={value.sharedMaxAge}
            disabled={disabled}
            onChange={(e: React.ChangeEvent<HTMLInputElement>) => set('sharedMaxAge', e.target.value)}
          />
          <Field.Hint />
          <Field.Error />
        </Field.Root>
      </Grid.Item>
      <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
        {/*
          A checkbox and a badge rather than the design system's Toggle, which draws its "off" side in red:
          off ("Published only") is the safe default here, and drafts readable the choice to weigh.
        */}
        <Flex direction="column" alignItems="start" gap={2}>
          <Checkbox
            name="preview"
            checked={value.preview}
            disabled={disabled}
            aria-describedby={errors.preview ? 'key-preview-hint key-preview-error' : 'key-preview-hint'}
            onCheckedChange={(checked: boolean | 'indeterminate') => set('preview', checked === true)}
          >
            {t('key.preview', 'Preview drafts')}
          </Checkbox>
          <Box data-testid="preview-state">
            <StatusBadge tone={value.preview ? 'warning' : 'success'}>
              {value.preview ? t('key.preview.on', 'Drafts readable') : t('key.preview.off', 'Published only')}
            </StatusBadge>
          </Box>
          <Typography id="key-preview-hint" variant="pi" textColor="neutral600">
            {t(
              'key.preview.hint',
              'With status=draft in a request, the key also reads the latest unpublished drafts (never cached). Only for a preview site used by editors, never for a public website or app.',
            )}
          </Typography>
          {errors.preview && (
            <Typography id="key-preview-error" variant="pi" textColor="danger600">
              {errors.preview}
            </Typography>
          )}
        </Flex>
      </Grid.Item>
      <Grid.Item col={12} direction="column" alignItems="stretch">
        <Field.Root name="description" error={errors.description} width="100%">
          <Field.Label>{t('key.description', 'Description')}</Field.Label>
          <Textarea
            value={value.description}
            disabled={disabled}
            onChange={(e: React.ChangeEvent<HTMLTextAreaElement>) => set('description', e.target.value)}
          />
          <Field.Error />
        </Field.Root>
      </Grid.Item>
    </Grid.Root>
  );
};
