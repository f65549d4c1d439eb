/**
 * The Webhooks tab of a key's page (keys/:id/webhooks), contract section 16: its endpoints, each with its recent deliveries; adding one
 * shows its signing secret once. Events carry only what this key may read. A revoked or expired key's
 * endpoints are sent nothing (the dispatcher drops their events): the page says so, and a revoked key,
 * which cannot come back, takes no new endpoint.
 */
import { useState } from 'react';
import { Alert, Box, Button, Flex, Typography } from '@strapi/design-system';
import { Plus } from '@strapi/icons';
import { useNotification } from '@strapi/strapi/admin';
import type { AdminKey } from '../../../../shared/contracts/keys';
import type { GetRegistry } from '../../../../shared/contracts/registry';
import type { AdminWebhookEndpoint, WebhookEndpointInput } from '../../../../shared/contracts/webhooks';
import { useAdminApi } from '../../api/client';
import { useAdminQuery } from '../../api/useAdminQuery';
import { EndpointCard } from '../../components/webhooks/EndpointCard';
import { EndpointForm } from '../../components/webhooks/EndpointForm';
import { usePermissions } from '../../hooks/usePermissions';
import { useT } from '../../hooks/useT';
import { resourceLabel } from '../../utils/resource-label';
import { issuesOf, toFieldErrors, type FieldErrors } from '../../utils/errors';
import { useRefusal } from '../../hooks/useRefusal';
import { isExpired } from '../../utils/expiry';

type Props = { apiKey: AdminKey; registry: GetRegistry.Response['data'] };

export const KeyWebhooks = ({ apiKey, registry }: Props) => {
  const t = useT();
  const api = useAdminApi();
  const { toggleNotification } = useNotification();
  const { canUpdate, canRegenerate } = usePermissions();
  const endpoints = useAdminQuery('listWebhookEndpoints', { params: { id: apiKey.id } }, { select: (res) => res.data });
  const [adding, setAdding] = useState(false);
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [secrets, setSecrets] = useState<Record<number, { value: string; rotated: boolean }>>({});

  // Named with their website: two websites' "Pages" are told apart.
  const readable = registry.resources
    .filter((resource) => apiKey.grants.resources[resource.id]?.actions.includes('read'))
    .map((resource) => ({ id: resource.id, name: resourceLabel(resource) }));

  const refuse = useRefusal();
  // Field issues show under the endpoint's fields alone (no notification); anything else is notified.
  const fail = (error: unknown) => refuse(error);
  const replace = (next: AdminWebhookEndpoint) => endpoints.set((endpoints.data ?? []).map((item) => (item.id === next.id ? next : item)));

  const create = async (input: WebhookEndpointInput) => {
    setSaving(true);
    try {
      const created = await api.createWebhookEndpoint({ params: { id: apiKey.id }, body: input });
      endpoints.set([...(endpoints.data ?? []), created.data]);
      setSecrets({ ...secrets, [created.data.id]: { value: created.meta.secret, rotated: false } });
      setAdding(false);
      setErrors({});
    } catch (error) {
      const issues = issuesOf(error);
      if (issues) setErrors(toFieldErrors(issues));
      else fail(error);
    } finally {
      setSaving(false);
    }
  };

  const save = async (endpoint: AdminWebhookEndpoint, input: Partial<WebhookEndpointInput>): Promise<FieldErrors | null> => {
    try {
      replace((await api.updateWebhookEndpoint({ params: { id: endpoint.id }, body: input })).data);
      toggleNotification({ type: 'success', message: t('webhooks.saved', 'The endpoint is saved.') });
      return null;
    } catch (error) {
      const issues = issuesOf(error);
      if (issues) return toFieldErrors(issues);
      fail(error);
      return {};
    }
  };

  const rotate = async (endpoint: AdminWebhookEndpoint) => {
    try {
      const rotated = await api.rotateWebhookSecret({ params: { id: endpoint.id } });
      replace(rotated.data);
      setSecrets({ ...secrets, [endpoint.id]: { value: rotated.meta.secret, rotated: true } });
    } catch (error) {
      fail(error);
    }
  };

  const remove = async (endpoint: AdminWebhookEndpoint) => {
    try {
      await api.deleteWebhookEndpoint({ params: { id: endpoint.id } });
      endpoints.set((endpoints.data ?? []).filter((item) => item.id !== endpoint.id));
    } catch (error) {
      fail(error);
    }
  };

  return (
    <Flex direction="column" alignItems="stretch" gap={6} data-testid="section-webhooks">
      <Flex justifyContent="space-between" alignItems="start" gap={4}>
        <Flex direction="column" alignItems="start" gap={1}>
          <Typography variant="delta" tag="h2">
            {t('webhooks.title', 'Webhooks')}
          </Typography>
          <Typography textColor="neutral600">
            {t(
              'webhooks.subtitle',
              'Signed events when content that {name} may read changes: each event shows only the fields this key may read.',
              { name: apiKey.name },
            )}
          </Typography>
        </Flex>
        {canUpdate && !adding && !apiKey.revoked && (
          <Button startIcon={<Plus />} size="S" onClick={() => setAdding(true)} style={{ flexShrink: 0 }}>
            {t('webhooks.new', 'Add endpoint')}
          </Button>
        )}
      </Flex>
      {apiKey.revoked && (
        <Alert variant="danger" closeLabel={t('common.close', 'Close')} title={t('webhooks.revoked.title', 'Revoked key')}>
          {t('webhooks.revoked.body', 'This key is revoked: its endpoints are sent no event, and no endpoint can be added.')}
        </Alert>
      )}
      {!apiKey.revoked && isExpired(apiKey.expiresAt) && (
        <Alert variant="warning" closeLabel={t('common.close', 'Close')} title={t('webhooks.expired.title', 'Expired key')}>
          {t(
            'webhooks.expired.body',
            'This key has expired: its endpoints are sent no event until the key is given a new expiry on its page.',
          )}
        </Alert>
      )}
      {adding && (
        <Box background="neutral0" hasRadius shadow="tableShadow" padding={6}>
          <EndpointForm resources={readable} errors={errors} saving={saving} onSubmit={create} onCancel={() => setAdding(false)} />
        </Box>
      )}
      {endpoints.data?.length === 0 && !adding && !apiKey.revoked && (
        <Typography textColor="neutral600">
          {t('webhooks.none', 'No endpoints yet. Add one to be told when content this key may read changes.')}
        </Typography>
      )}
      {(endpoints.data ?? []).map((endpoint) => (
        <EndpointCard
          key={endpoint.id}
          endpoint={endpoint}
          resources={readable}
          secret={secrets[endpoint.id]}
          canUpdate={canUpdate}
          canRegenerate={canRegenerate}
          onSave={(input) => save(endpoint, input)}
          onRotate={() => rotate(endpoint)}
          onDelete={() => remove(endpoint)}
        />
      ))}
    </Flex>
  );
};
