/**
 * A secret right after the server made it (a key's plaintext, a webhook's signing secret): shown once,
 * with a copy button and why it cannot be shown again. It lives only in this page's memory. `copyRef` is
 * the copy button, where a page may put the focus when the secret appears.
 */
import type { Ref } from 'react';
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { Duplicate, Key } from '@strapi/icons';
import { useClipboard, useNotification } from '@strapi/strapi/admin';
import { Mono } from './Mono';

export type ShowOnceText = {
  /** The region's accessible name. */
  region: string;
  title: string;
  warning: string;
  copy: string;
  copied: string;
  copyFailed: string;
};

type Props = {
  value: string;
  text: ShowOnceText;
  /** The heading's level where the region stands (a page section: h2; a card: h3). */
  headingTag: 'h2' | 'h3';
  testIds: { region: string; value: string; copy?: string };
  /** A card's region is tighter than a page's. */
  compact?: boolean;
  copyRef?: Ref<HTMLButtonElement>;
};

export const ShowOnce = ({ value, text, headingTag, testIds, compact = false, copyRef }: Props) => {
  const { copy } = useClipboard();
  const { toggleNotification } = useNotification();
  const onCopy = async () => {
    const copied = await copy(value);
    toggleNotification(copied ? { type: 'success', message: text.copied } : { type: 'warning', message: text.copyFailed });
  };
  return (
    <Box
      background="warning100"
      borderColor="warning200"
      hasRadius
      padding={compact ? 5 : 6}
      role="region"
      aria-label={text.region}
      data-testid={testIds.region}
    >
      <Flex direction="column" alignItems="stretch" gap={compact ? 3 : 4}>
        <Flex gap={3} alignItems="center">
          <Key aria-hidden fill="warning600" />
          <Typography variant="delta" tag={headingTag}>
            {text.title}
          </Typography>
        </Flex>
        <Typography textColor="neutral800">{text.warning}</Typography>
        <Box background="neutral0" hasRadius padding={3} borderColor="neutral200">
          <Mono variant="omega" fontWeight="semiBold" data-testid={testIds.value}>
            {value}
          </Mono>
        </Box>
        <Flex>
          <Button ref={copyRef} startIcon={<Duplicate />} variant="secondary" onClick={onCopy} data-testid={testIds.copy}>
            {text.copy}
          </Button>
        </Flex>
      </Flex>
    </Box>
  );
};
