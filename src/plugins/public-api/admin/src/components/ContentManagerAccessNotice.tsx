/**
 * On a key's page: what the key holds that the signed-in admin may not do in the Content Manager, and
 * so what they may not do to the key (widen it, regenerate its secret, add or redirect its webhooks;
 * contract section 18). Shown only when there is something to say; the server decides (GET
 * /keys/:id/access) and refuses the same things with the same messages.
 */
import { Alert, Box, Typography } from '@strapi/design-system';
import { useAdminQuery } from '../api/useAdminQuery';
import type { AdminKey } from '../../../shared/contracts/keys';
import { useT } from '../hooks/useT';

export const ContentManagerAccessNotice = ({ apiKey }: { apiKey: Pick<AdminKey, 'id' | 'updatedAt'> }) => {
  const t = useT();
  // Asked again whenever the key changes (a narrowing may leave nothing to say).
  const access = useAdminQuery('getKeyAccess', { params: { id: apiKey.id } }, { deps: [apiKey.updatedAt] });
  if (!access.data || access.data.data.complete) return null;
  return (
    <Box data-testid="content-manager-access-notice">
      <Alert
        variant="warning"
        closeLabel={t('common.close', 'Close')}
        title={t('key.contentManagerAccess.title', 'This key holds more than you may see')}
      >
        {t(
          'key.contentManagerAccess.body',
          'You may grant only what you may do yourself in the Content Manager. You may narrow this key or revoke it, but not widen it, regenerate its secret or add webhooks to it. Ask an admin with these rights, or a super admin:',
        )}
      </Alert>
      {/* Below the alert, not in it: the design system sets an alert's text in a <p>, which cannot hold a list. */}
      <Box tag="ul" paddingTop={2} paddingLeft={6} style={{ listStyle: 'disc' }}>
        {access.data.data.issues.map((issue) => (
          <li key={`${issue.path.join('.')}:${issue.message}`}>
            <Typography variant="pi" textColor="neutral800">
              {issue.message}
            </Typography>
          </li>
        ))}
      </Box>
    </Box>
  );
};
