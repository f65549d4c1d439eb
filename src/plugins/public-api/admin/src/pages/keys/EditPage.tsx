/**
 * One key: its plaintext right after creation or regeneration (once), its details and grants, the
 * live preview, and regenerate / revoke / delete behind confirmations.
 *
 * The focus never falls to the page: right after creation and after a regeneration it is on the new
 * key's copy button; after a revoke (whose button goes with the key's activity) on the revoked notice.
 */
import { useEffect, useRef, useState } from 'react';
import { Alert, Box, Button, Flex, LinkButton } from '@strapi/design-system';
import { ArrowClockwise, Check, Cross, Trash } from '@strapi/icons';
import { BackButton, Layouts, Page, useNotification } from '@strapi/strapi/admin';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import type { AdminKey } from '../../../../shared/contracts/keys';
import type { GetRegistry } from '../../../../shared/contracts/registry';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ContentManagerAccessNotice } from '../../components/ContentManagerAccessNotice';
import { KeyStatus } from '../../components/KeyStatus';
import { ShowOnceKey } from '../../components/ShowOnceKey';
import { useLoad } from '../../hooks/useLoad';
import { usePermissions } from '../../hooks/usePermissions';
import { Mono } from '../../components/Mono';
import { useT } from '../../hooks/useT';
import { usePublicApi } from '../../utils/api';
import { isContentManagerRefusal, issuesOf, messageOf, toFieldErrors } from '../../utils/errors';
import { isExpired } from '../../utils/expiry';
import type { CreatedState } from './CreatePage';
import { KeyFormSections } from './KeyFormSections';
import { KeyActivity } from '../../components/usage/KeyActivity';
import { useKeyForm } from './useKeyForm';

export const EditPage = () => {
  const t = useT();
  const api = usePublicApi();
  const { id = '' } = useParams();
  const key = useLoad(() => api.getKey(id).then((res) => res.data), [api, id]);
  const registry = useLoad(() => api.registry().then((res) => res.data), [api]);
  if ((key.isLoading && !key.data) || (registry.isLoading && !registry.data)) return <Page.Loading />;
  // The server's own word (No key '9999'.) rather than a generic "something went wrong".
  if (!key.data) return <Page.Error content={messageOf(key.error, t('common.error', 'Something went wrong.'))} />;
  if (!registry.data) return <Page.Error content={messageOf(registry.error, t('common.error', 'Something went wrong.'))} />;
  return (
    <Page.Main>
      <Page.Title>{t('key.edit.pageTitle', 'API key {name}', { name: key.data.name })}</Page.Title>
      <EditForm key={key.data.id} apiKey={key.data} registry={registry.data} onSaved={key.set} />
    </Page.Main>
  );
};

type EditFormProps = {
  apiKey: AdminKey;
  registry: GetRegistry.Response['data'];
  onSaved: (key: AdminKey) => void;
};

const EditForm = ({ apiKey, registry, onSaved }: EditFormProps) => {
  const t = useT();
  const api = usePublicApi();
  const navigate = useNavigate();
  const location = useLocation();
  const { toggleNotification } = useNotification();
  const { canUpdate, canDelete, canRegenerate } = usePermissions();
  const form = useKeyForm(apiKey, registry.resources);
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

  const fail = (error: unknown) =>
    toggleNotification({ type: 'danger', message: messageOf(error, t('common.error', 'Something went wrong.')) });

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (form.missingDate) {
      form.setSaveErrors({ expiresAt: t('key.expiry.date.missing', 'Choose the date the key expires on.') });
      return;
    }
    if (form.refuseBlankOrigins()) {
      toggleNotification({ type: 'danger', message: t('form.invalid', 'Some values are not valid: see the messages under the fields.') });
      return;
    }
    setSaving(true);
    try {
      const saved = await api.updateKey(apiKey.id, { ...form.detailsInput(), grants: form.grants });
      onSaved(saved.data);
      form.reset(saved.data);
      toggleNotification({ type: 'success', message: t('key.saved', 'Saved. The API applies the change on the next request.') });
    } catch (error) {
      const issues = issuesOf(error);
      if (issues) {
        form.setSaveErrors(toFieldErrors(issues));
        // A Content Manager refusal's message says why, and what to ask for.
        const message = isContentManagerRefusal(error)
          ? messageOf(error, t('form.invalid', 'Some values are not valid: see the messages under the fields.'))
          : t('form.invalid', 'Some values are not valid: see the messages under the fields.');
        toggleNotification({ type: 'danger', message });
      } else fail(error);
    } finally {
      setSaving(false);
    }
  };

  const revoke = async () => {
    try {
      const revoked = await api.revokeKey(apiKey.id);
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
      const regenerated = await api.regenerateKey(apiKey.id);
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
      await api.deleteKey(apiKey.id);
      toggleNotification({ type: 'success', message: t('keys.deleted', 'The key {name} is deleted.', { name: apiKey.name }) });
      navigate('..', { replace: true });
    } catch (error) {
      fail(error);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Layouts.Header
        navigationAction={<BackButton fallback=".." />}
        title={apiKey.name}
        subtitle={
          <Flex gap={3} paddingTop={1}>
            <Mono variant="pi" textColor="neutral600" data-testid="key-prefix">{`${apiKey.prefix}_…${apiKey.lastFour}`}</Mono>
            <KeyStatus apiKey={apiKey} />
          </Flex>
        }
        primaryAction={
          <Flex gap={2} wrap="wrap">
            <LinkButton tag={Link} to="webhooks" variant="tertiary" size="S" data-testid="key-webhooks">
              {t('key.webhooks', 'Webhooks')}
            </LinkButton>
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
            {canUpdate && !apiKey.revoked && (
              <Button type="submit" startIcon={<Check />} loading={saving} disabled={!form.isDirty} size="S">
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
          {/* A revoked key is refused whatever its form says, and cannot come back: nothing to edit. */}
          <KeyFormSections
            form={form}
            registry={registry}
            disabled={!canUpdate || apiKey.revoked}
            keyId={apiKey.id}
            currentExpiry={apiKey.expiresAt}
          />
          <KeyActivity keyId={apiKey.id} />
        </Flex>
      </Layouts.Content>
    </form>
  );
};
