/**
 * Starting points for the grant matrix: a template (read-only site, full access, a form per command the
 * registry reports), or the grants of another key. Either replaces the resources and commands in the form (origins stay);
 * nothing is saved until Save. Each template says what it grants in one line next to its button, which
 * is also the button's accessible description: seen without hovering, heard on focus.
 */
import { Fragment, useId } from 'react';
import { Box, Button, Field, Flex, SingleSelect, SingleSelectOption, Typography } from '@strapi/design-system';
import type { CommandSummary, ResourceSummary } from '../../../../shared/contracts/registry';
import { useAdminQuery } from '../../api/useAdminQuery';
import { useT, type Translate } from '../../hooks/useT';
import { applyTemplate, copyGrants, grantTemplates, templateId, type GrantTemplate } from '../../utils/grant-templates';
import type { Draft } from '../../utils/grants';

type Props = {
  resources: ResourceSummary[];
  commands: CommandSummary[];
  draft: Draft;
  onChange: (draft: Draft) => void;
  keyId?: number;
};

/** A template's button text, and the one line that says what it grants. */
const describeTemplate = (t: Translate, template: GrantTemplate): { label: string; hint: string } => {
  switch (template.kind) {
    case 'read-only-site':
      return {
        label: t('grants.template.readOnly', 'Read-only site'),
        hint: t('grants.template.readOnly.hint', 'Reads every resource with all fields, except personal data; no writes, no commands.'),
      };
    case 'full-access':
      return {
        label: t('grants.template.full', 'Full access'),
        hint: t('grants.template.full.hint', 'Every action on every resource, every field, every command.'),
      };
    case 'form':
      return {
        label: t('grants.template.form', 'Form: {command}', { command: template.command }),
        hint: t('grants.template.form.hint', 'Only the {command} command; reads nothing.', { command: template.command }),
      };
  }
};

export const GrantToolbar = ({ resources, commands, draft, onChange, keyId }: Props) => {
  const t = useT();
  const keys = useAdminQuery('listKeys', {}, { select: (res) => res.data.filter((key) => key.id !== keyId), deps: [keyId] });
  const hintId = `${useId()}-template-hint-`;
  return (
    <Flex gap={6} wrap="wrap" alignItems="end" data-testid="grant-toolbar">
      <Flex direction="column" alignItems="start" gap={1}>
        <Typography variant="pi" fontWeight="bold" textColor="neutral800" id="grant-templates-label">
          {t('grants.templates', 'Start from a template')}
        </Typography>
        {/* A button and its description per row; the buttons share one column, so the descriptions line up. */}
        <Box
          role="group"
          aria-labelledby="grant-templates-label"
          style={{
            display: 'grid',
            gridTemplateColumns: 'max-content minmax(0, 1fr)',
            alignItems: 'center',
            columnGap: '0.75rem',
            rowGap: '0.5rem',
          }}
        >
          {grantTemplates(commands).map((template) => (
            <Fragment key={templateId(template)}>
              <Button
                variant="secondary"
                size="S"
                aria-describedby={`${hintId}${templateId(template)}`}
                onClick={() => onChange(applyTemplate(template, draft, resources, commands))}
              >
                {describeTemplate(t, template).label}
              </Button>
              <Typography
                id={`${hintId}${templateId(template)}`}
                variant="pi"
                textColor="neutral600"
                data-testid={`template-hint-${templateId(template)}`}
              >
                {describeTemplate(t, template).hint}
              </Typography>
            </Fragment>
          ))}
        </Box>
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
