/**
 * Settings > Public Data API > Audit log: every change to keys and websites, newest first, filtered by
 * kind (keys, websites) or, from a link, by one key (`?key=3`) or website (`?website=2`).
 */
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { Layouts, Page } from '@strapi/strapi/admin';
import { useSearchParams } from 'react-router-dom';
import type { AuditSubjectType } from '../../../../shared/contracts/audit';
import { PERMISSIONS } from '../../../../shared/contracts/permissions';
import { AuditEntries } from '../../components/audit/AuditEntries';
import { useT } from '../../hooks/useT';

const FILTERS = ['all', 'key', 'website'] as const;

const AuditLogPage = () => {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const keyId = Number(params.get('key')) || undefined;
  const websiteId = Number(params.get('website')) || undefined;
  const kind = params.get('kind');
  const subjectType: AuditSubjectType | undefined = keyId
    ? 'key'
    : websiteId
      ? 'website'
      : kind === 'key' || kind === 'website'
        ? kind
        : undefined;
  const filterLabels = {
    all: t('audit.filter.all', 'Everything'),
    key: t('audit.filter.keys', 'Keys'),
    website: t('audit.filter.websites', 'Websites'),
  };
  return (
    <Page.Main>
      <Page.Title>{t('audit.pageTitle', 'Audit log')}</Page.Title>
      <Layouts.Header
        title={t('audit.title', 'Audit log')}
        subtitle={t('audit.subtitle', 'Who created, changed, regenerated, revoked or deleted each key and website, and when.')}
      />
      <Layouts.Content>
        <Box background="neutral0" hasRadius shadow="filterShadow" paddingTop={6} paddingBottom={6} paddingLeft={7} paddingRight={7}>
          <Flex direction="column" alignItems="stretch" gap={4}>
            <Flex gap={2} role="group" aria-label={t('audit.filter', 'Show')}>
              {FILTERS.map((filter) => {
                const active = (filter === 'all' && !subjectType) || filter === subjectType;
                return (
                  <Button
                    type="button"
                    key={filter}
                    size="S"
                    variant={active ? 'default' : 'tertiary'}
                    aria-pressed={active}
                    onClick={() => setParams(filter === 'all' ? {} : { kind: filter })}
                    data-testid={`audit-filter-${filter}`}
                  >
                    {filterLabels[filter]}
                  </Button>
                );
              })}
            </Flex>
            {(keyId || websiteId) && (
              <Typography textColor="neutral700">
                {keyId
                  ? t('audit.filter.key', 'Changes of key #{id}', { id: keyId })
                  : t('audit.filter.website', 'Changes of website #{id}', { id: websiteId })}
              </Typography>
            )}
            <AuditEntries
              key={`${subjectType ?? 'all'}-${keyId ?? websiteId ?? ''}`}
              query={{ subjectType, subjectId: keyId ?? websiteId, limit: 25 }}
              emptyText={t('audit.empty', 'No changes recorded yet.')}
            />
            <Typography variant="pi" textColor="neutral700">
              {t('audit.retention', 'Entries are kept: nothing deletes them. They never hold a key or its secret.')}
            </Typography>
          </Flex>
        </Box>
      </Layouts.Content>
    </Page.Main>
  );
};

const AuditPage = () => (
  <Page.Protect permissions={PERMISSIONS.read}>
    <AuditLogPage />
  </Page.Protect>
);

export default AuditPage;
