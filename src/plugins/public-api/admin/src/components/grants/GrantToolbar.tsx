/**
 * Starting points for the grant matrix: a template (read-only site, full access, newsletter form), or
 * the grants of another key. Either replaces the resources and commands in the form (origins stay);
 * nothing is saved until Save.
 */
import { Button, Field, Flex, SingleSelect, SingleSelectOption, Typography } from '@strapi/design-system';
import type { CommandSummary, ResourceSummary } from '../../../../shared/contracts/registry';
import { useLoad } from '../../hooks/useLoad';
import { useT, type Translate } from '../../hooks/useT';
import { usePublicApi } from '../../utils/api';
import { applyTemplate, copyGrants, TEMPLATES, type GrantTemplate } from '../../utils/grant-templates';
import type { Draft } from '../../utils/grants';

type Props = {
  resources: ResourceSummary[];
  commands: CommandSummary[];
  draft: Draft;
  onChange: (draft: Draft) => void;
  keyId?: number;
};

const templateLabel = (t: Translate, template: GrantTemplate): string =>
  ({
    'read-only-site': t('grants.template.readOnly', 'Read-only site'),
    'full-access': t('grants.template.full', 'Full access'),
    'newsletter-form': t('grants.template.newsletter', 'Newsletter form'),
  })[template];

const templateHint = (t: Translate, template: GrantTemplate): string =>
  ({
    'read-only-site': t(
      'grants.template.readOnly.hint',
      'Reads every resource with all fields, except personal data; no writes, no commands.',
    ),
    'full-access': t('grants.template.full.hint', 'Every action on every resource, every field, every command.'),
    'newsletter-form': t('grants.template.newsletter.hint', 'Only the newsletter-signup command; reads nothing.'),
  })[template];

export const GrantToolbar = ({ resources, commands, draft, onChange, keyId }: Props) => {
  const t = useT();
  const api = usePublicApi();
  const keys = useLoad(() => api.listKeys().then((res) => res.data.filter((key) => key.id !== keyId)), [api, keyId]);
  return (
    <Flex gap={6} wrap="wrap" alignItems="end" data-testid="grant-toolbar">
      <Flex direction="column" alignItems="start" gap={1}>
        <Typography variant="pi" fontWeight="bold" textColor="neutral800" id="grant-templates-label">
          {t('grants.templates', 'Start from a template')}
        </Typography>
        <Flex gap={2} role="group" aria-labelledby="grant-templates-label">
          {TEMPLATES.map((template) => (
            <Button
              key={template}
              variant="secondary"
              size="S"
              title={templateHint(t, template)}
              onClick={() => onChange(applyTemplate(template, draft, resources, commands))}
            >
              {templateLabel(t, template)}
            </Button>
          ))}
        </Flex>
      </Flex>
      {(keys.data?.length ?? 0) > 0 && (
        <Field.Root name="copy-grants" width="26rem">
          <Field.Label>{t('grants.copy', 'Copy grants from another key')}</Field.Label>
          <SingleSelect
            value={undefined}
            placeholder={t('grants.copy.placeholder', 'Choose a key')}
            onChange={(id) => {
              const from = keys.data?.find((key) => String(key.id) === String(id));
              if (from) onChange(copyGrants(from, draft, resources));
            }}
          >
            {(keys.data ?? []).map((key) => (
              <SingleSelectOption key={key.id} value={String(key.id)}>
                {key.name}
              </SingleSelectOption>
            ))}
          </SingleSelect>
        </Field.Root>
      )}
    </Flex>
  );
};
