/**
 * Create a key: details, grants, origins, with the live preview. On success the edit page opens
 * with the key's plaintext, shown there once.
 */
import { Box, Button, Flex } from '@strapi/design-system';
import { Check } from '@strapi/icons';
import { BackButton, Layouts, Page, useNotification } from '@strapi/strapi/admin';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { GetRegistry } from '../../../../shared/contracts/registry';
import { useAdminApi } from '../../api/client';
import { useAdminQuery } from '../../api/useAdminQuery';
import { ApiTokensNote } from '../../components/ApiTokensNote';
import { usePermissions } from '../../hooks/usePermissions';
import { useT } from '../../hooks/useT';
import { useRefusal } from '../../hooks/useRefusal';
import { KeyFormSections } from './KeyFormSections';
import { useKeyForm } from './useKeyForm';

export type CreatedState = { plaintext: string };

export const CreatePage = () => {
  const t = useT();
  const registry = useAdminQuery('getRegistry', {}, { select: (res) => res.data });
  if (registry.isLoading && !registry.data) return <Page.Loading />;
  if (!registry.data) return <Page.Error />;
  return (
    <Page.Main>
      <Page.Title>{t('key.create.pageTitle', 'Create an API key')}</Page.Title>
      <CreateForm registry={registry.data} />
    </Page.Main>
  );
};

const CreateForm = ({ registry }: { registry: GetRegistry.Response['data'] }) => {
  const t = useT();
  const api = useAdminApi();
  const navigate = useNavigate();
  const { toggleNotification } = useNotification();
  const { canCreate } = usePermissions();
  const form = useKeyForm(undefined, registry.resources, registry.commands);
  const refuse = useRefusal();
  const [saving, setSaving] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!form.readyToSave()) return;
    setSaving(true);
    try {
      const details = form.detailsInput();
      const created = await api.createKey({
        body: {
          name: details.name ?? '',
          description: details.description ?? null,
          expiresAt: details.expiresAt ?? null,
          limits: details.limits ?? null,
          cache: details.cache ?? null,
          preview: details.preview ?? false,
          grants: form.grants,
        },
      });
      toggleNotification({ type: 'success', message: t('key.created', 'The key {name} is created.', { name: created.data.name }) });
      navigate(`../${created.data.id}`, { replace: true, state: { plaintext: created.meta.plaintext } satisfies CreatedState });
    } catch (error) {
      refuse(error, form.setSaveErrors);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Layouts.Header
        navigationAction={<BackButton fallback=".." />}
        title={t('key.create.title', 'Create an API key')}
        subtitle={t('key.create.subtitle', 'The key is shown once, right after it is created.')}
        primaryAction={
          <Flex gap={2}>
            <Button type="submit" startIcon={<Check />} loading={saving} disabled={!canCreate} size="S">
              {t('key.create.save', 'Create the key')}
            </Button>
          </Flex>
        }
      />
      <Layouts.Content>
        <Box paddingBottom={4}>
          <ApiTokensNote />
        </Box>
        <KeyFormSections form={form} registry={registry} disabled={!canCreate} />
      </Layouts.Content>
    </form>
  );
};
