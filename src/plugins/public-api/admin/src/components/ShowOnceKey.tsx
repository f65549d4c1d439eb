/**
 * The key's plaintext, right after it was created or regenerated: shown once, with a copy button and
 * a warning that it cannot be shown again. It lives only in this page's memory. `copyRef` is the copy
 * button, where the page puts the focus when the key appears (created, regenerated).
 */
import type { Ref } from 'react';
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { Duplicate, Key } from '@strapi/icons';
import { useClipboard, useNotification } from '@strapi/strapi/admin';
import { Mono } from './Mono';
import { useT } from '../hooks/useT';

export const ShowOnceKey = ({ plaintext, copyRef }: { plaintext: string; copyRef?: Ref<HTMLButtonElement> }) => {
  const t = useT();
  const { copy } = useClipboard();
  const { toggleNotification } = useNotification();

  const onCopy = async () => {
    const copied = await copy(plaintext);
    toggleNotification(
      copied
        ? { type: 'success', message: t('key.once.copied', 'The key is copied to the clipboard.') }
        : { type: 'warning', message: t('key.once.copyFailed', 'The key could not be copied: select it and copy it by hand.') },
    );
  };

  return (
    <Box
      background="warning100"
      borderColor="warning200"
      hasRadius
      padding={6}
      role="region"
      aria-label={t('key.once.region', 'New API key')}
      data-testid="show-once-key"
    >
      <Flex direction="column" alignItems="stretch" gap={4}>
        <Flex gap={3} alignItems="center">
          <Key aria-hidden fill="warning600" />
          <Typography variant="delta" tag="h2">
            {t('key.once.title', 'Copy this key now')}
          </Typography>
        </Flex>
        <Typography textColor="neutral800">
          {t(
            'key.once.warning',
            'This is the only time the key is shown. Only a hash of it is stored: if you lose it, regenerate the key and update every client that uses it.',
          )}
        </Typography>
        <Box background="neutral0" hasRadius padding={3} borderColor="neutral200">
          <Mono variant="omega" fontWeight="semiBold" data-testid="plaintext-key">
            {plaintext}
          </Mono>
        </Box>
        <Flex>
          <Button ref={copyRef} startIcon={<Duplicate />} variant="secondary" onClick={onCopy} data-testid="copy-key">
            {t('key.once.copy', 'Copy key')}
          </Button>
        </Flex>
      </Flex>
    </Box>
  );
};
