/**
 * A webhook endpoint's settings: URL, description, events and resources (of those the key may read;
 * none chosen: all of them). Errors from the server appear under the fields they concern.
 */
import { useState } from 'react';
import { Button, Checkbox, Field, Flex, TextInput, Typography } from '@strapi/design-system';
import { Check } from '@strapi/icons';
import {
  WEBHOOK_EVENT_NAMES,
  type AdminWebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookEventName,
} from '../../../../shared/contracts/webhooks';
import { useT } from '../../hooks/useT';
import type { FieldErrors } from '../../utils/errors';

export type ReadableResource = { id: string; name: string };

type Props = {
  endpoint?: AdminWebhookEndpoint;
  resources: ReadableResource[];
  errors: FieldErrors;
  saving: boolean;
  onSubmit: (input: WebhookEndpointInput) => void;
  onCancel: () => void;
};

export const EndpointForm = ({ endpoint, resources, errors, saving, onSubmit, onCancel }: Props) => {
  const t = useT();
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<WebhookEventName[]>(endpoint?.events ?? [...WEBHOOK_EVENT_NAMES]);
  const [chosen, setChosen] = useState<string[]>(endpoint?.resources ?? []);
  const toggle = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((other) => other !== item));
  const resourceErrors = Object.entries(errors)
    .filter(([path]) => path.startsWith('resources'))
    .map(([, message]) => message);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    onSubmit({ url: url.trim(), description: description.trim() || null, events, resources: chosen });
  };

  return (
    <form onSubmit={submit} noValidate data-testid="webhook-form">
      <Flex direction="column" alignItems="stretch" gap={4}>
        <Field.Root
          name="url"
          required
          error={errors.url}
          hint={t('webhooks.url.hint', 'An https URL on the public internet. Events are POSTed to it, signed.')}
        >
          <Field.Label>{t('webhooks.url', 'Endpoint URL')}</Field.Label>
          <TextInput
            value={url}
            placeholder="https://example.com/webhooks"
            onChange={(e: React.ChangeEvent<HTMLInputElement>) => setUrl(e.target.value)}
          />
          <Field.Hint />
          <Field.Error />
        </Field.Root>
        <Field.Root name="description" error={errors.description}>
          <Field.Label>{t('webhooks.description', 'Description')}</Field.Label>
          <TextInput value={description} onChange={(e: React.ChangeEvent<HTMLInputElement>) => setDescription(e.target.value)} />
          <Field.Error />
        </Field.Root>
        <Flex direction="column" alignItems="stretch" gap={2} role="group" aria-labelledby="webhook-events-label">
          <Typography id="webhook-events-label" variant="pi" fontWeight="bold">
            {t('webhooks.events', 'Events')}
          </Typography>
          <Flex gap={4} wrap="wrap">
            {WEBHOOK_EVENT_NAMES.map((name) => (
              <Checkbox key={name} checked={events.includes(name)} onCheckedChange={(on: boolean) => setEvents(toggle(events, name, on))}>
                {name}
              </Checkbox>
            ))}
          </Flex>
          {errors.events && (
            <Typography variant="pi" textColor="danger600">
              {errors.events}
            </Typography>
          )}
        </Flex>
        <Flex direction="column" alignItems="stretch" gap={2} role="group" aria-labelledby="webhook-resources-label">
          <Typography id="webhook-resources-label" variant="pi" fontWeight="bold">
            {t('webhooks.resources', 'Resources')}
          </Typography>
          <Typography variant="pi" textColor="neutral600">
            {t('webhooks.resources.hint', 'Of those the key may read. None chosen: every resource the key may read, now and later.')}
          </Typography>
          <Flex gap={4} wrap="wrap">
            {resources.map((resource) => (
              <Checkbox
                key={resource.id}
                checked={chosen.includes(resource.id)}
                onCheckedChange={(on: boolean) => setChosen(toggle(chosen, resource.id, on))}
              >
                {resource.name}
              </Checkbox>
            ))}
          </Flex>
          {resourceErrors.length > 0 && (
            <Typography variant="pi" textColor="danger600">
              {resourceErrors.join(' ')}
            </Typography>
          )}
        </Flex>
        {errors[''] && (
          <Typography variant="pi" textColor="danger600">
            {errors['']}
          </Typography>
        )}
        <Flex gap={2}>
          <Button type="submit" startIcon={<Check />} loading={saving} size="S">
            {endpoint ? t('webhooks.save', 'Save endpoint') : t('webhooks.add', 'Add endpoint')}
          </Button>
          <Button variant="tertiary" size="S" onClick={onCancel}>
            {t('webhooks.cancel', 'Cancel')}
          </Button>
        </Flex>
      </Flex>
    </form>
  );
};
