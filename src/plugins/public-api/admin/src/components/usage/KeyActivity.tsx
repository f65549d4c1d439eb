/**
 * What a key has been doing, for the bottom of its page: its usage, and the audit log of its changes.
 */
import { Flex } from '@strapi/design-system';
import { useT } from '../../hooks/useT';
import { AuditEntries } from '../audit/AuditEntries';
import { Section } from '../../pages/keys/KeyFormSections';
import { UsageSection } from './UsageSection';

export const KeyActivity = ({ keyId }: { keyId: number }) => {
  const t = useT();
  return (
    <Flex direction="column" alignItems="stretch" gap={6}>
      <Section
        title={t('usage.title', 'Usage')}
        description={t('usage.description', 'Requests made with this key, their outcome and their speed.')}
        testId="section-usage"
      >
        <UsageSection keyId={keyId} />
      </Section>
      <Section
        title={t('audit.key.title', 'Changes')}
        description={t('audit.key.description', 'Who changed this key, when, and what.')}
        testId="section-audit"
      >
        <AuditEntries
          query={{ subjectType: 'key', subjectId: keyId, limit: 10 }}
          showSubject={false}
          emptyText={t('audit.key.empty', 'No recorded changes.')}
        />
      </Section>
    </Flex>
  );
};
