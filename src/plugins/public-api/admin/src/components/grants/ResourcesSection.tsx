/**
 * Every resource the key could be granted: the native modules, then each website's publications.
 */
import { Accordion, Alert, Flex, Typography } from '@strapi/design-system';
import type { ResourceSummary } from '../../../../shared/contracts/registry';
import { useT } from '../../hooks/useT';
import { errorsUnder, type FieldErrors } from '../../utils/errors';
import { grantOf, setAction, setAllFields, setField, type Draft } from '../../utils/grants';
import { ResourceGrant } from './ResourceGrant';

type Props = {
  resources: ResourceSummary[];
  draft: Draft;
  onChange: (draft: Draft) => void;
  errors: FieldErrors;
  dangling: string[];
  disabled?: boolean;
};

type Group = { id: string; title: string; resources: ResourceSummary[] };

export const ResourcesSection = ({ resources, draft, onChange, errors, dangling, disabled }: Props) => {
  const t = useT();
  const groups: Group[] = [];
  for (const resource of resources) {
    const id = resource.website?.slug ?? '';
    let group = groups.find((candidate) => candidate.id === id);
    if (!group) {
      group = {
        id,
        title: resource.website
          ? t('grants.group.website', 'Website: {name}', { name: resource.website.name })
          : t('grants.group.native', 'Modules'),
        resources: [],
      };
      groups.push(group);
    }
    group.resources.push(resource);
  }
  const firstWithError = resources.find(
    (resource) => Object.keys(errorsUnder(errors, `resources.${resource.id}`)).length > 0 || errors[`resources.${resource.id}`],
  );

  return (
    <Flex direction="column" alignItems="stretch" gap={6}>
      {dangling.length > 0 && (
        <Alert
          variant="warning"
          closeLabel={t('common.close', 'Close')}
          title={t('grants.dangling.title', 'Grants on resources that no longer exist')}
        >
          {t('grants.dangling', 'These grants are removed when you save: {ids}', { ids: dangling.join(', ') })}
        </Alert>
      )}
      {groups.map((group) => (
        <Flex key={group.id} direction="column" alignItems="stretch" gap={3}>
          <Typography variant="sigma" textColor="neutral600" tag="h3">
            {group.title}
          </Typography>
          <Accordion.Root defaultValue={firstWithError?.id}>
            {group.resources.map((resource) => {
              const resourceErrors = errorsUnder(errors, `resources.${resource.id}`);
              const own = errors[`resources.${resource.id}`];
              return (
                <ResourceGrant
                  key={resource.id}
                  resource={resource}
                  grant={grantOf(draft, resource.id)}
                  errors={own ? { ...resourceErrors, '': own } : resourceErrors}
                  disabled={disabled}
                  onAction={(action, on) => onChange(setAction(draft, resource.id, action, on))}
                  onField={(field, kind, on) => onChange(setField(draft, resource, field, kind, on))}
                  onAll={(kind, on) => onChange(setAllFields(draft, resource, kind, on))}
                />
              );
            })}
          </Accordion.Root>
        </Flex>
      ))}
    </Flex>
  );
};
