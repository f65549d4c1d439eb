/**
 * One webhook endpoint: where it sends, what, whether it is on (and why not), its secret's last four
 * characters; edit, turn on or off, rotate the secret, delete; and its recent deliveries.
 */
import { useState } from 'react';
import { Alert, Box, Button, Flex, Typography } from '@strapi/design-system';
import { ArrowClockwise, Pencil, Trash } from '@strapi/icons';
import type { AdminWebhookEndpoint, WebhookEndpointInput } from '../../../../shared/contracts/webhooks';
import { ConfirmButton } from '../ConfirmButton';
import { Mono } from '../Mono';
import { StatusBadge } from '../StatusBadge';
import { useT } from '../../hooks/useT';
import type { FieldErrors } from '../../utils/errors';
import { DeliveriesTable } from './DeliveriesTable';
import { EndpointForm, type ReadableResource } from './EndpointForm';
import { ShowOnceSecret } from './ShowOnceSecret';

type Props = {
  endpoint: AdminWebhookEndpoint;
  resources: ReadableResource[];
  secret: { value: string; rotated: boolean } | undefined;
  canUpdate: boolean;
  canRegenerate: boolean;
  onSave: (input: Partial<WebhookEndpointInput>) => Promise<FieldErrors | null>;
  onRotate: () => Promise<void>;
  onDelete: () => Promise<void>;
};

export const EndpointCard = ({ endpoint, resources, secret, canUpdate, canRegenerate, onSave, onRotate, onDelete }: Props) => {
  const t = useT();
  const [editing, setEditing] = useState(false);
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const names = new Map(resources.map((resource) => [resource.id, resource.name]));

  const save = async (input: Partial<WebhookEndpointInput>) => {
    setSaving(true);
    const refused = await onSave(input);
    setSaving(false);
    setErrors(refused ?? {});
    if (!refused) setEditing(false);
  };

  return (
    <Box background="neutral0" hasRadius shadow="tableShadow" padding={6} data-testid="webhook-endpoint">
      <Flex direction="column" alignItems="stretch" gap={4}>
        <Flex justifyContent="space-between" alignItems="flex-start" gap={4} wrap="wrap">
          <Flex direction="column" alignItems="flex-start" gap={1}>
            <Flex gap={2} alignItems="center">
              <Mono variant="omega" fontWeight="semiBold">
                {endpoint.url}
              </Mono>
              <StatusBadge tone={endpoint.enabled ? 'success' : 'danger'}>
                {endpoint.enabled ? t('webhooks.enabled', 'On') : t('webhooks.disabled', 'Off')}
              </StatusBadge>
            </Flex>
            {endpoint.description && <Typography textColor="neutral600">{endpoint.description}</Typography>}
            <Typography variant="pi" textColor="neutral600">
              {endpoint.events.join(', ')} ·{' '}
              {endpoint.resources.length === 0
                ? t('webhooks.resources.all', 'every resource the key may read')
                : endpoint.resources.map((id) => names.get(id) ?? id).join(', ')}{' '}
              · {t('webhooks.secretHint', 'secret …{hint}', { hint: endpoint.secretHint })}
            </Typography>
          </Flex>
          <Flex gap={2} wrap="wrap">
            {canUpdate && (
              <Button variant="tertiary" size="S" startIcon={<Pencil />} onClick={() => setEditing(!editing)}>
                {t('webhooks.edit', 'Edit')}
              </Button>
            )}
            {canUpdate && (
              <Button variant="secondary" size="S" onClick={() => void save({ enabled: !endpoint.enabled })}>
                {endpoint.enabled ? t('webhooks.turnOff', 'Turn off') : t('webhooks.turnOn', 'Turn on')}
              </Button>
            )}
            {canRegenerate && (
              <ConfirmButton
                label={t('webhooks.rotate', 'Rotate secret')}
                icon={<ArrowClockwise />}
                title={t('webhooks.rotate.title', 'Rotate the signing secret?')}
                body={t(
                  'webhooks.rotate.body',
                  'A new secret is made and shown once. For 24 hours requests carry signatures with both secrets; then only the new one.',
                )}
                confirmLabel={t('webhooks.rotate.confirm', 'Rotate')}
                confirmVariant="default"
                onConfirm={onRotate}
              />
            )}
            {canUpdate && (
              <ConfirmButton
                label={t('webhooks.delete', 'Delete')}
                icon={<Trash />}
                variant="danger-light"
                title={t('webhooks.delete.title', 'Delete this endpoint?')}
                body={t('webhooks.delete.body', 'No more events are sent to it, and its delivery log is deleted.')}
                confirmLabel={t('webhooks.delete.confirm', 'Delete the endpoint')}
                confirmVariant="danger"
                onConfirm={onDelete}
              />
            )}
          </Flex>
        </Flex>
        {!endpoint.enabled && endpoint.disabledReason && (
          <Alert variant="danger" closeLabel={t('common.close', 'Close')} title={t('webhooks.disabled.title', 'Turned off')}>
            {endpoint.disabledReason}
          </Alert>
        )}
        {endpoint.enabled && endpoint.failingSince !== null && (
          <Alert variant="warning" closeLabel={t('common.close', 'Close')} title={t('webhooks.failing.title', 'Failing')}>
            {t(
              'webhooks.failing.body',
              'Deliveries have failed since {since}. After about 24 hours of failures the endpoint is turned off.',
              {
                since: new Date(endpoint.failingSince).toLocaleString(),
              },
            )}
          </Alert>
        )}
        {secret && <ShowOnceSecret secret={secret.value} rotated={secret.rotated} />}
        {editing && (
          <EndpointForm
            endpoint={endpoint}
            resources={resources}
            errors={errors}
            saving={saving}
            onSubmit={save}
            onCancel={() => setEditing(false)}
          />
        )}
        <DeliveriesTable endpointId={endpoint.id} canRedeliver={canUpdate} />
      </Flex>
    </Box>
  );
};
