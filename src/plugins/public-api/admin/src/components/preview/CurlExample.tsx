/**
 * An example request for one of the key's resources, ready to copy.
 */
import { useState } from 'react';
import { Box, Button, Field, Flex, SingleSelect, SingleSelectOption, Typography } from '@strapi/design-system';
import { Duplicate } from '@strapi/icons';
import { useClipboard, useNotification } from '@strapi/strapi/admin';
import { styled } from 'styled-components';
import type { ResourceSummary } from '../../../../shared/contracts/registry';
import { MONO_FONT } from '../Mono';
import { useT } from '../../hooks/useT';
import { KEY_VARIABLE, curlExample } from './curl';

const Code = styled.pre`
  margin: 0;
  white-space: pre-wrap;
  word-break: break-all;
  font-family: ${MONO_FONT};
  font-size: 1.3rem;
  line-height: 1.6;
  color: ${({ theme }) => theme.colors.neutral800};
`;

export const CurlExample = ({ apiBaseUrl, resources }: { apiBaseUrl: string; resources: ResourceSummary[] }) => {
  const t = useT();
  const { copy } = useClipboard();
  const { toggleNotification } = useNotification();
  const [selected, setSelected] = useState<string | undefined>();
  const resource = resources.find((candidate) => candidate.id === selected) ?? resources[0];
  if (!resource) {
    return <Typography textColor="neutral600">{t('preview.curl.none', 'Grant a resource to see an example request.')}</Typography>;
  }
  const command = curlExample(apiBaseUrl, resource.path, resource.mode);
  return (
    <Flex direction="column" alignItems="stretch" gap={3}>
      <Field.Root
        name="curl-resource"
        hint={t('preview.curl.hint', 'Set {variable} to the key before running it.', { variable: KEY_VARIABLE })}
      >
        <Field.Label>{t('preview.curl.resource', 'Resource')}</Field.Label>
        <SingleSelect value={resource.id} onChange={(value) => setSelected(String(value))}>
          {resources.map((candidate) => (
            <SingleSelectOption key={candidate.id} value={candidate.id}>
              {`${candidate.name} (${candidate.path})`}
            </SingleSelectOption>
          ))}
        </SingleSelect>
        <Field.Hint />
      </Field.Root>
      <Box background="neutral100" hasRadius padding={4}>
        <Code data-testid="curl-example">{command}</Code>
      </Box>
      <Flex>
        <Button
          variant="secondary"
          startIcon={<Duplicate />}
          onClick={async () => {
            if (await copy(command)) toggleNotification({ type: 'success', message: t('preview.curl.copied', 'The example is copied.') });
          }}
        >
          {t('preview.curl.copy', 'Copy the example')}
        </Button>
      </Flex>
    </Flex>
  );
};
