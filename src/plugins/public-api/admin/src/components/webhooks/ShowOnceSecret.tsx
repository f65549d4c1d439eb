/**
 * An endpoint's signing secret right after it was made or rotated: shown once, with a copy button. It
 * lives only in this page's memory; the server keeps it sealed and never returns it again.
 */
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { Duplicate, Key } from '@strapi/icons';
import { useClipboard, useNotification } from '@strapi/strapi/admin';
import { Mono } from '../Mono';
import { useT } from '../../hooks/useT';

export const ShowOnceSecret = ({ secret, rotated }: { secret: string; rotated: boolean }) => {
  const t = useT();
  const { copy } = useClipboard();
  const { toggleNotification } = useNotification();
  const onCopy = async () => {
    const copied = await copy(secret);
    toggleNotification(
      copied
        ? { type: 'success', message: t('webhooks.secret.copied', 'The signing secret is copied to the clipboard.') }
        : { type: 'warning', message: t('webhooks.secret.copyFailed', 'The secret could not be copied: select it and copy it by hand.') },
    );
  };
  return (
    <Box
      background="warning100"
      borderColor="warning200"
      hasRadius
      padding={5}
      role="region"
      aria-label={t('webhooks.secret.region', 'Signing secret')}
      data-testid="webhook-secret"
    >
      <Flex direction="column" alignItems="stretch" gap={3}>
        <Flex gap={3} alignItems="center">
          <Key aria-hidden fill="warning600" />
          <Typography variant="delta" tag="h3">
            {t('webhooks.secret.title', 'Copy the signing secret now')}
          </Typography>
        </Flex>
        <Typography textColor="neutral800">
          {rotated
            ? t(
                'webhooks.secret.rotated',
                'This is the only time the new secret is shown. For 24 hours requests are signed with both the new and the previous secret, so the receiver can switch without losing events.',
              )
            : t(
                'webhooks.secret.warning',
                'This is the only time the secret is shown. The receiver verifies each request with it (Standard Webhooks). If you lose it, rotate it.',
              )}
        </Typography>
        <Box background="neutral0" hasRadius padding={3} borderColor="neutral200">
          <Mono variant="omega" fontWeight="semiBold" data-testid="webhook-secret-value">
            {secret}
          </Mono>
        </Box>
        <Flex>
          <Button startIcon={<Duplicate />} variant="secondary" onClick={onCopy}>
            {t('webhooks.secret.copy', 'Copy secret')}
          </Button>
        </Flex>
      </Flex>
    </Box>
  );
};
