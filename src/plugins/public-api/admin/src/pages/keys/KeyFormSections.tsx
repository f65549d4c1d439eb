/**
 * The body of the create and edit pages: details, resources, commands, origins and the live preview,
 * each in its own box the way Strapi's settings pages lay out a form.
 */
import type { ReactNode } from 'react';
import { Box, Flex, Typography } from '@strapi/design-system';
import type { GetRegistry } from '../../../../shared/contracts/registry';
import { KeyDetailsFields } from '../../components/KeyDetailsFields';
import { CommandsSection } from '../../components/grants/CommandsSection';
import { OriginsSection } from '../../components/grants/OriginsSection';
import { ResourcesSection } from '../../components/grants/ResourcesSection';
import { PreviewPanel } from '../../components/preview/PreviewPanel';
import { useT } from '../../hooks/useT';
import type { KeyForm } from './useKeyForm';

export const Section = ({
  title,
  description,
  children,
  testId,
}: {
  title: string;
  description?: string;
  children: ReactNode;
  testId?: string;
}) => (
  <Box
    background="neutral0"
    hasRadius
    shadow="filterShadow"
    paddingTop={6}
    paddingBottom={6}
    paddingLeft={7}
    paddingRight={7}
    data-testid={testId}
  >
    <Flex direction="column" alignItems="stretch" gap={4}>
      <Flex direction="column" alignItems="start" gap={1}>
        <Typography variant="delta" tag="h2">
          {title}
        </Typography>
        {description && <Typography textColor="neutral600">{description}</Typography>}
      </Flex>
      {children}
    </Flex>
  </Box>
);

type Props = {
  form: KeyForm;
  registry: GetRegistry.Response['data'];
  disabled: boolean;
  keyId?: number;
  currentExpiry?: string | null;
  /** A revoked key is refused on every request: the preview says it sees nothing instead of what its grants show. */
  revoked?: boolean;
};

export const KeyFormSections = ({ form, registry, disabled, keyId, currentExpiry, revoked = false }: Props) => {
  const t = useT();
  return (
    <Flex direction="column" alignItems="stretch" gap={6}>
      <Section title={t('key.section.details', 'Details')} testId="section-details">
        <KeyDetailsFields
          value={form.details}
          onChange={form.setDetails}
          errors={form.errors}
          disabled={disabled}
          currentExpiry={currentExpiry}
        />
      </Section>
      <Section
        title={t('key.section.resources', 'Resources')}
        description={t(
          'key.section.resources.description',
          'What the key may do with each resource (Read makes every field readable: narrow them under Fields), and which fields it may read and write. Changes apply on the next API request after saving.',
        )}
        testId="section-resources"
      >
        <ResourcesSection
          resources={registry.resources}
          commands={registry.commands}
          keyId={keyId}
          draft={form.draft}
          onChange={form.setDraft}
          errors={form.errors}
          dangling={form.dangling}
          disabled={disabled}
        />
      </Section>
      <Section
        title={t('key.section.commands', 'Commands')}
        description={t('key.section.commands.description', 'The commands the key may run.')}
        testId="section-commands"
      >
        <CommandsSection
          commands={registry.commands}
          draft={form.draft}
          onChange={form.setDraft}
          error={form.errors.commands}
          disabled={disabled}
        />
      </Section>
      <Section title={t('key.section.origins', 'Allowed origins')} testId="section-origins">
        <OriginsSection
          draft={form.draft}
          onChange={form.setDraft}
          errors={form.originErrors}
          blankRows={form.flaggedBlankOrigins}
          disabled={disabled}
        />
      </Section>
      <Section
        title={t('key.section.preview', 'Preview')}
        description={
          revoked
            ? undefined
            : t('key.section.preview.description', 'What the API answers this key with the grants above, before and after saving.')
        }
        testId="section-preview"
      >
        {revoked ? (
          <Typography textColor="neutral700" data-testid="preview-revoked">
            {t(
              'key.preview.revoked',
              'This key is revoked, so it sees nothing: every request with it, to the index, the OpenAPI document or any resource, is refused with 401.',
            )}
          </Typography>
        ) : (
          <PreviewPanel
            grants={form.grants}
            keyId={keyId}
            previewKey={form.details.preview}
            resources={registry.resources}
            onValidated={form.onValidated}
          />
        )}
      </Section>
    </Flex>
  );
};
