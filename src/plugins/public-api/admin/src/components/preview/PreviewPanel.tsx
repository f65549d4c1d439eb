/**
 * The live preview of what the key sees, as the grants stand in the form (saved or not): the
 * resource index, the OpenAPI document and an example request. Asked of the server a moment after
 * the last change; invalid grants report their errors to the form instead.
 */
import { useEffect, useState } from 'react';
import { Flex, Loader, Tabs, Typography } from '@strapi/design-system';
import type { GrantsInput } from '../../../../shared/contracts/keys';
import type { PreviewKey } from '../../../../shared/contracts/preview';
import type { ResourceSummary } from '../../../../shared/contracts/registry';
import { useT } from '../../hooks/useT';
import { useAdminApi } from '../../api/client';
import { toFieldErrors, type FieldErrors } from '../../utils/errors';
import { CurlExample } from './CurlExample';
import { OpenApiView } from './OpenApiView';
import { ResourceIndexView } from './ResourceIndexView';

type Props = {
  grants: GrantsInput;
  keyId?: number;
  /** The form's preview flag: a preview key's document lists `status` on reads. */
  previewKey: boolean;
  resources: ResourceSummary[];
  /** Receives the server's validation of the grants: {} when they are valid. */
  onValidated: (errors: FieldErrors) => void;
};

const DELAY_MS = 400;

export const PreviewPanel = ({ grants, keyId, previewKey, resources, onValidated }: Props) => {
  const t = useT();
  const api = useAdminApi();
  const [preview, setPreview] = useState<PreviewKey.Response['data']>();
  const [failed, setFailed] = useState(false);
  const [loading, setLoading] = useState(true);
  const request = JSON.stringify(grants);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    const timer = setTimeout(async () => {
      try {
        const response = await api.previewKey(
          { body: { grants: JSON.parse(request) as GrantsInput, preview: previewKey, ...(keyId ? { keyId } : {}) } },
          { signal: controller.signal },
        );
        onValidated(toFieldErrors(response.data.issues));
        // Invalid grants keep the last valid preview on screen; the form shows what to fix.
        if (response.data.index) setPreview(response.data);
        setFailed(false);
      } catch {
        if (!controller.signal.aborted) setFailed(true);
      } finally {
        if (!controller.signal.aborted) setLoading(false);
      }
    }, DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // onValidated is a state setter wrapper; the request text is what matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, request, keyId, previewKey]);

  const granted = resources.filter((resource) => (grants.resources[resource.id]?.actions.length ?? 0) > 0);

  return (
    <Flex direction="column" alignItems="stretch" gap={4} aria-busy={loading} data-testid="preview">
      {failed && <Typography textColor="danger600">{t('preview.failed', 'The preview could not be loaded.')}</Typography>}
      {!preview && loading && <Loader small>{t('preview.loading', 'Loading the preview…')}</Loader>}
      {preview && (
        <Tabs.Root defaultValue="index" variant="simple">
          <Tabs.List aria-label={t('preview.tabs', 'Preview')}>
            <Tabs.Trigger value="index">{t('preview.tab.index', 'Resource index')}</Tabs.Trigger>
            <Tabs.Trigger value="openapi">{t('preview.tab.openapi', 'OpenAPI document')}</Tabs.Trigger>
            <Tabs.Trigger value="curl">{t('preview.tab.curl', 'Example request')}</Tabs.Trigger>
          </Tabs.List>
          <Tabs.Content value="index">
            <Flex direction="column" alignItems="stretch" gap={2} paddingTop={4}>
              <Typography variant="pi" textColor="neutral600">
                {t('preview.index.caption', 'GET {url}', { url: `${preview.apiBaseUrl}/` })}
              </Typography>
              {preview.index && <ResourceIndexView answer={preview.index} />}
            </Flex>
          </Tabs.Content>
          <Tabs.Content value="openapi">
            <Flex direction="column" alignItems="stretch" paddingTop={4}>
              <OpenApiView
                answer={preview.openapi}
                ownPaths={[...granted.map((resource) => resource.path), ...grants.commands.map((command) => `/commands/${command}`)]}
              />
            </Flex>
          </Tabs.Content>
          <Tabs.Content value="curl">
            <Flex direction="column" alignItems="stretch" paddingTop={4}>
              <CurlExample apiBaseUrl={preview.apiBaseUrl} resources={granted} />
            </Flex>
          </Tabs.Content>
        </Tabs.Root>
      )}
    </Flex>
  );
};
