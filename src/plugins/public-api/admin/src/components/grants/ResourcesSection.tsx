/**
 * The grant matrix: every resource the key could be granted (the native modules, then each website's
 * publications) against the actions, on one screen. A resource's fields open in place under its row;
 * ticking Read makes every field readable (narrow them in the fields). Templates and another key's
 * grants give a starting point, and warnings say what a choice means before it is saved.
 */
import { Fragment, useState } from 'react';
import { Alert, Badge, Box, Button, Checkbox, Flex, Typography, VisuallyHidden } from '@strapi/design-system';
import { CaretDown, CaretUp } from '@strapi/icons';
import { GRANT_ACTIONS, type CommandSummary, type GrantAction, type ResourceSummary } from '../../../../shared/contracts/registry';
import { useT, type Translate } from '../../hooks/useT';
import { errorsUnder, type FieldErrors } from '../../utils/errors';
import { hiddenRelations } from '../../utils/grant-warnings';
import { grantOf, setAction, setAllFields, setField, type Draft } from '../../utils/grants';
import { StatusBadge } from '../StatusBadge';
import { ErrorText, FieldPicker } from './FieldPicker';
import { GrantToolbar } from './GrantToolbar';
import { GrantWarnings } from './GrantWarnings';

type Props = {
  resources: ResourceSummary[];
  commands: CommandSummary[];
  draft: Draft;
  onChange: (draft: Draft) => void;
  errors: FieldErrors;
  dangling: string[];
  disabled?: boolean;
  /** The key being edited, left out of "copy grants from another key". */
  keyId?: number;
};

type Group = { id: string; title: string; resources: ResourceSummary[] };

export const actionLabel = (t: Translate, action: GrantAction): string =>
  ({
    read: t('grants.action.read', 'Read'),
    create: t('grants.action.create', 'Create'),
    update: t('grants.action.update', 'Update'),
    delete: t('grants.action.delete', 'Delete'),
  })[action];

const groupsOf = (t: Translate, resources: ResourceSummary[]): Group[] => {
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
  return groups;
};

/** "All 15 readable · 2 writable": what the API will serve (relations to ungranted resources are not counted). */
const fieldsSummary = (t: Translate, resource: ResourceSummary, draft: Draft): string => {
  const grant = grantOf(draft, resource.id);
  if (grant.actions.length === 0) return t('grants.summary.none', 'Not granted');
  const hidden = hiddenRelations(draft, resource);
  const total = resource.fields.length;
  const read = grant.actions.includes('read') ? grant.read.filter((key) => !hidden.has(key)).length : 0;
  const write = grant.write.filter((key) => !hidden.has(key)).length;
  const readText =
    read === total && total > 0
      ? t('grants.summary.readAll', 'All {total} readable', { total })
      : t('grants.summary.read', '{read} of {total} readable', { read, total });
  const writes = grant.actions.includes('create') || grant.actions.includes('update');
  return writes ? `${readText} · ${t('grants.summary.write', '{write} writable', { write })}` : readText;
};

const cell = { padding: '0.5rem 0.75rem', textAlign: 'left' as const, borderBottom: '1px solid #eaeaef', verticalAlign: 'middle' as const };

export const ResourcesSection = ({ resources, commands, draft, onChange, errors, dangling, disabled, keyId }: Props) => {
  const t = useT();
  const groups = groupsOf(t, resources);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const errorsOf = (resource: ResourceSummary): FieldErrors => {
    const own = errors[`resources.${resource.id}`];
    const under = errorsUnder(errors, `resources.${resource.id}`);
    return own ? { ...under, '': own } : under;
  };
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Flex direction="column" alignItems="stretch" gap={5}>
      {!disabled && <GrantToolbar resources={resources} commands={commands} draft={draft} onChange={onChange} keyId={keyId} />}
      {dangling.length > 0 && (
        <Alert
          variant="warning"
          closeLabel={t('common.close', 'Close')}
          title={t('grants.dangling.title', 'Grants on resources or commands that no longer exist')}
        >
          {t('grants.dangling', 'These grants are removed when you save: {ids}', { ids: dangling.join(', ') })}
        </Alert>
      )}
      <GrantWarnings resources={resources} draft={draft} onChange={onChange} disabled={disabled} />
      {groups.map((group) => (
        <Box key={group.id} data-testid={`grant-group-${group.id || 'native'}`}>
          {/* Fixed layout: every group's columns line up under one another. */}
          <table style={{ width: '100%', borderCollapse: 'collapse', tableLayout: 'fixed' }}>
            <caption style={{ textAlign: 'left', paddingBottom: '0.5rem' }}>
              <Typography variant="delta" tag="h3">
                {group.title}
              </Typography>
            </caption>
            <thead>
              <tr>
                <th scope="col" style={{ ...cell, width: '30%' }}>
                  <Typography variant="sigma" textColor="neutral600">
                    {t('grants.resource', 'Resource')}
                  </Typography>
                </th>
                {GRANT_ACTIONS.map((action) => (
                  <th scope="col" key={action} style={{ ...cell, width: '5.5rem' }}>
                    <Typography variant="sigma" textColor="neutral600">
                      {actionLabel(t, action)}
                    </Typography>
                  </th>
                ))}
                <th scope="col" style={cell}>
                  <Typography variant="sigma" textColor="neutral600">
                    {t('grants.fields', 'Fields')}
                  </Typography>
                </th>
              </tr>
            </thead>
            <tbody>
              {group.resources.map((resource) => {
                const grant = grantOf(draft, resource.id);
                const resourceErrors = errorsOf(resource);
                const hasError = Object.keys(resourceErrors).length > 0;
                const isOpen = open.has(resource.id) || hasError;
                const pickerId = `fields-of-${resource.id.replace(/[^a-z0-9-]/gi, '-')}`;
                return (
                  <Fragment key={resource.id}>
                    <tr data-testid={`grant-${resource.id}`}>
                      <th scope="row" style={{ ...cell, fontWeight: 'normal' }}>
                        <Flex direction="column" alignItems="start" gap={1}>
                          <Flex gap={2} wrap="wrap">
                            <Typography fontWeight="semiBold" textColor="neutral800">
                              {resource.name}
                            </Typography>
                            {resource.mode === 'singleton' && <Badge size="S">{t('grants.singleton', 'Singleton')}</Badge>}
                            {resource.personalData && (
                              <StatusBadge size="S" tone="warning">
                                {t('grants.personalData', 'Personal data')}
                              </StatusBadge>
                            )}
                            {hasError && (
                              <StatusBadge size="S" tone="danger">
                                {t('grants.hasError', 'Check this resource')}
                              </StatusBadge>
                            )}
                          </Flex>
                          <Typography variant="pi" textColor="neutral600">
                            {resource.path}
                          </Typography>
                        </Flex>
                      </th>
                      {GRANT_ACTIONS.map((action) => (
                        <td key={action} style={cell}>
                          {resource.actions.includes(action) ? (
                            <Checkbox
                              name={`${resource.id}.actions.${action}`}
                              aria-label={t('grants.actionOf', '{action} {name}', { action: actionLabel(t, action), name: resource.name })}
                              checked={grant.actions.includes(action)}
                              disabled={disabled}
                              onCheckedChange={(checked) => onChange(setAction(draft, resource, action, checked === true))}
                            />
                          ) : (
                            <Typography textColor="neutral600">
                              <span aria-hidden>—</span>
                              <VisuallyHidden>{t('grants.actionUnsupported', 'not available')}</VisuallyHidden>
                            </Typography>
                          )}
                        </td>
                      ))}
                      <td style={cell}>
                        <Flex gap={3} justifyContent="space-between">
                          <Typography variant="pi" textColor={grant.actions.length ? 'neutral800' : 'neutral600'}>
                            {fieldsSummary(t, resource, draft)}
                          </Typography>
                          <Button
                            variant="tertiary"
                            size="S"
                            aria-expanded={isOpen}
                            aria-controls={pickerId}
                            endIcon={isOpen ? <CaretUp /> : <CaretDown />}
                            onClick={() => toggle(resource.id)}
                          >
                            {t('grants.fields.toggle', 'Fields')}
                            <VisuallyHidden>{t('grants.fields.of', ' of {name}', { name: resource.name })}</VisuallyHidden>
                          </Button>
                        </Flex>
                      </td>
                    </tr>
                    {isOpen && (
                      <tr id={pickerId}>
                        <td colSpan={GRANT_ACTIONS.length + 2} style={{ ...cell, background: '#f6f6f9', padding: '1rem 1.5rem' }}>
                          <ErrorText message={resourceErrors['']} />
                          <ErrorText message={resourceErrors.actions} />
                          <FieldPicker
                            resource={resource}
                            grant={grant}
                            errors={resourceErrors}
                            hidden={hiddenRelations(draft, resource)}
                            disabled={disabled}
                            onField={(field, kind, on) => onChange(setField(draft, resource, field, kind, on))}
                            onAll={(kind, on) => onChange(setAllFields(draft, resource, kind, on))}
                          />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </Box>
      ))}
    </Flex>
  );
};
