/**
 * One key: its plaintext right after creation or regeneration (once), then four tabs, each its own URL
 * (keys/:id, keys/:id/webhooks, keys/:id/usage, keys/:id/changes): details and grants with the live
 * preview, webhooks, usage, and the audit log of its changes. Regenerate / revoke / delete sit behind
 * confirmations in the header, above every tab. The form's state lives above the tabs, so an unsaved
 * change survives a look at another tab.
 *
 * The focus never falls to the page: right after creation and after a regeneration it is on the new
 * key's copy button; after a revoke (whose button goes with the key's activity) on the revoked notice.
 */
import { useEffect, useRef, useState } from 'react';
import { Alert, Box, Button, Flex, Tabs } from '@strapi/design-system';
import { ArrowClockwise, Check, Cross, Trash } from '@strapi/icons';
import { BackButton, Layouts, Page, useNotification } from '@strapi/strapi/admin';
import { useLocation, useNavigate, useParams } from 'react-router-dom';
import type { AdminKey } from '../../../../shared/contracts/keys';
import type { GetRegistry } from '../../../../shared/contracts/registry';
import { useAdminApi } from '../../api/client';
import { useAdminQuery } from '../../api/useAdminQuery';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ContentManagerAccessNotice } from '../../components/ContentManagerAccessNotice';
import { KeyStatus } from '../../components/KeyStatus';
import { ShowOnceKey } from '../../components/ShowOnceKey';
import { usePermissions } from '../../hooks/usePermissions';
import { Mono } from '../../components/Mono';
import { useT } from '../../hooks/useT';
import { messageOf } from '../../utils/errors';
import { useRefusal } from '../../hooks/useRefusal';
import { isExpired } from '../../utils/expiry';
import type { CreatedState } from './CreatePage';
import { KeyFormSections, Section } from './KeyFormSections';
import { UsageSection } from '../../components/usage/UsageSection';
import { AuditEntries } from '../../components/audit/AuditEntries';
import { PLUGIN_ID } from '../../pluginId';
import { useKeyForm } from './useKeyForm';
import { KeyWebhooks } from './WebhooksPage';

/** The key page's tabs, in order; each is the last segment of its URL (details: none). */
export const KEY_TABS = ['details', 'webhooks', 'usage', 'changes'] as const;
export type KeyTab = (typeof KEY_TABS)[number];
const isKeyTab = (value: string): value is KeyTab => (KEY_TABS as readonly string[]).includes(value);
const FORM_ID = 'key-details-form';

export const EditPage = () => {
  const t = useT();
  const { id = '', tab = 'details' } = useParams();
  const key = useAdminQuery('getKey', { params: { id } }, { select: (res) => res.data });
  const registry = useAdminQuery('getRegistry', {}, { select: (res) => res.data });
  if (!isKeyTab(tab)) return <Page.Error content={t('key.tab.unknown', 'This key page has no tab “{tab}”.', { tab })} />;
  if ((key.isLoading && !key.data) || (registry.isLoading && !registry.data)) return <Page.Loading />;
  // The server's own word (No key '9999'.) rather than a generic "something went wrong".
  if (!key.data) return <Page.Error content={messageOf(key.error, t('common.error', 'Something went wrong.'))} />;
  if (!registry.data) return <Page.Error content={messageOf(registry.error, t('common.error', 'Something went wrong.'))} />;
  return (
    <Page.Main>
      <Page.Title>
        {tab === 'webhooks'
          ? t('webhooks.pageTitle', 'Webhooks of {name}', { name: key.data.name })
          : t('key.edit.pageTitle', 'API key {name}', { name: key.data.name })}
      </Page.Title>
      <EditForm key={key.data.id} apiKey={key.data} registry={registry.data} onSaved={key.set} tab={tab} />
    </Page.Main>
  );
};

type EditFormProps = {
  apiKey: AdminKey;
  registry: GetRegistry.Response['data'];
  onSaved: (key: AdminKey) => void;
  tab: KeyTab;
};

const EditForm = ({ apiKey, registry, onSaved, tab }: EditFormProps) => {
  const t = useT();
  const api = useAdminApi();
  const navigate = useNavigate();
  const location = useLocation();
  const { toggleNotification } = useNotification();
  const { canUpdate, canDelete, canRegenerate } = usePermissions();
  const form = useKeyForm(apiKey, registry.resources, registry.commands);
  const [saving, setSaving] = useState(false);
  const [plaintext, setPlaintext] = useState<string | undefined>((location.state as CreatedState | null)?.plaintext);
  const copyKey = useRef<HTMLButtonElement>(null);
  const revokedNotice = useRef<HTMLDivElement>(null);
  /** Where the focus goes when the confirmation dialog closes after a revoke or a regeneration. */
  const focusNext = useRef<'copy-key' | 'revoked' | null>(null);
  const focusAfterDialog = () => {
    const target = focusNext.current === 'copy-key' ? copyKey.current : focusNext.current === 'revoked' ? revokedNotice.current : null;
    focusNext.current = null;
    return target;
  };

  // Opened by the create page with the new key: the focus goes to its copy button (the create button is gone).
  const openedWithKey = useRef(plaintext !== undefined);
  useEffect(() => {
    if (openedWithKey.current) copyKey.current?.focus();
  }, []);

  // The plaintext stays in this page's memory only: reloading or coming back never shows it again.
  useEffect(() => {
    if ((location.state as CreatedState | null)?.plaintext) navigate(location.pathname, { replace: true, state: null });
  }, [location.pathname, location.state, navigate]);

  const refuse = useRefusal();
  const fail = (error: unknown) => refuse(error);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!form.readyToSave()) return;
    setSaving(true);
    try {
      const saved = await api.updateKey({ params: { id: apiKey.id }, body: { ...form.detailsInput(), grants: form.grants } });
      onSaved(saved.data);
      form.reset(saved.data);
      toggleNotification({ type: 'success', message: t('key.saved', 'Saved. The API applies the change on the next request.') });
    } catch (error) {
      refuse(error, form.setSaveErrors);
    } finally {
      setSaving(false);
    }
  };

  const revoke = async () => {
    try {
      const revoked = await api.revokeKey({ params: { id: apiKey.id } });
      focusNext.current = 'revoked';
      onSaved(revoked.data);
      setPlaintext(undefined);
      toggleNotification({ type: 'success', message: t('key.revoked', 'The key is revoked: requests with it are refused from now on.') });
    } catch (error) {
      fail(error);
    }
  };

  const regenerate = async () => {
    try {
      const regenerated = await api.regenerateKey({ params: { id: apiKey.id } });
      focusNext.current = 'copy-key';
      onSaved(regenerated.data);
      setPlaintext(regenerated.meta.plaintext);
      toggleNotification({ type: 'success', message: t('key.regenerated', 'A new key is issued; the previous one no longer works.') });
    } catch (error) {
      fail(error);
    }
  };

  const remove = async () => {
    try {
      await api.deleteKey({ params: { id: apiKey.id } });
      toggleNotification({ type: 'success', message: t('keys.deleted', 'The key {name} is deleted.', { name: apiKey.name }) });
      navigate('..', { replace: true });
    } catch (error) {
      fail(error);
    }
  };

  const tabLabels: Record<KeyTab, string> = {
    details: t('key.tab.details', 'Details and grants'),
    webhooks: t('key.tab.webhooks', 'Webhooks'),
    usage: t('key.tab.usage', 'Usage'),
    changes: t('key.tab.changes', 'Changes'),
  };
  const base = `/settings/${PLUGIN_ID}/keys/${apiKey.id}`;
  // Replaced, not pushed: Back leaves the key (to the list) rather than stepping through its tabs.
  const openTab = (next: string) => navigate(next === 'details' ? base : `${base}/${next}`, { replace: true });

  return (
    <>
      <Layouts.Header
        navigationAction={<BackButton fallback={`/settings/${PLUGIN_ID}/keys`} />}
        title={apiKey.name}
        subtitle={
          <Flex gap={3} paddingTop={1}>
            <Mono variant="pi" textColor="neutral600" data-testid="key-prefix">{`${apiKey.prefix}_…${apiKey.lastFour}`}</Mono>
            <KeyStatus apiKey={apiKey} />
          </Flex>
        }
        primaryAction={
          <Flex gap={2} wrap="wrap">
            {canRegenerate && !apiKey.revoked && (
              <ConfirmButton
                label={t('key.regenerate', 'Regenerate')}
                icon={<ArrowClockwise />}
                title={t('key.regenerate.title', 'Regenerate {name}?', { name: apiKey.name })}
                body={t(
                  'key.regenerate.body',
                  'A new key is issued and shown once. The current key stops working at once: every client that uses it must be updated.',
                )}
                confirmLabel={t('key.regenerate.confirm', 'Regenerate the key')}
                confirmVariant="default"
                onConfirm={regenerate}
                focusAfterClose={focusAfterDialog}
                testId="regenerate-key"
              />
            )}
            {canUpdate && !apiKey.revoked && (
              <ConfirmButton
                label={t('key.revoke', 'Revoke')}
                icon={<Cross />}
                variant="danger-light"
                title={t('key.revoke.title', 'Revoke {name}?', { name: apiKey.name })}
                body={t(
                  'key.revoke.body',
                  'Requests with this key are refused from the next request on. A revoked key cannot be reactivated.',
                )}
                confirmLabel={t('key.revoke.confirm', 'Revoke the key')}
                confirmVariant="danger"
                onConfirm={revoke}
                focusAfterClose={focusAfterDialog}
                testId="revoke-key"
              />
            )}
            {canDelete && (
              <ConfirmButton
                label={t('key.delete', 'Delete')}
                icon={<Trash />}
                variant="danger-light"
                title={t('key.delete.title', 'Delete {name}?', { name: apiKey.name })}
                body={t('key.delete.body', 'Requests with this key are refused at once, and the key cannot be restored.')}
                confirmLabel={t('key.delete.confirm', 'Delete the key')}
                confirmVariant="danger"
                onConfirm={remove}
                testId="delete-key"
              />
            )}
            {canUpdate && !apiKey.revoked && tab === 'details' && (
              // Outside the form (the tabs hold other forms, which cannot nest): tied to it by its id.
              <Button type="submit" form={FORM_ID} startIcon={<Check />} loading={saving} disabled={!form.isDirty} size="S">
                {t('key.save', 'Save')}
              </Button>
            )}
          </Flex>
        }
      />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={6}>
          {plaintext && <ShowOnceKey plaintext={plaintext} copyRef={copyKey} />}
          {apiKey.revoked && (
            // Focusable (not in the tab order) and named: the focus lands here once the key is revoked.
            <Box
              ref={revokedNotice}
              tabIndex={-1}
              role="group"
              aria-label={t('key.revoked.notice', 'This key is revoked')}
              hasRadius
              data-testid="revoked-notice"
            >
              <Alert variant="danger" closeLabel={t('common.close', 'Close')} title={t('key.revoked.title', 'Revoked')}>
                {t('key.revoked.body', 'This key is revoked: every request with it is refused. Its settings are shown read-only.')}
              </Alert>
            </Box>
          )}
          {!apiKey.revoked && <ContentManagerAccessNotice apiKey={apiKey} />}
          {!apiKey.revoked && isExpired(apiKey.expiresAt) && (
            <Alert variant="warning" closeLabel={t('common.close', 'Close')} title={t('key.expired.title', 'Expired')}>
              {t('key.expired.body', 'This key has expired: requests with it are refused. Set a new expiry to use it again.')}
            </Alert>
          )}
          <Tabs.Root value={tab} onValueChange={openTab} variant="simple">
            <Tabs.List aria-label={t('key.tabs', 'Key sections')}>
              {KEY_TABS.map((name) => (
                <Tabs.Trigger key={name} value={name} data-testid={`key-tab-${name}`}>
                  {tabLabels[name]}
                </Tabs.Trigger>
              ))}
            </Tabs.List>
            <Box paddingTop={6}>
              <Tabs.Content value="details">
                <form id={FORM_ID} onSubmit={submit} noValidate>
                  {/* A revoked key is refused whatever its form says, and cannot come back: nothing to edit. */}
                  <KeyFormSections
                    form={form}
                    registry={registry}
                    disabled={!canUpdate || apiKey.revoked}
                    keyId={apiKey.id}
                    currentExpiry={apiKey.expiresAt}
                    revoked={apiKey.revoked}
                  />
                </form>
              </Tabs.Content>
              <Tabs.Content value="webhooks">
                <KeyWebhooks apiKey={apiKey} registry={registry} />
              </Tabs.Content>
              <Tabs.Content value="usage">
                <Section
                  title={t('usage.title', 'Usage')}
                  description={t('usage.description', 'Requests made with this key, their outcome and their speed.')}
                  testId="section-usage"
                >
                  <UsageSection keyId={apiKey.id} />
                </Section>
              </Tabs.Content>
              <Tabs.Content value="changes">
                <Section
                  title={t('audit.key.title', 'Changes')}
                  description={t('audit.key.description', 'Who changed this key, when, and what.')}
                  testId="section-audit"
                >
                  <AuditEntries
                    query={{ subjectType: 'key', subjectId: apiKey.id, limit: 10 }}
                    showSubject={false}
                    emptyText={t('audit.key.empty', 'No recorded changes.')}
                  />
                </Section>
              </Tabs.Content>
            </Box>
          </Tabs.Root>
        </Flex>
      </Layouts.Content>
    </>
  );
};
